// What covers or hides a target (the control a driver goes for, else the composer region):
// modal dialogs that leave it aria-hidden or inert, and whatever the topmost element at its
// points is when that is not the target (a backdrop, a consent region, a toast). Each obstacle
// by kind, role, accessible name and its buttons' names. Called as page.evaluate(arg) with
// arg.targetSelector, or as element.evaluate(el, arg) with the target itself. DOM only; the
// provider's vocabulary comes in `arg` (popupRoles: the driver's own menus, never obstacles).
(first, second) => {
  const arg = first instanceof Element ? second : first;
  let target = first instanceof Element ? first : null;
  if (!target && arg.targetSelector) {
    const candidates = Array.from(document.querySelectorAll(arg.targetSelector));
    target = candidates.find((el) => !arg.targetHas || el.querySelector(arg.targetHas)) || candidates[0] || null;
  }
  const popupSelector = (arg.popupRoles || []).map((r) => `[role="${r}"]`).join(",");
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  const text = (el) => (el ? (el.textContent || "").replace(/\s+/g, " ").trim() : "");
  const nameOf = (el) => {
    const label = el.getAttribute("aria-label");
    if (label && label.trim()) return label.trim();
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const joined = by.split(/\s+/).map((id) => text(document.getElementById(id))).join(" ").trim();
      if (joined) return joined;
    }
    if (el.matches("button, [role=button], a")) return text(el);
    const heading = el.querySelector("h1, h2, h3, [role=heading]");
    return heading ? text(heading) : text(el).slice(0, 80);
  };
  const roleOf = (el) => {
    const role = el.getAttribute("role");
    if (role) return role;
    if (el.tagName === "DIALOG") return "dialog";
    if ((el.tagName === "SECTION" || el.tagName === "ASIDE") && el.getAttribute("aria-label")) return "region";
    return el.tagName.toLowerCase();
  };
  // Each reported button is marked "<obstacle>:<button>" so the driver presses exactly it.
  const mark = `${arg.mark}-button`;
  for (const old of document.querySelectorAll(`[${mark}]`)) old.removeAttribute(mark);
  const buttonsOf = (el, index) => {
    const names = [];
    for (const b of el.querySelectorAll("button, [role=button], a[href]")) {
      const name = visible(b) && !b.disabled ? nameOf(b) : "";
      if (!name) continue;
      b.setAttribute(mark, `${index}:${names.length}`);
      names.push(name);
    }
    return names;
  };
  const describe = (kind, el) => ({ kind, role: roleOf(el), name: nameOf(el), mark: String(found.length), buttons: buttonsOf(el, found.length) });
  const found = [];
  const roots = [];
  const within = (el, set) => set.some((o) => o === el || o.contains(el) || el.contains(o));

  const hidden = !!(target && target.closest('[aria-hidden="true"], [inert]'));
  // Modal dialogs: aria-modal, or the target is hidden/inert while they show.
  for (const dialog of document.querySelectorAll('[role=dialog], [role=alertdialog], dialog[open], [aria-modal="true"]')) {
    if (!visible(dialog) || (target && dialog.contains(target))) continue;
    if (popupSelector && dialog.closest(popupSelector)) continue;
    if (dialog.getAttribute("aria-modal") !== "true" && !dialog.matches("dialog:modal") && !hidden) continue;
    if (within(dialog, roots)) continue;
    roots.push(dialog);
    found.push(describe("modal", dialog));
  }
  // Whatever sits on top of the target at its centre and inset corners.
  if (target && visible(target)) {
    const r = target.getBoundingClientRect();
    const xs = [0.5, 0.15, 0.85].map((f) => r.left + r.width * f);
    const ys = [0.5, 0.2, 0.8].map((f) => r.top + r.height * f);
    const points = [[xs[0], ys[0]], [xs[1], ys[1]], [xs[2], ys[1]], [xs[1], ys[2]], [xs[2], ys[2]]];
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
      const hit = document.elementFromPoint(x, y);
      if (!hit || target.contains(hit) || hit.contains(target)) continue;
      if (popupSelector && hit.closest(popupSelector)) continue;
      if (roots.some((o) => o.contains(hit))) continue;
      // The obstacle is the nearest ancestor with a landmark or dialog role, else the
      // outermost one that does not hold the target (a backdrop's root).
      let root = hit.closest((arg.obstacleRoles || []).map((x) => `[role="${x}"]`).concat(["dialog", "aside[aria-label]", "section[aria-label]"]).join(","));
      if (!root || root.contains(target)) {
        root = hit;
        while (root.parentElement && root.parentElement !== document.body && !root.parentElement.contains(target)) root = root.parentElement;
      }
      if (within(root, roots)) continue;
      roots.push(root);
      found.push(describe("covering", root));
    }
  }
  return { target: !!target, hidden, obstacles: found };
}
