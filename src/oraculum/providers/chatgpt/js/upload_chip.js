// The composer's attachment chip for one file, as one reading: is it there, what does it say,
// and does it carry a progress or busy marker. The Python side decides what that means.
(v) => {
  const region = Array.from(document.querySelectorAll(v.composerRegionSelector))
    .find((r) => r.querySelector(v.composerSelector));
  if (!region) return { found: false, text: "", busy: 0, error: 0 };
  const named = Array.from(region.querySelectorAll("*")).filter((el) =>
    (el.getAttribute("aria-label") || "").trim() === v.fileName
    || (el.children.length === 0 && (el.textContent || "").trim() === v.fileName));
  if (!named.length) return { found: false, text: "", busy: 0, error: 0 };
  const chipOf = (el) => {
    for (const selector of v.chipContainerSelectors) {
      const box = el.closest(selector);
      if (box && region.contains(box) && box !== region) return box;
    }
    return el.parentElement && el.parentElement !== region ? el.parentElement : el;
  };
  const chip = chipOf(named[0]);
  return {
    found: true,
    text: (chip.innerText || chip.textContent || "").trim().slice(0, 300),
    busy: chip.querySelectorAll(v.chipBusySelector).length + (chip.matches(v.chipBusySelector) ? 1 : 0),
    error: chip.querySelectorAll(v.chipErrorSelector).length + (chip.matches(v.chipErrorSelector) ? 1 : 0),
  };
}
