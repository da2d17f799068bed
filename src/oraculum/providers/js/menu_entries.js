// The entries the open menus show, one short line each (an entry's title: its text up to the
// first line break), so an error can say what the menu offered instead of what was wanted.
(v) => {
  const seen = [];
  for (const menu of document.querySelectorAll(v.menuSelectors.join(", "))) {
    const box = menu.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    for (const entry of menu.children) {
      const title = (entry.innerText || "").split("\n").map((s) => s.trim()).find(Boolean);
      if (title && !seen.includes(title)) seen.push(title);
    }
  }
  return seen.slice(0, 30);
}
