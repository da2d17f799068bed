// oraculum simulator: the host page's side of the Deep Research widget (facts §2.7).
// The widget is a sandboxed iframe on another origin; the page hands it its state by
// postMessage (Apps SDK style) and performs the report's Markdown export for it: the frame
// may not download (no allow-downloads), so the host makes a Blob URL and clicks an anchor.
"use strict";
window.SimResearchHost = (() => {
  const { h } = SimCommon;
  const FILENAME = "deep-research-report.md";
  const widgets = [];
  let origin = null;
  let pageEvent = () => {};

  function post(widget) {
    // Only once the frame said it is ready: before that its window is still about:blank.
    const target = widget.iframe.contentWindow;
    if (widget.ready && widget.state && target) target.postMessage({ type: "oraculum-sim:research", research: widget.state }, origin);
  }

  function download(data) {
    // Only a plain Markdown file name; anything else falls back to the site's own name.
    const name = /^[\w.-]{1,80}\.md$/.test(String(data.filename || "")) ? data.filename : FILENAME;
    const blob = new Blob([String(data.markdown || "")], { type: "text/markdown" });
    const url = URL.createObjectURL(blob);
    const anchor = h("a", { href: url, download: name, style: "display:none" });
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    pageEvent("deep_research_export", { filename: name, bytes: blob.size });
  }

  function onMessage(event) {
    if (event.origin !== origin || !event.data) return;
    const widget = widgets.find((w) => w.iframe.contentWindow === event.source);
    if (!widget) return;
    if (event.data.type === "oraculum-sim:research-ready") {
      widget.ready = true;
      post(widget);
    }
    else if (event.data.type === "oraculum-sim:research-download") download(event.data);
  }

  function init(widgetOrigin, events) {
    origin = widgetOrigin;
    pageEvent = events;
    window.addEventListener("message", onMessage);
  }

  // A widget for one assistant message: `.iframe` to place, `.update(state)` to show.
  function create(messageId) {
    const iframe = h("iframe", {
      title: "internal://deep-research",
      sandbox: "allow-scripts allow-same-origin allow-forms allow-popups",
      src: `${origin}/deep-research/frame?m=${encodeURIComponent(messageId)}`,
      "data-testid": "deep-research-frame",
      class: "research-frame",
    });
    const widget = {
      iframe,
      ready: false,
      state: null,
      update(state) {
        widget.state = state;
        post(widget);
      },
    };
    widgets.push(widget);
    return widget;
  }

  return { init, create };
})();
