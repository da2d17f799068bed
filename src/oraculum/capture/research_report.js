// Reads the Deep Research report frame (the sandbox frame's same-origin child) in one evaluation.
//
// Closure-free. Returns the widget's Apps SDK state (`window.openai.widgetState`, JSON-copied),
// the frame's text, whether the report is finished ("Research completed in" is shown), the live
// status text while it researches, and the rendered report prepared for Markdown conversion:
// each citation pill becomes a visible "[n]" and each diagram rendered without its source a
// placeholder (both counted), so nothing is guessed.
//
// request = { reportSelector, pillSelector, diagramSelector, statusSelector, completedPrefix,
//             diagramPlaceholder }
(request) => {
  const text = document.body ? document.body.innerText : "";
  let state = null;
  try {
    const raw = window.openai ? window.openai.widgetState : null;
    state = raw == null ? null : JSON.parse(JSON.stringify(raw));
  } catch (error) { state = null; }
  const completed = text.split("\n").some((line) => line.trim().startsWith(request.completedPrefix));
  const status = document.querySelector(request.statusSelector);
  const report = document.querySelector(request.reportSelector);
  let rendered = null;
  if (report) {
    const copy = report.cloneNode(true);
    let pills = 0;
    for (const pill of copy.querySelectorAll(request.pillSelector)) {
      pills += 1;
      const n = (pill.getAttribute("data-citation") || pill.textContent || "?").trim();
      pill.replaceWith(document.createTextNode(`[${n}]`));
    }
    let diagrams = 0;
    for (const figure of copy.querySelectorAll(request.diagramSelector)) {
      diagrams += 1;
      const p = document.createElement("p");
      p.textContent = request.diagramPlaceholder;
      figure.replaceWith(p);
    }
    const heading = report.querySelector("h1");
    rendered = {
      html: copy.outerHTML,
      pills,
      diagrams,
      title: heading ? heading.textContent.trim() : null,
    };
  }
  return {
    url: location.href,
    text,
    completed,
    statusText: status ? status.innerText.trim() : null,
    widgetState: state,
    rendered,
  };
}
