// oraculum simulator: a grok.com look-alike page, built to chatgpt-grok-ui-facts.md §5.
// Vanilla JS, no build step. Labels, roles and attributes here are the contract; keep them in
// step with the facts, not with any driver. The shared machinery is in common.js.
"use strict";
(() => {
  const { h, svgIcon, api, apiPath } = SimCommon;
  const CONFIG = SimCommon.readConfig();
  const SC = CONFIG.scenario;
  // Issue 37 §2: uploads without a standing file input.
  const LAZY_INPUT = SC.flags.includes("lazy_file_input");
  const NO_UPLOAD = SC.flags.includes("no_upload_path");
  const API = CONFIG.api;
  const sim = SimCommon.session(CONFIG, API.page_event);
  const obstacles = SimCommon.obstacles(sim); // issue 37: obstacle_* flags
  const { pageEvent } = sim;
  // Facts §5 names only "Heavy"; the others are what grok.com offers beside it. An item's
  // accessible name is its title then its description ("Heavy Team of experts").
  const MODELS = [
    { id: "auto", title: "Auto", description: "Chooses Fast or Expert" },
    { id: "fast", title: "Fast", description: "Quick responses" },
    { id: "expert", title: "Expert", description: "Thinks hard" },
    { id: "heavy", title: "Heavy", description: "Team of experts", needsAccount: true },
  ];
  const COMPOSER_LABEL = "Ask Grok anything";
  const UPLOAD_FAILED = "Upload failed";

  let conversationId = CONFIG.conversation ? CONFIG.conversation.id : null;
  // A conversation opened at /chat/<id> stays there; new ones go to /c/<id> (facts §5).
  const conversationPrefix = location.pathname.startsWith("/chat/") ? "/chat/" : "/c/";
  let selection = Object.assign({}, CONFIG.selection);
  const uploads = [];

  // ---------------------------------------------------------------- layout
  const app = document.getElementById("app");
  const history_ = h("div", { class: "history" });
  const sidebar = h("nav", { class: "sidebar", "aria-label": "Chat history" }, h("a", { href: "/", class: "new-chat" }, "New chat"), history_);
  const header = h("header", { class: "topbar" }, h("span", { class: "brand" }, "Grok"));
  const messagesEl = h("div", { id: "messages", class: "messages" });
  const thread = h("main", { id: "thread", class: "thread" }, messagesEl);
  const bannerSlot = h("div", { id: "banner-slot" });
  const attachmentsEl = h("div", { id: "attachments", class: "attachments" });
  const fileInput = h("input", { type: "file", multiple: true, class: "hidden-file-input", tabindex: -1 });
  const editor = h("div", {
    class: "editor tiptap ProseMirror",
    role: "textbox",
    "aria-label": COMPOSER_LABEL,
    "aria-multiline": "true",
    // Not editable until the page hydrates (`hydrate_ms`).
    contenteditable: "false",
    "aria-readonly": "true",
    "data-placeholder": "What do you want to know?",
    translate: "no",
  });
  const attachButton = h("button", { type: "button", class: "icon-button", "aria-label": "Attach", "aria-haspopup": "menu", "aria-expanded": "false" }, svgIcon());
  const modelName = h("span", { class: "model-name" });
  const modelButton = h("button", { type: "button", id: "model-select", class: "model-select", "aria-label": "Model select", "aria-haspopup": "menu", "aria-expanded": "false" }, modelName);
  const submitButton = h("button", { type: "submit", class: "submit-button", "aria-label": "Submit", disabled: true }, svgIcon());
  const stopButton = h("button", { type: "button", class: "stop-button", "aria-label": "Stop model response" }, svgIcon());
  const actionSlot = h("span", { class: "action-slot" });
  const form = h(
    "form",
    { id: "composer", class: "query-bar" },
    attachmentsEl,
    editor,
    h("div", { class: "composer-row" }, attachButton, LAZY_INPUT || NO_UPLOAD ? null : fileInput, h("div", { class: "spacer" }), modelButton, actionSlot),
  );
  const composerWrap = h("div", { id: "composer-wrap", class: "composer-wrap" }, bannerSlot, form);
  app.append(sidebar, h("div", { class: "main-col" }, header, thread, composerWrap));

  function addSidebarEntry(id, title, first) {
    const link = h("a", { href: `/c/${id}`, class: "history-item" }, title);
    if (first) history_.prepend(link);
    else history_.append(link);
  }
  for (const item of CONFIG.sidebar || []) addSidebarEntry(item.id, item.title, false);

  const signInHref = `${CONFIG.signInPath}?next=${encodeURIComponent(location.pathname + location.search)}`;
  if (CONFIG.signedIn) {
    header.append(h("button", { type: "button", class: "avatar", "aria-label": "Account" }));
  } else {
    // Facts §5: signed out, grok.com offers "Sign in" (and Heavy needs it).
    header.append(
      h("a", { href: signInHref, class: "btn" }, "Sign in"),
      h("a", { href: signInHref, class: "btn btn-primary" }, "Sign up"),
    );
  }

  const { show: showBanner, clear: clearBanner } = SimCommon.banner(bannerSlot);

  // ---------------------------------------------------------------- composer
  const editorText = () => SimCommon.editorText(editor);
  function hydrateEditor() {
    editor.setAttribute("contenteditable", "true");
    editor.removeAttribute("aria-readonly");
    if (SC.draft) {
      editor.textContent = SC.draft;
      pageEvent("draft_restored", { chars: SC.draft.length });
    }
    updateSubmit();
  }
  editor.addEventListener("input", () => updateSubmit());
  SimCommon.wireEditor(editor, () => trySend(), () => updateSubmit());

  // Send's rule while no answer streams.
  function sendAllowed() {
    if (uploads.some((u) => u.state !== "done")) return false;
    return editorText().trim().length > 0 || uploads.length > 0;
  }
  const actions = SimCommon.composerActions({ slot: actionSlot, send: submitButton, stop: stopButton, allowed: sendAllowed });
  function updateSubmit() {
    actions.update();
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    trySend();
  });
  function clearComposer() {
    editor.replaceChildren();
    uploads.splice(0, uploads.length);
    attachmentsEl.replaceChildren();
    updateSubmit();
  }

  // ---------------------------------------------------------------- menus (one at a time)
  const { close: closeMenu, toggle: toggleMenu } = SimCommon.menus(composerWrap);

  // Attach opens a menu; the file input is in the composer (facts §5: click Attach, set the
  // file on input[type=file], press Escape afterwards).
  attachButton.addEventListener("click", () =>
    toggleMenu(attachButton, () =>
      h(
        "div",
        { role: "menu", class: "popover attach-menu", "aria-label": "Attach" },
        NO_UPLOAD ? null : h("div", { role: "menuitem", tabindex: -1, class: "menu-row", onclick: () => { closeMenu(); chooseFiles(); } }, "Upload a file"),
        h("div", { role: "menuitem", tabindex: -1, class: "menu-row", onclick: () => { closeMenu(); pageEvent("add_text_content"); } }, "Add text content"),
      ),
    ),
  );
  fileInput.addEventListener("change", () => {
    for (const file of Array.from(fileInput.files || [])) startUpload(file);
    fileInput.value = "";
  });
  // lazy_file_input (issue 37): the input exists only while the entry's file chooser is open.
  function chooseFiles() {
    if (LAZY_INPUT) SimCommon.chooseLazily(form, startUpload);
    else fileInput.click();
  }


  // ---------------------------------------------------------------- model select
  const modelTitle = (id) => (MODELS.find((m) => m.id === id) || MODELS[0]).title;
  function renderModelButton() {
    modelName.textContent = modelTitle(selection.effort);
  }
  function modelItem(model) {
    // Heavy needs a signed-in account: signed out it is listed but disabled.
    const unavailable = model.needsAccount && !CONFIG.signedIn;
    const item = h(
      "div",
      {
        role: "menuitemradio",
        tabindex: -1,
        class: "menu-row",
        "aria-checked": String(selection.effort === model.id),
        "aria-disabled": unavailable ? "true" : null,
        "data-model": model.id,
      },
      h("span", { class: "model-title" }, model.title),
      h("span", { class: "model-description" }, ` ${model.description}`),
    );
    return SimCommon.pickable(item, sim, { id: model.id, unavailable, close: closeMenu, choose: setModel });
  }
  modelButton.addEventListener("click", () =>
    toggleMenu(modelButton, () => h("div", { role: "menu", class: "popover model-menu", "aria-label": "Models" }, MODELS.map(modelItem))),
  );
  async function setModel(id) {
    selection = Object.assign({}, selection, { family: "grok", effort: id });
    renderModelButton();
    if (CONFIG.signedIn) await api("POST", API.model, selection);
  }
  renderModelButton();

  // ---------------------------------------------------------------- uploads
  function startUpload(file) {
    obstacles.at("upload");
    SimCommon.startUpload(sim, {
      file,
      uploads,
      container: attachmentsEl,
      // The chip near the composer is named with the file name (facts §5 confirms an upload by
      // that name appearing on the page).
      chip: ({ status, progress, remove }) => h("div", { role: "group", class: "file-chip", "aria-label": file.name, "data-testid": "file-chip", "data-state": "uploading" },
        h("span", { class: "chip-name" }, file.name), status, progress, remove),
      update: updateSubmit,
      url: API.upload,
      conversationId,
      failedLabel: UPLOAD_FAILED,
      arrived: SimCommon.chipArrived(updateSubmit),
      failed: () => {
        showBanner(`Could not upload ${file.name}. Please try again.`);
        updateSubmit();
      },
    });
  }

  // ---------------------------------------------------------------- messages
  function iconButton(label, onclick) {
    return h("button", { type: "button", "aria-label": label, onclick }, svgIcon());
  }
  // A row is `.group` (flex, flex-col, justify-center) holding one `.message-bubble`, as facts
  // §5 finds them; `id="response-<message id>"`.
  function row(side, messageId, ...children) {
    return h("div", { class: `group relative flex flex-col justify-center w-full ${side} message-row`, id: `response-${messageId}` }, ...children);
  }
  function userRow(turn) {
    const files = (turn.attachments || []).map((a) =>
      h("div", { role: "group", class: "user-file", "aria-label": a.name }, h("span", { class: "file-name" }, a.name)),
    );
    const bubble = h(
      "div",
      { class: "message-bubble user-bubble", "data-testid": "user-message" },
      files.length ? h("div", { class: "user-files" }, files) : null,
      turn.text ? h("p", { class: "whitespace-pre-wrap" }, turn.text) : null,
    );
    const actions = h("div", { class: "action-buttons" },
      iconButton("Edit", () => pageEvent("edit_clicked")),
      iconButton("Copy", () => navigator.clipboard && navigator.clipboard.writeText(turn.text).catch(() => {})));
    return row("items-end", turn.message_id, bubble, actions);
  }

  class AssistantView {
    constructor(turn) {
      this.thinking = h("div", { class: "thinking-container" });
      this.message = h("div", { class: "response-content-markdown" });
      this.errorSlot = h("div", { class: "error-slot" });
      this.actions = h("div", { class: "action-buttons" });
      this.root = row("items-start", turn.message_id,
        h("div", { class: "message-bubble assistant-bubble" }, this.thinking, this.message, this.errorSlot),
        this.actions);
      messagesEl.append(this.root);
      this.setMessageId(turn.message_id);
    }
    setMessageId(id) {
      this.messageId = id;
      this.root.id = `response-${id}`;
    }
    setReasoning(label, thinking) {
      this.thinking.replaceChildren();
      if (thinking) this.thinking.append(h("span", { class: "thinking-label shimmer" }, "Thinking"));
      else if (label) this.thinking.append(h("span", { class: "thinking-label" }, label));
    }
    showActions() {
      this.actions.replaceChildren(
        iconButton("Regenerate", () => pageEvent("regenerate_clicked")),
        iconButton("Copy", () => navigator.clipboard && navigator.clipboard.writeText(this.message.innerText).catch(() => {})),
        iconButton("Like"),
        iconButton("Dislike"),
        iconButton("More actions"),
      );
    }
  }
  Object.assign(AssistantView.prototype, SimCommon.RevealMixin, SimCommon.replyViewMixin({
    retryLabel: "Retry",
    retryUrl: (mid) => apiPath(API.retry, { cid: conversationId, mid }),
    runStream: () => runStream,
  }));

  function renderTurns(turns) {
    for (const turn of turns) {
      if (turn.role === "user") {
        messagesEl.append(userRow(turn));
        continue;
      }
      const view = new AssistantView(turn);
      SimCommon.showTurn(view, turn, runStream, undefined);
    }
  }

  // prefilled_thread: the new chat shows an earlier exchange a moment after it is ready.
  const { show: showPrefill, schedule: schedulePrefill } = SimCommon.prefill(sim, (turns) => renderTurns(turns));

  const runStream = SimCommon.streamer(sim, actions, {
    streamUrl: (mid) => apiPath(API.stream, { cid: conversationId, mid }),
    stopUrl: (mid) => apiPath(API.stop, { cid: conversationId, mid }),
    onDelta: () => obstacles.at("answer"),
  });

  // ---------------------------------------------------------------- send
  const trySend = SimCommon.sender(sim, actions, {
    signInHref,
    conversationId: () => conversationId,
    adopt: (id) => { conversationId = id; },
    conversationUrl: (id) => `${conversationPrefix}${id}`,
    addSidebarEntry,
    showPrefill,
    path: (cid) => (cid ? apiPath(API.followup, { cid }) : API.send),
    payload: SimCommon.sendPayload(CONFIG, uploads, editorText),
    banner: { show: showBanner, clear: clearBanner },
    clearComposer,
    render: (data) => {
      renderTurns(data.before || []); // extra_assistant
      messagesEl.append(userRow(data.user));
      runStream(new AssistantView(data.assistant), data.assistant.message_id, data.decoy_id);
    },
  });

  // ---------------------------------------------------------------- boot
  SimCommon.boot({
    provider: "grok",
    config: CONFIG,
    renderTurns,
    hydrate: hydrateEditor,
    obstacles,
    schedulePrefill,
    conversationId: () => conversationId,
  });
})();
