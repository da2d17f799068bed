// Where the composer's tools opener (its label is passed in) is and whether it can take a click now: its rectangle,
// enabled, and the element hit at its centre being it (no card or overlay covering it). The
// caller samples this on timers until the rectangle holds still (a hidden tab gets no frames).
(v) => {
  const editor = document.querySelector(v.composerSelector);
  if (editor && v.caretToEnd) {
    // The tool goes where the caret is: after the prompt.
    const range = document.createRange();
    range.selectNodeContents(editor);
    range.collapse(false);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  const button = [...document.querySelectorAll("button")].find(
    (b) => v.addFilesLabels.includes(b.getAttribute("aria-label")),
  );
  if (!button) return { found: false };
  const r = button.getBoundingClientRect();
  const hit = r.width && r.height ? document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) : null;
  return {
    found: true,
    rect: [r.x, r.y, r.width, r.height].map((n) => Math.round(n * 10) / 10),
    enabled: !button.disabled && button.getAttribute("aria-disabled") !== "true",
    uncovered: !!hit && (hit === button || button.contains(hit)),
    expanded: button.getAttribute("aria-expanded") === "true",
  };
}
