// oraculum simulator: the Deep Research report frame (the sandbox frame's same-origin child).
// It shows the live research status, then the report, and holds the Apps SDK state
// `window.openai.widgetState.report_message` (facts §2.7–2.9). What its body's innerText reads
// is part of the contract (docs/simulator.md "Deep Research").
"use strict";
(() => {
  const root = document.getElementById("root");
  window.openai = { widgetState: null };
  let phase = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) node.setAttribute(key, String(value));
    }
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }

  function renderStatus(status) {
    let box = root.querySelector("[data-testid=research-status]");
    if (!box) {
      box = el(
        "div",
        { "data-testid": "research-status", role: "status", "aria-live": "polite", class: "research-status" },
        el("div", { class: "research-title" }, "Researching…"),
        el("div", { "data-testid": "research-activity", class: "research-activity" }),
        el("div", { class: "research-counts" }),
      );
      root.replaceChildren(box);
    }
    box.querySelector("[data-testid=research-activity]").textContent = status.activity;
    box.querySelector(".research-counts").textContent = `${status.sources} sources · ${status.searches} searches`;
  }

  // The animated tabular counter: per digit column a strip of 0–9, moved to show the digit.
  function counter(value) {
    const columns = String(value).split("").map((digit) => {
      const strip = el("span", { class: "digit-strip", style: `transform: translateY(-${Number(digit) * 1.25}em)` });
      for (let d = 0; d <= 9; d += 1) strip.append(el("span", { class: "digit" }, String(d)));
      return el("span", { class: "digit-col", "aria-hidden": "true" }, strip);
    });
    return el("span", { class: "counter", role: "img", "aria-label": String(value) }, ...columns);
  }

  function exportButton(report) {
    const icon = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    icon.setAttribute("width", "16");
    icon.setAttribute("height", "16");
    icon.setAttribute("aria-hidden", "true");
    const button = el("button", { type: "button", class: "export-button", "aria-label": "Export", "aria-haspopup": "menu", "aria-expanded": "false" }, icon);
    let menu = null;
    const close = () => {
      if (menu) menu.remove();
      menu = null;
      button.setAttribute("aria-expanded", "false");
    };
    const item = (label, onclick) => {
      const row = el("div", { role: "menuitem", tabindex: "-1", class: "export-item", "aria-disabled": onclick ? null : "true" }, label);
      if (onclick) row.onclick = () => { close(); onclick(); };
      return row;
    };
    button.onclick = () => {
      if (button.getAttribute("aria-expanded") === "true") return close();
      button.setAttribute("aria-expanded", "true");
      // The menu opens asynchronously, as the real one does.
      setTimeout(() => {
        if (button.getAttribute("aria-expanded") !== "true" || menu) return;
        menu = el(
          "div",
          { role: "menu", "aria-label": "Export", class: "export-menu" },
          item("Export to Markdown", () => parent.__simDownload(report.export_filename, report.export_markdown)),
          item("Export to PDF", null),
        );
        button.after(menu);
      }, 200);
    };
    return button;
  }

  function renderReport(report) {
    const header = el(
      "div",
      { class: "research-header" },
      el("span", { class: "research-summary" }, `Research completed in ${report.label} · `),
      counter(report.citations),
      el("span", { class: "counter-label" }, " citations · "),
      counter(report.searches),
      el("span", { class: "counter-label" }, " searches"),
    );
    if (report.export_markdown !== null) header.append(exportButton(report));
    const article = el("article", { "data-testid": "deep-research-report", class: "report" });
    article.innerHTML = report.html;
    root.replaceChildren(header, article);
    window.openai = { widgetState: report.report_message ? { report_message: report.report_message } : null };
  }

  window.__simResearch = (research) => {
    if (phase === "completed" || !research) return; // a finished report never changes
    if (research.phase === "researching") renderStatus(research.status);
    else if (research.phase === "completed") renderReport(research.report);
    else if (research.phase === "stopped") root.replaceChildren(el("div", { class: "research-stopped" }, "Research stopped"));
    phase = research.phase;
  };
  if (typeof parent.__simChildReady === "function") parent.__simChildReady();
})();
