// Whether the composer's editor is there and editable (the page hydrates it after load).
(v) => {
  const editor = document.querySelector(v.composerSelector);
  return !!(editor && editor.isContentEditable);
}
