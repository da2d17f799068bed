// The name of the picker entry an upgrade control sits in (its row's text without the
// control's own), the row found by the vocabulary's selector, else the control's parent.
(el, rowSelector) => {
  const row = el.closest(rowSelector) || el.parentElement;
  if (!row) return "";
  return (row.textContent || "").replace(el.textContent || "", "").replace(/\s+/g, " ").trim();
}
