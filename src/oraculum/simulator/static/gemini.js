// oraculum simulator: a gemini.google.com look-alike page, built to gemini-and-locale-facts.md §1.
// Vanilla JS, no build step. Labels, roles, tags and attributes here are the contract; keep them
// in step with the facts, not with any driver. The shared machinery is in common.js.
"use strict";
(() => {
  const { h, svgIcon, api, apiPath } = SimCommon;
  const CONFIG = SimCommon.readConfig();
  const t = SimCommon.translator(CONFIG); // the page's UI language (`locale`)
  const SC = CONFIG.scenario;
  const LAZY_INPUT = SC.flags.includes("lazy_file_input");
  const NO_UPLOAD = SC.flags.includes("no_upload_path");
  const API = CONFIG.api;
  const sim = SimCommon.session(CONFIG, API.page_event);
  const obstacles = SimCommon.obstacles(sim);
  const { pageEvent } = sim;
  // Facts §1.4: Fast / Thinking / Pro; Deep Think only on accounts that have it.
  const MODES = [
    { id: "fast", label: t("Fast"), description: "Answers quickly" },
    { id: "thinking", label: t("Thinking"), description: "Solves complex problems", needsAccount: true },
    { id: "pro", label: t("Pro"), description: "Thinks longer for advanced math & code", needsAccount: true },
  ];
  if (SC.flags.includes("gemini_deep_think")) {
    MODES.push({ id: "deep_think", label: t("Deep Think"), description: "Our most advanced reasoning", needsAccount: true });
  }
  const COMPOSER_LABEL = t("Enter a prompt for Gemini");
  const UPLOAD_ITEM_LABEL = t("Upload files. Documents, data, code files");

  let conversationId = CONFIG.conversation ? CONFIG.conversation.id : null;
  let selection = Object.assign({}, CONFIG.selection);
  const uploads = [];

  // ---------------------------------------------------------------- layout
  const app = document.getElementById("app");
  const history_ = h("div", { class: "history" });
  const sidebar = h("nav", { class: "sidebar", "aria-label": "Recent" }, h("a", { href: "/app", class: "new-chat" }, "New chat"), history_);
  const header = h("header", { class: "topbar" }, h("span", { class: "brand" }, "Gemini"));
  // Facts §1.7: #chat-history > infinite-scroller > div.conversation-container per turn.
  const scroller = h("infinite-scroller", { "data-test-id": "chat-history-container", class: "messages" });
  const thread = h("main", { id: "chat-history", class: "thread chat-history-scroll-container" }, scroller);
  const bannerSlot = h("div", { id: "banner-slot" });
  const attachmentsEl = h("div", { class: "attachments file-preview-list" });
  const editor = h("div", {
    class: "ql-editor textarea editor",
    role: "textbox",
    "aria-label": COMPOSER_LABEL,
    "aria-multiline": "true",
    contenteditable: "false", // until the page hydrates (`hydrate_ms`)
    "data-placeholder": "Ask Gemini",
  });
  const richTextarea = h("rich-textarea", { class: "text-input-field" }, editor);
  const toolsButton = h("button", { type: "button", class: "icon-button upload-card-button", "aria-label": t("Upload & tools"), "aria-haspopup": "menu", "aria-expanded": "false" }, svgIcon());
  const modeName = h("span", { class: "mode-name" });
  const modeButton = h("button", { type: "button", class: "model-select input-area-switch", "data-test-id": "bard-mode-menu-button", "aria-haspopup": "menu", "aria-expanded": "false" }, modeName);
  // Facts §1.3: Send appears once text is typed (the microphone holds its place before);
  // Stop sits where Send was.
  const sendButton = h("button", { type: "button", class: "send-button submit-button", "aria-label": t("Send message"), disabled: true }, svgIcon());
  const stopButton = h("button", { type: "button", class: "send-button stop stop-button", "aria-label": t("Stop response") }, svgIcon());
  const micButton = h("button", { type: "button", class: "icon-button speech_dictation_mic_button", "aria-label": "Microphone" }, svgIcon());
  const actionSlot = h("span", { class: "action-slot" });
  const form = h(
    "div",
    { id: "composer", class: "query-bar input-area" },
    attachmentsEl,
    richTextarea,
    h("div", { class: "composer-row" }, toolsButton, h("div", { class: "spacer" }), modeButton, micButton, actionSlot),
  );
  const composerWrap = h("div", { id: "composer-wrap", class: "composer-wrap input-area-container" }, bannerSlot, form);
  app.append(sidebar, h("div", { class: "main-col" }, header, thread, composerWrap));

  function addSidebarEntry(id, title, first) {
    const link = h("a", { href: `/app/${id}`, class: "history-item conversation" }, title);
    if (first) history_.prepend(link);
    else history_.append(link);
  }
  for (const item of CONFIG.sidebar || []) addSidebarEntry(item.id, item.title, false);

  const signInHref = `${CONFIG.signInPath}?next=${encodeURIComponent(location.pathname + location.search)}`;
  if (CONFIG.signedIn) {
    // Facts §1.2: the signed-in marker is the account link.
    header.append(h("a", { href: "/SignOutOptions", class: "avatar", "aria-label": `Google Account: ${CONFIG.user.email}` }));
  } else {
    // Signed out, Gemini still shows a working composer, with a "Sign in" link (facts §1.2).
    header.append(h("a", { href: signInHref, class: "btn btn-primary sign-in" }, t("Sign in")));
  }

  const { show: showBanner, clear: clearBanner } = SimCommon.banner(bannerSlot);

  // ---------------------------------------------------------------- composer
  const editorText = () => SimCommon.editorText(editor);
  function hydrateEditor() {
    editor.setAttribute("contenteditable", "true");
    if (SC.draft) {
      editor.textContent = SC.draft;
      pageEvent("draft_restored", { chars: SC.draft.length });
    }
    updateSend();
  }
  SimCommon.wireEditor(editor, () => trySend(), () => updateSend());

  function sendAllowed() {
    if (uploads.some((u) => u.state !== "done")) return false;
    return editorText().trim().length > 0;
  }
  const actions = SimCommon.composerActions({ slot: actionSlot, send: sendButton, stop: stopButton, allowed: sendAllowed });
  function updateSend() {
    actions.update();
    sendButton.hidden = editorText().trim().length === 0;
    micButton.hidden = !sendButton.hidden;
  }
  sendButton.addEventListener("click", () => trySend());
  function clearComposer() {
    editor.replaceChildren();
    uploads.splice(0, uploads.length);
    attachmentsEl.replaceChildren();
    updateSend();
  }

  // ---------------------------------------------------------------- menus (one at a time)
  const { close: closeMenu, toggle: toggleMenu } = SimCommon.menus(composerWrap);

  // "Upload & tools" (facts §1.5-1.6): its menu holds the upload item and, only while it is
  // open, the hidden file input (`images-files-uploader`); signed out the item asks to sign in.
  function menuItem(label, attrs, onclick, text) {
    return h("button", Object.assign({ type: "button", role: "menuitem", class: "menu-row mat-mdc-menu-item", "aria-label": label, onclick }, attrs), text || label);
  }
  function toolsMenu() {
    const entries = [];
    if (!NO_UPLOAD) {
      if (CONFIG.signedIn) {
        const input = LAZY_INPUT ? null : h("input", { type: "file", name: "Filedata", multiple: true, class: "hidden-file-input", tabindex: -1 });
        if (input) {
          input.addEventListener("change", () => {
            for (const file of Array.from(input.files || [])) startUpload(file);
            closeMenu();
          });
        }
        const item = menuItem(UPLOAD_ITEM_LABEL, { "data-test-id": "local-images-files-uploader-button" }, () => {
          if (LAZY_INPUT) {
            closeMenu();
            SimCommon.chooseLazily(form, startUpload);
          } else input.click();
        }, "Upload files");
        entries.push(h("images-files-uploader", {}, item, input));
      } else {
        entries.push(menuItem("Sign in to upload files", {}, () => location.assign(signInHref)));
      }
    }
    entries.push(
      menuItem("Add from Drive. Sheets, Docs, Slides", {}, () => { closeMenu(); pageEvent("drive_clicked"); }, "Add from Drive"),
      menuItem("Canvas", {}, () => { closeMenu(); pageEvent("canvas_clicked"); }),
      menuItem("Deep research", {}, () => { closeMenu(); pageEvent("deep_research_clicked"); }),
    );
    return h("div", { role: "menu", class: "popover attach-menu mat-mdc-menu-panel", "aria-label": "Upload & tools" }, entries);
  }
  toolsButton.addEventListener("click", () => toggleMenu(toolsButton, toolsMenu));

  // ---------------------------------------------------------------- mode picker
  const modeLabel = (id) => (MODES.find((m) => m.id === id) || MODES[0]).label;
  function renderModeButton() {
    const label = modeLabel(selection.effort);
    modeName.textContent = label;
    modeButton.setAttribute("aria-label", `${t("Open mode picker, currently")} ${label}`);
  }
  function modeItem(mode) {
    const unavailable = mode.needsAccount && !CONFIG.signedIn;
    const item = h(
      "gem-menu-item",
      {
        role: "menuitem",
        tabindex: -1,
        class: "menu-row",
        "data-mode-id": mode.id,
        "data-test-id": `bard-mode-option-${mode.label.toLowerCase().replace(/\s+/g, "-")}`,
        "data-active": String(selection.effort === mode.id),
        "aria-disabled": unavailable ? "true" : null,
      },
      h("span", { class: "label" }, mode.label),
      h("span", { class: "model-description description" }, ` ${mode.description}`),
    );
    return SimCommon.pickable(item, sim, { id: mode.id, unavailable, close: closeMenu, choose: setMode });
  }
  modeButton.addEventListener("click", () =>
    toggleMenu(modeButton, () => h("div", { role: "menu", class: "popover model-menu gds-mode-switch-menu", "data-test-id": "gem-mode-menu", "aria-label": "Mode" }, MODES.map(modeItem))),
  );
  async function setMode(id) {
    selection = Object.assign({}, selection, { family: "gemini", effort: id });
    renderModeButton();
    if (CONFIG.signedIn) await api("POST", API.model, selection);
  }
  renderModeButton();

  // ---------------------------------------------------------------- uploads
  function startUpload(file) {
    obstacles.at("upload");
    SimCommon.startUpload(sim, {
      file,
      uploads,
      container: attachmentsEl,
      // Facts §1.6: a preview chip per file, with its name and a "Remove file" button.
      chip: ({ status, progress, remove }) => {
        remove.setAttribute("aria-label", `Remove file ${file.name}`);
        return h("uploader-file-preview", { class: "file-preview-container file-chip", "data-state": "uploading" },
          h("span", { class: "chip-name file-name" }, file.name), status, progress, remove);
      },
      update: updateSend,
      url: API.upload,
      conversationId,
      failedLabel: "Upload failed",
      arrived: SimCommon.chipArrived(updateSend),
      failed: () => {
        showBanner(`${file.name} couldn't be uploaded. Try again.`);
        updateSend();
      },
    });
  }

  // ---------------------------------------------------------------- turns
  function iconButton(label, onclick, attrs) {
    return h("button", Object.assign({ type: "button", "aria-label": label, onclick }, attrs || {}), svgIcon());
  }
  // One exchange per container (facts §1.7); its id is the response id without "r_".
  function container(id) {
    return h("div", { class: "conversation-container message-actions-hover-boundary", id });
  }
  function userQuery(turn) {
    const files = (turn.attachments || []).map((a) =>
      h("div", { class: "file-preview-container user-file", "aria-label": a.name }, h("span", { class: "file-name" }, a.name)),
    );
    return h(
      "user-query",
      {},
      h("user-query-content", { class: "user-query-container" },
        files.length ? h("div", { class: "file-preview-list" }, files) : null,
        turn.text ? h("div", { class: "query-text" }, h("p", { class: "query-text-line" }, turn.text)) : null),
    );
  }

  class ResponseView {
    constructor(turn, box) {
      this.thinking = h("div", { class: "thoughts-container" });
      this.message = h("div", { class: "markdown markdown-main-panel" });
      this.errorSlot = h("div", { class: "error-slot" });
      this.footer = h("div", { class: "response-footer gap" });
      this.actions = h("message-actions", {});
      this.root = h("model-response", {},
        h("div", { class: "response-container" },
          this.thinking,
          h("message-content", { class: "model-response-text", id: `message-content-id-r_${turn.message_id}` }, this.message),
          this.errorSlot,
          this.footer),
        this.actions);
      this.box = box;
      box.append(this.root);
      this.setMessageId(turn.message_id);
    }
    setMessageId(id) {
      this.messageId = id;
      this.box.id = id;
      this.root.setAttribute("data-response-id", `r_${id}`);
    }
    setReasoning(label, thinking) {
      this.thinking.replaceChildren();
      this.message.setAttribute("aria-busy", String(thinking));
      if (thinking) this.thinking.append(h("span", { class: "thinking-label shimmer", role: "progressbar", "aria-label": "Thinking" }));
      else if (label) this.thinking.append(h("button", { type: "button", class: "thoughts-header-button", "data-test-id": "thoughts-header-button" }, label));
    }
    showActions() {
      // Facts §1.8: the finished turn's footer says complete, and its actions show.
      this.message.setAttribute("aria-busy", "false");
      this.footer.classList.add("complete");
      this.actions.replaceChildren(
        iconButton("Good response", () => pageEvent("thumbs_up")),
        iconButton("Bad response", () => pageEvent("thumbs_down")),
        iconButton("Redo", () => pageEvent("regenerate_clicked")),
        h("copy-button", {}, iconButton(t("Copy"), () => navigator.clipboard && navigator.clipboard.writeText(this.message.innerText).catch(() => {}), { "data-test-id": "copy-button" })),
        iconButton("Show more options", () => pageEvent("more_clicked")),
      );
    }
  }
  Object.assign(ResponseView.prototype, SimCommon.RevealMixin, SimCommon.replyViewMixin({
    retryLabel: t("Retry"),
    retryUrl: (mid) => apiPath(API.retry, { cid: conversationId, mid }),
    runStream: () => runStream,
  }));

  // Stored turns: each user turn opens a container, the reply after it joins it.
  function renderTurns(turns) {
    let box = null;
    for (const turn of turns) {
      if (turn.role === "user" || !box) {
        box = container(turn.message_id);
        scroller.append(box);
      }
      if (turn.role === "user") {
        box.append(userQuery(turn));
        continue;
      }
      SimCommon.showTurn(new ResponseView(turn, box), turn, runStream, undefined);
      box = null;
    }
  }

  const { show: showPrefill, schedule: schedulePrefill } = SimCommon.prefill(sim, (turns) => renderTurns(turns));

  // Facts §1.1: the conversation's URL shows once its answer has begun, not at send.
  let pendingUrl = null;
  const runStream = SimCommon.streamer(sim, actions, {
    streamUrl: (mid) => apiPath(API.stream, { cid: conversationId, mid }),
    stopUrl: (mid) => apiPath(API.stop, { cid: conversationId, mid }),
    onDelta: () => {
      if (pendingUrl) {
        history.pushState({}, "", pendingUrl);
        pendingUrl = null;
      }
      obstacles.at("answer");
    },
  });

  // ---------------------------------------------------------------- send
  const trySend = SimCommon.sender(sim, actions, {
    signInHref,
    conversationId: () => conversationId,
    adopt: (id) => {
      conversationId = id;
      pendingUrl = `/app/${id}`;
    },
    conversationUrl: () => location.pathname + location.search, // the real one comes later
    addSidebarEntry,
    showPrefill,
    path: (cid) => (cid ? apiPath(API.followup, { cid }) : API.send),
    payload: SimCommon.sendPayload(CONFIG, uploads, editorText),
    banner: { show: showBanner, clear: clearBanner },
    clearComposer,
    render: (data) => {
      renderTurns(data.before || []); // extra_assistant
      const box = container(data.user.message_id);
      scroller.append(box);
      box.append(userQuery(data.user));
      runStream(new ResponseView(data.assistant, box), data.assistant.message_id, data.decoy_id);
    },
  });

  // ---------------------------------------------------------------- boot
  SimCommon.boot({
    provider: "gemini",
    config: CONFIG,
    renderTurns,
    hydrate: hydrateEditor,
    obstacles,
    schedulePrefill,
    conversationId: () => conversationId,
  });
})();
