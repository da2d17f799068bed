// The text of everything an element names in its aria-describedby (the Power slider's stop).
(el) => (el.getAttribute("aria-describedby") || "")
  .split(/\s+/)
  .filter(Boolean)
  .map((id) => (document.getElementById(id) || {}).textContent || "")
  .join(" ")
