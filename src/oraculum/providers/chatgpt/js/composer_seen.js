// What the page offers as a composer when none is ready: each visible text field, its name,
// whether it can be typed into and whether it sits in the composer form (the form holding the
// editor, the upload button or Send). For the error that says what was found instead.
(v) => {
  const isAnchor = (el) => el.matches(v.composerSelector)
    || (el.tagName === "BUTTON" && [...v.addFilesLabels, ...v.sendLabels].includes(el.getAttribute("aria-label")));
  const inComposerForm = (el) => {
    const form = el.closest(v.composerRegionSelector);
    return !!form && Array.from(form.querySelectorAll("*")).some(isAnchor);
  };
  const nameOf = (el) => {
    const labelled = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)
      .map((id) => (document.getElementById(id) || {}).textContent || "").join(" ").trim();
    return labelled || el.getAttribute("aria-label") || el.getAttribute("placeholder") || el.getAttribute("title") || "";
  };
  const fields = document.querySelectorAll('[role="textbox"], textarea, [contenteditable="true"], input[type="text"], input[type="search"]');
  const seen = [];
  for (const el of fields) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || (el.parentElement && el.parentElement.closest('[contenteditable="true"]'))) continue;
    const editable = el.isContentEditable || ((el.tagName === "TEXTAREA" || el.tagName === "INPUT") && !el.readOnly && !el.disabled);
    const where = inComposerForm(el) ? "in the composer form" : "outside the composer form";
    seen.push(`textbox ${JSON.stringify(nameOf(el))} ${where}${editable ? "" : " (not editable)"}`);
  }
  const add = Array.from(document.querySelectorAll("button")).find((b) => v.addFilesLabels.includes(b.getAttribute("aria-label")));
  if (!add) seen.push(`no "${v.addFilesLabels[0]}" button`);
  else if (add.disabled || add.getAttribute("aria-disabled") === "true") seen.push(`"${v.addFilesLabels[0]}" disabled`);
  return seen.slice(0, 10).join("; ") || "no text field at all";
}
