// Empty the composer editor (ChatGPT restores saved drafts) and report what is left.
(v) => {
  const editor = document.querySelector(v.composerSelector);
  if (!editor || !editor.isContentEditable) return { ok: false, reason: "not-editable", text: "" };
  editor.focus();
  if (document.activeElement !== editor && !editor.contains(document.activeElement)) return { ok: false, reason: "no-focus", text: "" };
  const selection = window.getSelection();
  const range = document.createRange();
  range.selectNodeContents(editor);
  selection.removeAllRanges();
  selection.addRange(range);
  document.execCommand("delete");
  const left = (editor.innerText || "").replace(/\u200b|\ufeff/g, "").trim();
  return { ok: left === "", reason: left === "" ? "" : "draft-remains", text: left.slice(0, 200) };
}
