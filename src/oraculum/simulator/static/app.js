// oraculum simulator: a ChatGPT look-alike page, built to chatgpt-grok-ui-facts.md §1–§2.
// Vanilla JS, no build step. Labels, roles and attributes here are the contract; keep them
// in step with the facts, not with any driver.
"use strict";
(() => {
  const { h, svgIcon, api } = SimCommon;
  const CONFIG = SimCommon.readConfig();

  const SC = CONFIG.scenario;
  const SHELL = CONFIG.shell;
  const REDESIGN = SHELL === "redesign";
  const FLAGS = new Set(SC.flags);
  // locale (issue 42 §2): every label the driver reads, as the page's language shows it.
  const t = SimCommon.translator(CONFIG);
  const L = REDESIGN
    ? { composer: t("Ask ChatGPT"), send: t("Send"), stop: t("Stop") }
    : { composer: t("Chat with ChatGPT"), send: t("Send prompt"), stop: t("Stop answering") };
  // composer_label (issue 37): another accessible name for the composer; "none": no name at all.
  if (SC.composer_label) L.composer = SC.composer_label === "none" ? null : SC.composer_label;
  const IDS = SC.message_ids; // both | selection | none
  // UI drift (issue 14 §4): the vocabulary stays the facts file's; only the mechanics change.
  const DRIFT = {
    zeroHeightSlider: FLAGS.has("drift_zero_height_slider"),
    stickyMenu: FLAGS.has("drift_sticky_menu"),
    openerRelabel: FLAGS.has("drift_opener_relabel"),
    sendNeedsText: FLAGS.has("drift_send_needs_text"),
    uploadLingers: FLAGS.has("drift_upload_lingers"),
    slowPicker: FLAGS.has("drift_slow_picker"),
  };
  // Issue 37 §2–3: uploads without a standing file input, names that drift.
  const LAZY_INPUT = FLAGS.has("lazy_file_input");
  const NO_UPLOAD = FLAGS.has("no_upload_path");
  const DRIFT37 = {
    ambiguousModel: FLAGS.has("drift_ambiguous_model"),
    modelPrefix: SC.model_prefix ? `${SC.model_prefix} ` : "",
  };

  let conversationId = CONFIG.conversation ? CONFIG.conversation.id : null;
  let selection = Object.assign({}, CONFIG.selection);
  let turnCounter = 0;
  let exchangeCounter = 0;
  const uploads = [];

  // ---------------------------------------------------------------- helpers
  const sim = SimCommon.session(CONFIG, "/backend-api/page-event");
  const obstacles = SimCommon.obstacles(sim); // issue 37: obstacle_* flags
  const { pageEvent } = sim;

  // ---------------------------------------------------------------- layout
  const app = document.getElementById("app");
  const sidebar = h(
    "nav",
    { class: "sidebar", "aria-label": "Chat history" },
    h("a", { href: "/", class: "new-chat", "data-testid": "create-new-chat-button" }, "New chat"),
    h("div", { class: "history" }),
  );
  const header = h("header", { class: "topbar" }, h("span", { class: "brand" }, "ChatGPT"));
  const turnsEl = h("div", { id: "thread-turns", class: "turns" });
  const thread = h("main", { id: "thread", class: "thread" }, turnsEl);
  const bannerSlot = h("div", { id: "banner-slot" });
  const attachmentsEl = h("div", { id: "attachments", class: "attachments" });
  const editorSlot = h("div", { class: "editor-slot" });
  const leftTools = h("div", { class: "left-tools" });
  const pickerSlot = h("div", { class: "picker-slot" });
  const actionSlot = h("div", { class: "action-slot" });
  const fileInput = h("input", { type: "file", multiple: true, class: "hidden-file-input", tabindex: -1 });
  const form = h(
    "form",
    {
      id: "composer",
      class: "composer",
      "data-type": "unified-composer",
      "data-chatgpt-composer": REDESIGN ? "" : null,
      "data-composer-placement": REDESIGN ? (conversationId ? "thread" : "home") : null,
    },
    attachmentsEl,
    editorSlot,
    h("div", { class: "composer-row" }, leftTools, pickerSlot, h("div", { class: "spacer" }), actionSlot),
    LAZY_INPUT || NO_UPLOAD ? null : fileInput,
  );
  const composerWrap = h(
    "div",
    { id: "composer-wrap", class: "composer-wrap" },
    bannerSlot,
    form,
    h("div", { class: "disclaimer" }, "ChatGPT can make mistakes. Check important info."),
  );
  const mainCol = h("div", { class: "main-col" }, header, thread, composerWrap);
  const overlayRoot = h("div", { id: "overlay-root" });
  app.append(sidebar, mainCol, overlayRoot);

  for (const item of CONFIG.sidebar || []) addSidebarEntry(item.id, item.title, false);
  function addSidebarEntry(id, title, first) {
    const link = h("a", { href: `/c/${id}`, class: "history-item" }, title);
    const list = sidebar.querySelector(".history");
    if (first) list.prepend(link);
    else list.append(link);
  }

  if (CONFIG.signedIn) {
    header.append(
      h("button", { type: "button", class: "profile", "aria-label": "Open profile menu", "data-testid": "profile-button" }, svgIcon()),
    );
  } else {
    header.append(
      h("a", { href: "/auth/login", class: "btn", "data-testid": "login-button" }, "Log in"),
      h("a", { href: "/auth/login", class: "btn btn-primary", "data-testid": "signup-button" }, "Sign up for free"),
    );
  }

  // ---------------------------------------------------------------- banners
  const { show: showBanner, clear: clearBanner } = SimCommon.banner(bannerSlot);

  // ---------------------------------------------------------------- composer editor
  let editor = h("textarea", {
    id: "prompt-textarea",
    name: "prompt-textarea",
    class: "fallback-textarea",
    "aria-label": L.composer,
    placeholder: "Ask anything",
    readonly: true,
  });
  editorSlot.append(editor);

  function hydrateEditor() {
    // ChatGPT renders a non-editable fallback first; the real editor replaces it later.
    const real = h("div", {
      id: "prompt-textarea",
      contenteditable: "true",
      role: "textbox",
      "aria-multiline": "true",
      "aria-label": L.composer,
      class: "ProseMirror",
      translate: "no",
      "data-placeholder": "Ask anything",
      "data-composer-markdown": REDESIGN ? "" : null,
    });
    if (SC.draft) {
      real.append(h("p", {}, SC.draft));
      pageEvent("draft_restored", { chars: SC.draft.length });
    }
    real.addEventListener("input", updateSendState);
    real.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        trySend();
      }
    });
    editor.replaceWith(real);
    editor = real;
    new MutationObserver(updateSendState).observe(real, { childList: true, subtree: true, characterData: true });
    updateSendState();
  }

  function editorText() {
    if (!editor.isContentEditable) return "";
    // innerText follows the editor's own line layout (paragraphs, <br>, divs from Enter).
    let text = editor.innerText.replace(/\uFEFF/g, "").replace(/\u00a0/g, " ");
    const pill = editor.querySelector("[data-inline-selection-pill]");
    if (pill) {
      const at = text.lastIndexOf(pill.innerText);
      if (at >= 0) text = text.slice(0, at) + text.slice(at + pill.innerText.length);
    }
    return text.replace(/\n+$/, "");
  }

  function clearComposer() {
    if (editor.isContentEditable) editor.replaceChildren();
    uploads.splice(0, uploads.length);
    attachmentsEl.replaceChildren();
    updateSendState();
  }

  // ---------------------------------------------------------------- send / stop buttons
  const sendButton = h(
    "button",
    {
      id: "composer-submit-button",
      type: REDESIGN ? "submit" : "button",
      "aria-label": L.send,
      "data-testid": "send-button",
      class: "send-button",
      disabled: true,
    },
    svgIcon(),
  );
  const stopButton = h(
    "button",
    { type: "button", "aria-label": L.stop, "data-testid": "stop-button", class: "stop-button" },
    svgIcon(),
  );
  sendButton.addEventListener("click", (event) => {
    event.preventDefault();
    trySend();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    trySend();
  });

  // Send's rule while no answer streams.
  function sendAllowed() {
    // A chip still processing (drift_upload_lingers) does not hold Send back once there is text.
    if (uploads.some((u) => u.state !== "done" && u.state !== "processing")) return false;
    if (editorText().trim().length > 0) return true;
    // Attachments alone make a message once every chip is done, unless drift_send_needs_text.
    return !DRIFT.sendNeedsText && uploads.length > 0 && uploads.every((u) => u.state === "done");
  }
  const actions = SimCommon.composerActions({ slot: actionSlot, send: sendButton, stop: stopButton, allowed: sendAllowed });
  function updateSendState() {
    actions.update();
    // send_after_text (issue 37 §7): no Send at all until the composer holds text.
    if (FLAGS.has("send_after_text")) sendButton.hidden = !editorText().trim();
  }

  // ---------------------------------------------------------------- tools menu, uploads
  // One popover at a time. `sticky` (drift_sticky_menu): Escape, outside clicks and other
  // popovers leave it open; only its opener or its own items close it. `openName`
  // (drift_opener_relabel): the opener's accessible name while it is open.
  let openPopover = null;
  function closePopover() {
    if (!openPopover) return;
    const { el, opener, onClose, closedName } = openPopover;
    openPopover = null;
    el.remove();
    if (opener) {
      opener.setAttribute("aria-expanded", "false");
      if (closedName === null) opener.removeAttribute("aria-label");
      else if (closedName !== undefined) opener.setAttribute("aria-label", closedName);
    }
    if (onClose) onClose();
  }
  function showPopover(el, opener, onClose, options) {
    const { sticky = false, openName = null } = options || {};
    if (openPopover && openPopover.sticky && openPopover.opener !== opener) {
      // A stuck menu keeps the page's pointer (as a modal menu does): nothing else opens.
      const stuck = openPopover.opener;
      pageEvent("menu_still_open", { opener: stuck ? stuck.getAttribute("aria-label") || stuck.textContent : null });
      return false;
    }
    closePopover();
    openPopover = { el, opener, onClose, sticky };
    composerWrap.append(el);
    if (opener) {
      opener.setAttribute("aria-expanded", "true");
      if (openName) {
        openPopover.closedName = opener.getAttribute("aria-label");
        opener.setAttribute("aria-label", openName);
      }
    }
    return true;
  }
  // The options a model picker's menu opens with under the drift flags.
  function pickerMenuOptions(openName) {
    // obstacle_at=picker: the obstacle shows just after a model picker's menu opens.
    setTimeout(() => obstacles.at("picker"), 50);
    return { sticky: DRIFT.stickyMenu, openName: DRIFT.openerRelabel ? openName : null };
  }
  document.addEventListener("pointerdown", (event) => {
    if (!openPopover || openPopover.sticky) return;
    const { el, opener } = openPopover;
    if (el.contains(event.target) || (opener && opener.contains(event.target))) return;
    closePopover();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const top = modals[modals.length - 1];
    if (top && top.sticky) {
      pageEvent("escape_ignored", { what: "dialog" });
      return;
    }
    if (closeTopModal()) return;
    if (openPopover && openPopover.sticky) {
      pageEvent("escape_ignored", { what: "menu" });
      return;
    }
    if (openPopover) {
      const opener = openPopover.opener;
      closePopover();
      if (opener) opener.focus();
    }
  });

  const plusButton = h(
    "button",
    {
      type: "button",
      id: "composer-plus-btn",
      "aria-label": t("Add files and more"),
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "data-testid": "composer-plus-btn",
      "data-composer-navigation-target": REDESIGN ? "add-context" : null,
      class: "plus-button",
    },
    svgIcon(),
  );
  function toolsEntry(title, descriptions, onclick) {
    // Role-less clickables whose text joins title and description without a separator.
    const entry = h(
      "div",
      { class: "tools-entry", tabindex: -1 },
      h("div", { class: "tools-title" }, title),
      descriptions.map((d) => h("div", { class: "tools-desc" }, d)),
    );
    entry.onclick = () => {
      closePopover();
      onclick();
    };
    return entry;
  }
  plusButton.addEventListener("click", () => {
    if (openPopover && openPopover.opener === plusButton) {
      closePopover();
      return;
    }
    const menu = h(
      "div",
      { class: "popover tools-menu", "data-testid": "tools-menu" },
      NO_UPLOAD ? null : toolsEntry(t("Add photos & files"), [t("Upload from computer"), "Add from library"], chooseFiles),
      toolsEntry("Web search", ["Find real-time news and info"], () => pageEvent("tool_web_search")),
      toolsEntry(t("Deep research"), [t("Get a detailed report")], enableDeepResearch),
      toolsEntry("Sketch", ["Draw and attach an image"], () => pageEvent("tool_sketch")),
    );
    showPopover(menu, plusButton);
  });

  function enableDeepResearch() {
    if (!editor.isContentEditable || editor.querySelector("[data-inline-selection-pill]")) return;
    const pill = h(
      "span",
      { "data-inline-selection-pill": "", contenteditable: "false", class: "inline-pill", "aria-label": t("Deep research") },
      t("Deep research"),
    );
    const last = editor.lastElementChild && editor.lastElementChild.tagName === "P" ? editor.lastElementChild : editor;
    last.append(pill, document.createTextNode("\uFEFF"));
    updateSendState();
  }

  fileInput.addEventListener("change", () => {
    for (const file of Array.from(fileInput.files || [])) startUpload(file);
    fileInput.value = "";
  });
  // lazy_file_input: the input exists only while the entry's file chooser is open.
  function chooseFiles() {
    if (LAZY_INPUT) SimCommon.chooseLazily(form, startUpload);
    else fileInput.click();
  }


  function startUpload(file) {
    obstacles.at("upload");
    SimCommon.startUpload(sim, {
      file,
      uploads,
      container: attachmentsEl,
      chip: ({ status, progress, remove }) => h(
        "div",
        { class: "file-chip", "data-testid": "file-chip", "data-state": "uploading" },
        // The accessible element named exactly with the file name (facts §1.5).
        h("button", { type: "button", class: "chip-main", "aria-label": file.name },
          h("span", { class: "chip-name" }, file.name),
          h("span", { class: "chip-kind" }, /\.(tar\.zst|tar\.gz|tgz|zip)$/i.test(file.name) ? "Archive" : "File"),
        ),
        status,
        progress,
        remove,
      ),
      update: updateSendState,
      url: "/backend-api/files",
      conversationId,
      failedLabel: "Failed upload",
      arrived: (parts) => {
        if (DRIFT.uploadLingers && SC.upload_linger_ms > 0) startProcessing(parts);
        else markDone(parts);
      },
      failed: () => {
        showBanner(`Could not upload ${file.name}. Please ensure your network settings allow access to this site.`);
        updateSendState();
      },
    });
  }

  function markDone({ entry, chip }) {
    entry.state = "done";
    chip.dataset.state = "done";
    chip.removeAttribute("aria-busy");
    chip.querySelectorAll(".chip-status, .chip-progress, .chip-spinner").forEach((el) => el.remove());
    updateSendState();
  }
  // drift_upload_lingers: the bytes are in, yet the chip spins as "Processing" for a while.
  function startProcessing(parts) {
    const { file, entry, chip, progress, status, remove } = parts;
    entry.state = "processing";
    chip.dataset.state = "loading";
    chip.setAttribute("aria-busy", "true");
    progress.remove();
    status.textContent = "Processing…";
    // Indeterminate (no aria-valuenow), as a spinner is.
    remove.before(h("div", { role: "progressbar", class: "chip-spinner", "aria-label": `Processing ${file.name}` }));
    updateSendState();
    setTimeout(() => {
      if (entry.state === "processing") markDone(parts);
    }, SC.upload_linger_ms);
  }

  // ---------------------------------------------------------------- turns
  function userTurnElement(turn) {
    const bubbleAttrs = {
      class: "user-message",
      "data-message-author-role": "user",
      "data-message-id": IDS === "both" ? turn.message_id : null,
    };
    const files = (turn.attachments || []).map((a) =>
      h("div", { role: "group", class: "user-file", "aria-label": a.name }, h("span", { class: "chip-name" }, a.name)),
    );
    const body = h(
      "div",
      bubbleAttrs,
      files.length ? h("div", { class: "user-files" }, files) : null,
      turn.text ? h("div", { class: "whitespace-pre-wrap" }, turn.text) : null,
      turn.tool === "deep_research" ? h("span", { class: "inline-pill" }, t("Deep research")) : null,
    );
    if (REDESIGN) {
      if (IDS !== "none") body.setAttribute("data-chatgpt-selection-message-id", turn.message_id);
      body.setAttribute("data-user-message-bubble", "true");
      return [h("h5", { class: "sr-only", "data-conversation-role": "user" }, "You said:"), body];
    }
    turnCounter += 1;
    return h(
      "article",
      { "data-testid": `conversation-turn-${turnCounter}`, "data-turn": "user", class: "turn user-turn" },
      h("h5", { class: "sr-only" }, "You said:"),
      body,
    );
  }

  function newExchange() {
    exchangeCounter += 1;
    const key = `turn-${exchangeCounter}`;
    const section = h("section", { class: "exchange", "data-turn-key": key, "data-testid": "conversation-exchange" });
    turnsEl.append(section);
    return section;
  }

  class AssistantView {
    constructor(turn, exchange) {
      this.messageId = turn.message_id;
      this.heading = REDESIGN
        ? h("h4", { class: "sr-only", "data-conversation-role": "assistant" }, "ChatGPT said:")
        : h("h6", { class: "sr-only" }, "ChatGPT said:");
      this.reasoningSlot = h("div", { class: "reasoning-slot" });
      this.message = h("div", {
        class: "assistant-message",
        "data-message-author-role": "assistant",
        "data-message-model-slug": "gpt-sim",
        "data-markdown-text-style": REDESIGN ? "assistant-message" : null,
      });
      this.errorSlot = h("div", { class: "error-slot" });
      this.actionSlot = h("div", { class: "action-slot-turn" });
      if (REDESIGN) {
        // Redesign: the reasoning label is a span in the exchange's activity header, outside
        // the message body.
        this.activity = h("div", { class: "activity-header" });
        this.body = h(
          "div",
          { class: "turn-body", "data-content-search-unit-key": `${exchange.dataset.turnKey}:1:assistant` },
          this.message,
          this.errorSlot,
          this.actionSlot,
        );
        exchange.append(this.activity, this.heading, this.body);
        this.root = exchange;
      } else {
        turnCounter += 1;
        // Classic: the heading's next sibling holds the reasoning button and a descendant
        // data-message-id (facts §2.1).
        this.body = h("div", { class: "turn-body" }, this.reasoningSlot, this.message, this.errorSlot, this.actionSlot);
        this.root = h(
          "article",
          { "data-testid": `conversation-turn-${turnCounter}`, "data-turn": "assistant", class: "turn assistant-turn" },
          this.heading,
          this.body,
        );
        turnsEl.append(this.root);
      }
      this.setMessageId(turn.message_id);
    }
    setMessageId(id) {
      this.messageId = id;
      if (IDS === "both") this.message.setAttribute("data-message-id", id);
      else this.message.removeAttribute("data-message-id");
      if (REDESIGN && IDS !== "none") this.body.setAttribute("data-chatgpt-selection-message-id", id);
    }
    setReasoning(label, thinking) {
      const slot = REDESIGN ? this.activity : this.reasoningSlot;
      slot.replaceChildren();
      if (thinking) {
        slot.append(h("span", { class: "thinking shimmer" }, "Thinking"));
      } else if (label) {
        slot.append(
          REDESIGN
            ? h("span", { class: "reasoning-label" }, label)
            : h("button", { type: "button", class: "reasoning-label", "aria-expanded": "false" }, label),
        );
      }
    }
    renderFinal(html) {
      this.message.innerHTML = html;
      SimCommon.hydrateLinks(this.message);
    }
    // Deep Research: the report widget (a cross-origin iframe), created on the first state.
    // Classic: inside the reply's turn body; redesign: a sibling block in the reply's exchange.
    setResearch(research) {
      if (!this.research) {
        this.research = SimResearchHost.create(this.messageId);
        const block = h(
          "div",
          { class: "research-widget", "data-testid": REDESIGN ? "deep-research-block" : null },
          this.research.iframe,
        );
        if (REDESIGN) this.root.append(block);
        else this.body.insertBefore(block, this.errorSlot);
      }
      this.research.update(research);
    }
    // comparison_answer: two candidates side by side under the preference question, each
    // with its own message and "I prefer this response" (a click is recorded: a driver must
    // never make one). `c`: {message_id, html}; html is "" until the second one finished.
    setComparison(c) {
      if (!this.comparison) {
        const second = h("div", {
          class: "assistant-message",
          "data-message-author-role": "assistant",
          "data-message-model-slug": "gpt-sim",
          "data-message-id": IDS === "both" ? c.message_id : null,
          "data-chatgpt-selection-message-id": REDESIGN && IDS !== "none" ? c.message_id : null,
        });
        const column = (n, message) => h(
          "div",
          { class: "comparison-candidate", "data-testid": `comparison-response-${n}` },
          h("div", { class: "candidate-label" }, `Response ${n}`),
          message,
          h("button", { type: "button", class: "btn prefer", onclick: () => pageEvent("preference_chosen", { candidate: n }) },
            "I prefer this response"),
        );
        const box = h("div", { class: "comparison" },
          h("p", { class: "comparison-question" }, "Which response do you prefer? Your choice will help make ChatGPT better."));
        this.message.replaceWith(box);
        box.append(h("div", { class: "comparison-columns" }, column(1, this.message), column(2, second)));
        this.comparison = { second };
        second.append(h("span", { class: "thinking shimmer" }, "Writing"));
      }
      if (c.html) {
        this.comparison.second.innerHTML = c.html;
        SimCommon.hydrateLinks(this.comparison.second);
      }
    }
    showActions(fromPersistence) {
      // A fresh stream says "Copy"; the re-render from persistence says "Copy response".
      const copyLabel = t(fromPersistence ? "Copy response" : "Copy");
      const copy = h("button", { type: "button", "aria-label": copyLabel, "data-testid": "copy-turn-action-button" }, svgIcon());
      copy.onclick = () => {
        navigator.clipboard && navigator.clipboard.writeText(this.message.innerText).catch(() => {});
      };
      this.actionSlot.replaceChildren(
        h(
          "div",
          { class: "action-bar", role: "group", "aria-label": "Response actions" },
          copy,
          h("button", { type: "button", "aria-label": "Good response", "data-testid": "good-response-turn-action-button" }, svgIcon()),
          h("button", { type: "button", "aria-label": "Bad response", "data-testid": "bad-response-turn-action-button" }, svgIcon()),
          h("button", { type: "button", "aria-label": "More actions" }, svgIcon()),
        ),
      );
    }
    showError(text) {
      const retry = h("button", { type: "button", class: "btn retry" }, t("Retry"));
      retry.onclick = () => this.retry();
      this.errorSlot.replaceChildren(h("div", { class: "generation-error" }, h("div", { class: "error-text" }, text), retry));
    }
    retry() {
      return SimCommon.retryTurn(this, `/backend-api/conversation/${conversationId}/retry/${this.messageId}`, runStream);
    }
  }

  // prepare(html) / reveal(count) / totalChars(): the streamed text, token by token.
  Object.assign(AssistantView.prototype, SimCommon.RevealMixin);

  // Turns the server already holds, in order. `fromPersistence`: rendered from storage (a load,
  // a restored thread) rather than arriving in this page's session, which shows in "Copy".
  function renderTurns(turns, fromPersistence) {
    let exchange = null;
    for (const turn of turns) {
      if (turn.role === "user") {
        if (REDESIGN) {
          exchange = newExchange();
          exchange.append(...userTurnElement(turn));
        } else {
          turnsEl.append(userTurnElement(turn));
        }
        continue;
      }
      const view = new AssistantView(turn, REDESIGN ? exchange || newExchange() : null);
      exchange = null;
      SimCommon.showTurn(view, turn, runStream, fromPersistence);
    }
  }
  function renderStoredTurns(conversation) {
    renderTurns(conversation.turns, true);
  }

  // prefilled_thread: the new chat shows an earlier exchange (a restored thread) a moment after
  // the composer is ready, so a page that looked empty when ready is not empty at send time.
  const { show: showPrefill, schedule: schedulePrefill } = SimCommon.prefill(sim, (turns) => renderTurns(turns, true));

  // ---------------------------------------------------------------- streaming
  const runStream = SimCommon.streamer(sim, actions, {
    streamUrl: (mid) => `/backend-api/conversation/${conversationId}/stream/${mid}`,
    stopUrl: (mid) => `/backend-api/conversation/${conversationId}/stop/${mid}`,
    onDelta: () => obstacles.at("answer"),
  });

  // ---------------------------------------------------------------- send
  const trySend = SimCommon.sender(sim, actions, {
    signInHref: "/auth/login",
    conversationId: () => conversationId,
    adopt: (id) => { conversationId = id; },
    conversationUrl: (id) => `/c/${id}`,
    addSidebarEntry,
    showPrefill,
    path: () => "/backend-api/conversation",
    payload: (cid) => ({
      conversation_id: cid,
      prompt: editorText(),
      // A chip still processing has its bytes on the server: the message carries it, and the
      // server records that Send came early (drift_upload_lingers, `send_while_processing`).
      attachments: uploads.filter((u) => u.state === "done" || u.state === "processing").map((u) => u.id),
      processing: uploads.filter((u) => u.state === "processing").map((u) => u.name),
      // The pill is the tool's only state: deleting it (Backspace, a fill) turns the tool off.
      tool: editor.isContentEditable && editor.querySelector("[data-inline-selection-pill]") ? "deep_research" : null,
      scenario: cid ? null : SC,
      // The earlier exchange this new chat showed (or was about to) becomes its first turns.
      prefill_id: !cid && CONFIG.prefill ? CONFIG.prefill.id : null,
    }),
    banner: { show: showBanner, clear: clearBanner },
    clearComposer,
    render: (data) => {
      // extra_assistant: finished turns the server put ahead of this user turn.
      renderTurns(data.before || [], false);
      let exchange = null;
      if (REDESIGN) {
        exchange = newExchange();
        exchange.append(...userTurnElement(data.user));
      } else {
        turnsEl.append(userTurnElement(data.user));
      }
      const view = new AssistantView(data.assistant, exchange);
      runStream(view, data.assistant.message_id, data.decoy_id);
    },
  });

  // ---------------------------------------------------------------- model pickers
  // power_stops (issue 37): the slider's stops as the page lists them (inserted or missing ones).
  const STOPS = SC.power_stops ? SC.power_stops.split(",").map((stop) => stop.trim()).filter(Boolean) : ["Instant", "Medium", "High", "Extra High", "Pro"];
  const STOP_MODELS = {
    Instant: { family: "instant", effort: "standard" },
    Low: { family: "thinking", effort: "light" },
    Medium: { family: "thinking", effort: "standard" },
    High: { family: "thinking", effort: "extended" },
    "Extra High": { family: "thinking", effort: "heavy" },
    Pro: { family: "pro" },
  };
  const EFFORT_LABELS = { light: "Light", standard: "Standard", extended: "Extended", heavy: "Heavy" };
  // plan (issue 38 §7, inferred): stops the account's plan lacks stay on the slider, but a step
  // onto one does not take; the menu lists each with an "Upgrade" button beside its name.
  const PLAN_LOCKS = { free: ["High", "Extra High", "Pro"], plus: ["Pro"], pro: [] };
  const LOCKED = new Set(PLAN_LOCKS[SC.plan] || []);
  function lockedRows() {
    return STOPS.filter((stop) => LOCKED.has(stop)).map((stop) =>
      h("div", { role: "menuitem", tabindex: -1, class: "menu-row plan-locked", "aria-disabled": "true", "data-plan-locked": "" },
        h("span", {}, versioned(stop)),
        h("button", { type: "button", class: "upgrade", onclick: () => pageEvent("upgrade_clicked", { stop }) }, "Upgrade")),
    );
  }
  const title = (s) => s.charAt(0).toUpperCase() + s.slice(1);

  function stopIndex(sel) {
    const shows = (name, effort) => STOP_MODELS[name].family === sel.family && (sel.family !== "thinking" || STOP_MODELS[name].effort === effort);
    const own = STOPS.findIndex((name) => shows(name, sel.effort));
    if (own >= 0) return own;
    // A model with no stop of its own shows on its family's standard stop (light on Medium).
    return Math.max(0, STOPS.findIndex((name) => shows(name, "standard")));
  }
  function selectionForStop(index, current) {
    const model = STOP_MODELS[STOPS[index]];
    if (model.family === "pro") return { family: "pro", effort: current.family === "pro" ? current.effort : "standard" };
    return Object.assign({}, model);
  }
  function versioned(label) {
    const named = selection.version && selection.version !== "latest" ? `${selection.version} ${t(label)}` : t(label);
    return DRIFT37.modelPrefix + named;
  }

  async function setSelection(change) {
    // drift_slow_picker: a choice shows (and takes) only after a round trip.
    if (DRIFT.slowPicker && SC.picker_delay_ms > 0) await new Promise((done) => setTimeout(done, SC.picker_delay_ms));
    selection = Object.assign({}, selection, change);
    renderPicker();
    await api("POST", "/backend-api/settings/model", selection);
  }

  const PICKERS = { legacy: legacyPicker, chips: chipsPicker, intelligence: intelligencePicker, power: powerPicker };
  let pickerRender = null;
  function renderPicker() {
    if (pickerRender) pickerRender();
  }

  function menuItem(role, label, attrs, onclick) {
    const el = h("div", Object.assign({ role, tabindex: -1, class: `menu-row ${role}` }, attrs || {}), label);
    if (onclick) el.onclick = onclick;
    return el;
  }

  // (a) legacy configuration dialog
  function legacyPicker() {
    const opener = h(
      "button",
      { type: "button", class: "model-button", "aria-label": t("Model selector"), "aria-haspopup": "menu", "aria-expanded": "false" },
    );
    pickerRender = () => {
      opener.textContent = `ChatGPT ${title(selection.family)}`;
      if (dialogRender) dialogRender();
    };
    opener.onclick = () => {
      if (openPopover && openPopover.opener === opener) return closePopover();
      const menu = h(
        "div",
        { role: "menu", class: "popover", "aria-label": t("Model") },
        menuItem("menuitem", t("Configure..."), {}, () => {
          closePopover();
          openConfigureDialog();
        }),
      );
      showPopover(menu, opener, null, pickerMenuOptions("Configure model"));
    };
    pickerSlot.replaceChildren(opener);
    pickerRender();
  }
  let dialogRender = null;
  function openConfigureDialog() {
    const content = h("div", { class: "dialog-content" });
    const close = h("button", { type: "button", class: "dialog-close", "aria-label": t("Close") }, "×");
    // drift_sticky_menu: Escape leaves the dialog open; "Close" still closes it.
    const dialog = openModal("model-config", "Model configuration", [content], close, () => {
      dialogRender = null;
    }, null, { sticky: DRIFT.stickyMenu });
    void dialog;
    let listbox = null;
    dialogRender = () => {
      const radios = ["instant", "thinking", "pro"].map((family) =>
        h(
          "button",
          { type: "button", role: "radio", class: "radio", "aria-checked": String(selection.family === family),
            onclick: () => setSelection({ family, effort: family === "pro" ? "standard" : selection.family === "thinking" ? selection.effort : "standard" }) },
          DRIFT37.modelPrefix + t(title(family)),
        ),
      );
      const rows = [h("div", { role: "radiogroup", "aria-label": "Model family", class: "radio-group" }, radios)];
      if (selection.family === "instant") {
        rows.push(
          h(
            "button",
            { type: "button", role: "switch", class: "switch", "aria-checked": String(!!selection.auto_switch),
              "aria-label": "Auto-switch to Thinking", onclick: () => setSelection({ auto_switch: !selection.auto_switch }) },
            h("span", { class: "switch-knob" }),
          ),
          h("span", { class: "switch-label", "aria-hidden": "true" }, "Auto-switch to Thinking"),
        );
      } else {
        const name = t(selection.family === "pro" ? "Pro thinking effort" : "Thinking effort");
        const efforts = selection.family === "pro" ? ["standard", "extended"] : ["light", "standard", "extended", "heavy"];
        const combo = h(
          "button",
          { type: "button", role: "combobox", class: "combobox", "aria-label": name, "aria-haspopup": "listbox", "aria-expanded": String(!!listbox) },
          t(EFFORT_LABELS[selection.effort]),
        );
        combo.onclick = () => {
          listbox = listbox
            ? null
            : h(
                "div",
                { role: "listbox", class: "listbox", "aria-label": name },
                efforts.map((effort) =>
                  h("div", { role: "option", class: "option", tabindex: -1, "aria-selected": String(selection.effort === effort),
                    onclick: () => { listbox = null; setSelection({ effort }); } }, t(EFFORT_LABELS[effort])),
                ),
              );
          dialogRender();
        };
        rows.push(h("div", { class: "field" }, h("span", { class: "field-label", "aria-hidden": "true" }, name), combo, listbox));
      }
      content.replaceChildren(...rows);
    };
    dialogRender();
  }

  // (b) removable composer chips
  function chipsPicker() {
    const opener = h("button", { type: "button", class: "model-button", "aria-haspopup": "menu", "aria-expanded": "false" }, t("Model"));
    const chipSlot = h("span", { class: "chip-slot" });
    const chipLabel = () => {
      const prefix = DRIFT37.modelPrefix;
      if (selection.family === "thinking") return selection.effort === "standard" ? `${prefix}Thinking` : `${prefix}${EFFORT_LABELS[selection.effort]} Thinking`;
      if (selection.family === "pro") return selection.effort === "standard" ? `${prefix}Pro` : `${prefix}${EFFORT_LABELS[selection.effort]} Pro`;
      return null;
    };
    let menuRender = null;
    pickerRender = () => {
      const label = chipLabel();
      chipSlot.replaceChildren();
      if (label) {
        chipSlot.append(
          h("button", { type: "button", class: "composer-chip", "aria-label": `${label}, click to remove`,
            onclick: () => setSelection({ family: "instant", effort: "standard" }) }, label, h("span", { "aria-hidden": "true" }, " ×")),
        );
      }
      if (menuRender) menuRender();
    };
    opener.onclick = () => {
      if (openPopover && openPopover.opener === opener) return closePopover();
      const menu = h("div", { role: "menu", class: "popover", "aria-label": "Model" });
      menuRender = () => {
        const rows = ["instant", "thinking", "pro"].map((family) =>
          menuItem("menuitemradio", DRIFT37.modelPrefix + t(title(family)), { "aria-checked": String(selection.family === family) },
            () => setSelection({ family, effort: "standard" })),
        );
        // drift_ambiguous_model: an older model whose name ends the same way.
        if (DRIFT37.ambiguousModel) {
          rows.splice(2, 0, menuItem("menuitemradio", "GPT-5.5 Thinking", { "aria-checked": "false" },
            () => setSelection({ family: "thinking", effort: "standard" })));
        }
        if (selection.family === "instant") {
          rows.push(
            h("div", { role: "switch", tabindex: -1, class: "menu-row switch-row", "aria-checked": String(!!selection.auto_switch),
              onclick: () => setSelection({ auto_switch: !selection.auto_switch }) }, "Auto-switch to Thinking"),
          );
        } else {
          const efforts = selection.family === "pro" ? ["standard", "extended"] : ["light", "standard", "extended", "heavy"];
          rows.push(
            h("div", { role: "group", class: "menu-group", "aria-label": t(selection.family === "pro" ? "Pro thinking effort" : "Thinking effort") },
              efforts.map((effort) =>
                menuItem("menuitemradio", t(EFFORT_LABELS[effort]), { "aria-checked": String(selection.effort === effort) }, () => {
                  closePopover();
                  setSelection({ effort });
                }),
              )),
          );
        }
        menu.replaceChildren(...rows);
      };
      menuRender();
      showPopover(menu, opener, () => { menuRender = null; }, pickerMenuOptions("Choose model"));
    };
    pickerSlot.replaceChildren(opener, chipSlot);
    pickerRender();
  }

  // (c) compact "Intelligence" menu
  function intelligencePicker() {
    const pill = h("button", { type: "button", class: "model-pill", "aria-haspopup": "menu", "aria-expanded": "false" });
    const tier = () => versioned(STOPS[stopIndex(selection)]);
    pickerRender = () => { pill.textContent = tier(); };
    pill.onclick = () => {
      if (openPopover && openPopover.opener === pill) return closePopover();
      let expanded = false;
      let proOpen = false;
      const menu = h("div", { role: "menu", class: "popover intelligence-menu", "aria-label": "Intelligence Instant Medium High Extra High Pro" });
      const choose = (change) => { closePopover(); setSelection(change); };
      const render = () => {
        const rows = [h("h3", { role: "heading", "aria-level": 3, class: "menu-heading" }, t("Intelligence"))];
        rows.push(menuItem("menuitem", `Effort ${STOPS[stopIndex(selection)]}`, { "aria-expanded": String(expanded) }, () => { expanded = true; render(); }));
        if (!expanded) {
          rows.push(menuItem("menuitem", t("Show advanced options"), {}, () => { expanded = true; render(); }));
        } else {
          const idx = stopIndex(selection);
          rows.push(
            menuItem("menuitemradio", `${t("Instant")} 5s`, { "aria-checked": String(idx === 0) }, () => choose({ family: "instant", effort: "standard" })),
            menuItem("menuitemradio", `${t("Medium")} 5–30s`, { "aria-checked": String(idx === 1) }, () => choose({ family: "thinking", effort: "standard" })),
            menuItem("menuitemradio", `${t("High")} 15–60s`, { "aria-checked": String(idx === 2) }, () => choose({ family: "thinking", effort: "extended" })),
            menuItem("menuitemradio", t("Extra High"), { "aria-checked": String(idx === 3) }, () => choose({ family: "thinking", effort: "heavy" })),
            h("div", { class: "pro-row" },
              menuItem("menuitemradio", `${t("Pro")} 5+ min`, { "aria-checked": String(idx === 4) }, () => choose({ family: "pro", effort: selection.family === "pro" ? selection.effort : "standard" })),
              // A tiny trailing icon (facts: often covered, hence the DOM hook).
              h("div", { role: "menuitem", tabindex: -1, class: "pro-effort-action", "aria-label": "Pro effort options", "aria-expanded": String(proOpen),
                "data-composer-intelligence-pro-effort-action": "", onclick: (e) => { e.stopPropagation(); proOpen = !proOpen; render(); } }, svgIcon()),
            ),
          );
          if (proOpen) {
            rows.push(
              h("div", { role: "menu", class: "submenu", "aria-label": "Pro effort" },
                menuItem("menuitemradio", t("Pro Standard"), { "aria-checked": String(selection.family === "pro" && selection.effort === "standard") }, () => choose({ family: "pro", effort: "standard" })),
                menuItem("menuitemradio", t("Pro Extended"), { "aria-checked": String(selection.family === "pro" && selection.effort === "extended") }, () => choose({ family: "pro", effort: "extended" })),
              ),
            );
          }
        }
        menu.replaceChildren(...rows);
      };
      render();
      showPopover(menu, pill, null, pickerMenuOptions("Intelligence"));
    };
    pickerSlot.replaceChildren(pill);
    pickerRender();
  }

  // (d) the "Power" slider (September 2026)
  function powerPicker() {
    const pill = h("button", {
      type: "button",
      class: "model-pill",
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "data-codex-intelligence-trigger": "",
      "data-composer-navigation-target": "reasoning",
    });
    const closedName = () => versioned(STOPS[stopIndex(selection)]);
    let menuRender = null;
    const labelPill = (open) => {
      pill.dataset.selectedReasoningEffort = STOPS[stopIndex(selection)];
      if (open) {
        pill.textContent = t("Thinking effort");
        pill.setAttribute("aria-label", t("Thinking effort"));
      } else {
        pill.textContent = closedName();
        pill.removeAttribute("aria-label");
      }
    };
    pickerRender = () => {
      labelPill(!!(openPopover && openPopover.opener === pill));
      if (menuRender) menuRender();
    };
    pill.onclick = () => {
      if (openPopover && openPopover.opener === pill) return closePopover();
      let modelView = false;
      const status = h("div", { role: "status", "aria-live": "polite", id: "power-status", class: "power-status" });
      const hint = h("span", { id: "power-hint", class: "sr-only" }, "Use Left and Right arrow keys to adjust power.");
      const stopLabel = h("span", { class: "power-stop" });
      const slider = h("div", { role: "slider", class: "power-track", "aria-label": "Power level", "aria-valuemin": 0, "aria-valuemax": STOPS.length - 1 });
      const power = h(
        "div",
        // drift_zero_height_slider: the same element, collapsed to no pixels (app.css).
        { role: "menuitem", tabindex: 0, class: DRIFT.zeroHeightSlider ? "menu-row power drift-collapsed" : "menu-row power", "aria-label": t("Power"), "aria-describedby": "power-status power-hint", "data-reasoning-slider": "" },
        stopLabel,
        slider,
      );
      const step = (delta) => {
        const index = Math.max(0, Math.min(STOPS.length - 1, stopIndex(selection) + delta));
        if (index === stopIndex(selection) || LOCKED.has(STOPS[index])) return;
        setSelection(selectionForStop(index, selection));
        // Stepping down to Instant closes the whole picker (observed live, facts §1.4d).
        if (index === 0) closePopover();
      };
      power.addEventListener("keydown", (event) => {
        if (event.key === "ArrowRight") { event.preventDefault(); step(1); }
        else if (event.key === "ArrowLeft") { event.preventDefault(); step(-1); }
      });
      const selectModel = menuItem("menuitem", "Select model", { "aria-expanded": "false", "data-model-picker-view-toggle": "" }, () => {
        modelView = !modelView;
        menuRender();
      });
      const menu = h("div", { role: "menu", class: "popover power-menu", "aria-label": t("Thinking effort") });
      const choose = (change) => { closePopover(); setSelection(change); };
      const locks = lockedRows();
      menuRender = () => {
        const index = stopIndex(selection);
        status.textContent = `${t(STOPS[index])}, ${index + 1} ${t("of")} ${STOPS.length}.`;
        stopLabel.textContent = t(STOPS[index]);
        slider.setAttribute("aria-valuenow", String(index));
        slider.setAttribute("aria-valuetext", t(STOPS[index]));
        slider.style.setProperty("--pos", `${(index * 100) / Math.max(1, STOPS.length - 1)}%`);
        selectModel.setAttribute("aria-expanded", String(modelView));
        const rows = [selectModel];
        if (modelView) {
          const latest = !selection.version || selection.version === "latest";
          rows.push(
            menuItem("menuitemradio", "Latest", { "aria-checked": String(latest), "data-model-selected": latest ? "" : null }, () => choose({ version: "latest" })),
            ...["instant", "thinking", "pro"].map((family) =>
              menuItem("menuitemradio", `6 ${title(family)}`, { "aria-checked": String(!latest && selection.family === family) },
                () => choose({ version: "6", family, effort: family === "thinking" && selection.family === "thinking" ? selection.effort : "standard" })),
            ),
          );
        } else {
          rows.push(status, power, hint, ...locks);
          if (selection.family === "pro") {
            rows.push(
              h("div", { role: "group", class: "menu-group", "aria-label": "Pro effort" },
                ["standard", "extended"].map((effort) =>
                  menuItem("menuitemradio", t(EFFORT_LABELS[effort]), { "aria-checked": String(selection.effort === effort) }, () => setSelection({ effort })),
                )),
            );
          }
        }
        // Keep the focused Power element in place so arrow keys keep working.
        const keep = new Set(rows);
        for (const child of Array.from(menu.children)) if (!keep.has(child)) child.remove();
        rows.forEach((row, i) => { if (menu.children[i] !== row) menu.insertBefore(row, menu.children[i] || null); });
      };
      menuRender();
      // Its pill reads "Thinking effort" while open anyway (facts §1.4d): no relabel to add.
      showPopover(menu, pill, () => { menuRender = null; labelPill(false); }, pickerMenuOptions(null));
      labelPill(true);
    };
    pickerSlot.replaceChildren(pill);
    pickerRender();
  }

  // ---------------------------------------------------------------- modals
  const modals = [];
  function openModal(kind, heading, children, closeButton, onClose, actions, options) {
    const headingId = `dialog-title-${kind}`;
    const overlay = h("div", { class: "modal-overlay", "data-testid": `modal-${kind}` });
    const dialog = h(
      "div",
      { role: "dialog", "aria-modal": "true", "aria-labelledby": headingId, class: "dialog" },
      h("div", { class: "dialog-header" }, h("h2", { id: headingId }, heading), closeButton),
      children,
      actions || null,
    );
    overlay.append(dialog);
    overlayRoot.append(overlay);
    const entry = {
      sticky: !!(options && options.sticky),
      close: () => {
        overlay.remove();
        const i = modals.indexOf(entry);
        if (i >= 0) modals.splice(i, 1);
        if (onClose) onClose();
      },
    };
    closeButton.onclick = () => entry.close();
    modals.push(entry);
    return dialog;
  }
  function closeTopModal() {
    const top = modals[modals.length - 1];
    if (!top) return false;
    top.close();
    return true;
  }

  function showScenarioModals() {
    if (FLAGS.has("pro_feedback")) {
      const close = h("button", { type: "button", class: "dialog-close", "aria-label": t("Close") }, "×");
      openModal("pro-feedback", "Pro feedback", [h("p", {}, "How did ChatGPT Pro do on your last request?"),
        h("div", { class: "dialog-actions" }, h("button", { type: "button", class: "btn" }, "Better than expected"), h("button", { type: "button", class: "btn" }, "Worse than expected"))],
        close, () => pageEvent("pro_feedback_closed"));
    }
    if (FLAGS.has("announcement")) {
      const close = h("button", { type: "button", class: "dialog-close", "aria-label": "Close dialog" }, "×");
      const getStarted = h("button", { type: "button", class: "btn btn-primary" }, "Get started");
      getStarted.onclick = async () => {
        // What a driver must never press: it switches the model and throws the draft away.
        pageEvent("announcement_get_started_clicked");
        await api("POST", "/backend-api/announcement/accept");
        clearComposer();
        location.assign("/");
      };
      openModal("announcement", "Introducing GPT-6", [h("p", {}, "Our smartest model yet, now the default in ChatGPT. Try it in a new chat.")],
        close, () => pageEvent("announcement_closed"), h("div", { class: "dialog-actions" }, getStarted));
    }
  }

  // ---------------------------------------------------------------- boot
  SimResearchHost.init(CONFIG.deepResearchOrigin, pageEvent);
  if (CONFIG.signedIn) {
    leftTools.append(plusButton);
    (PICKERS[CONFIG.picker] || powerPicker)();
  }
  if (CONFIG.conversation) renderStoredTurns(CONFIG.conversation);
  setTimeout(() => {
    hydrateEditor();
    if (CONFIG.signedIn) showScenarioModals();
    if (CONFIG.signedIn) obstacles.at("load");
    schedulePrefill();
  }, SC.hydrate_ms);
  window.__oraculumSimulator = { shell: SHELL, scenario: SC, get conversationId() { return conversationId; } };
})();
