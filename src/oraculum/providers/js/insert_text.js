// Type into a chat site's one editor (`v.editableSelector`: Grok's, facts §5; Gemini's Quill,
// facts §1.3) the way both take it: focus the first editable element, select all, insert the
// text with the editor's insert command, then a bubbling `input` event.
// Returns what the editor holds afterwards.
(v) => {
  const editor = document.querySelector(v.editableSelector);
  if (!editor || !editor.isContentEditable) return { ok: false, reason: "not-editable", text: "" };
  editor.focus();
  const selection = window.getSelection();
  const range = document.createRange();
  range.selectNodeContents(editor);
  selection.removeAllRanges();
  selection.addRange(range);
  if (!document.execCommand("insertText", false, v.text)) {
    editor.textContent = v.text;
  }
  editor.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: v.text }));
  return { ok: true, reason: "", text: editor.innerText };
}
