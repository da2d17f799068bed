// The composer's tool pill as the editor holds it: its label, the text before it and after it.
// A pill elsewhere on the page does not count; the prompt must come before it, nothing after.
(v) => {
  const editor = document.querySelector(v.composerSelector);
  if (!editor) return { found: false, labels: [] };
  const pills = [...editor.querySelectorAll(v.pillSelector)];
  const pill = pills.find((p) => v.pillLabels.includes((p.innerText || p.textContent || "").trim()));
  const labels = pills.map((p) => (p.innerText || p.textContent || "").trim());
  if (!pill) return { found: false, labels };
  const before = document.createRange();
  before.setStart(editor, 0);
  before.setEndBefore(pill);
  const after = document.createRange();
  after.setStartAfter(pill);
  after.setEnd(editor, editor.childNodes.length);
  return {
    found: true,
    label: (pill.innerText || pill.textContent || "").trim(),
    labels,
    ariaLabel: pill.getAttribute("aria-label"),
    before: before.toString(),
    after: after.toString(),
  };
}
