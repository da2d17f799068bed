// oraculum simulator: the sandboxed App frame of the Deep Research widget (the widget origin).
// It relays the host page's state to its same-origin child (which holds the report and
// window.openai) and the child's export request back to the host page.
"use strict";
(() => {
  let latest = null;
  const child = () => document.getElementById("report");

  function push() {
    const frame = child();
    const target = frame && frame.contentWindow;
    if (latest && target && typeof target.__simResearch === "function") target.__simResearch(latest);
  }
  // Called by the child when it has loaded, and by the child to export.
  window.__simChildReady = push;
  window.__simDownload = (filename, markdown) => {
    parent.postMessage({ type: "oraculum-sim:research-download", filename, markdown }, HOST_ORIGIN);
  };
  window.addEventListener("message", (event) => {
    if (event.source !== parent || event.origin !== HOST_ORIGIN || !event.data) return;
    if (event.data.type === "oraculum-sim:research") {
      latest = event.data.research;
      push();
    }
  });
  parent.postMessage({ type: "oraculum-sim:research-ready" }, HOST_ORIGIN);
})();
