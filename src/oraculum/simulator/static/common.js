// oraculum simulator: what every look-alike page shares (ChatGPT's app.js, Grok's grok.js,
// Gemini's gemini.js). DOM building, the JSON API, the composer's Send/Stop slot, an upload
// chip's life, the send and a new chat's adoption, the streamed answer revealed token by token,
// the scenario mechanics of a stream (hidden tab, navigation away, stale stop, a prefilled
// thread), and for the one-editor pages their menus, editor, send payload and start. No
// labels live here: each page keeps its own site's vocabulary and lays out its own elements.
"use strict";
window.SimCommon = (() => {
  function readConfig() {
    const configEl = document.getElementById("sim-config");
    const config = JSON.parse(configEl.textContent);
    // Keep the embedded data out of body.textContent, which drivers read.
    configEl.remove();
    return config;
  }

  // The page's UI language (issue 42 §2): an English label as this locale shows it.
  function translator(config) {
    const texts = config.texts || {};
    return (text) => (Object.prototype.hasOwnProperty.call(texts, text) ? texts[text] : text);
  }

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key === "text") el.textContent = value;
      else if (key.startsWith("on")) el[key] = value;
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function svgIcon() {
    const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    s.setAttribute("width", "16");
    s.setAttribute("height", "16");
    s.setAttribute("aria-hidden", "true");
    return s;
  }

  async function api(method, path, body) {
    const response = await fetch(path, {
      method,
      credentials: "include",
      headers: body ? { "content-type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = null;
    }
    return { ok: response.ok, status: response.status, data };
  }

  // Things only the page sees (a dialog closed, the tab hidden) go to the server's event log.
  function pageEvents(path) {
    return (type, details) => {
      api("POST", path, Object.assign({ type }, details || {})).catch(() => {});
    };
  }

  // What a page's shared helpers work with, made once: its config, scenario and page events.
  function session(config, pageEventPath) {
    return { config, scenario: config.scenario, pageEvent: pageEvents(pageEventPath) };
  }

  // The composer's action slot: Send while idle, Stop while an answer streams (Stop stops the
  // stream in progress). Send is enabled when idle and `o.allowed()` (the page's own rule).
  // o: {slot, send, stop, allowed}. Starts idle; `update()` re-reads the rule.
  function composerActions(o) {
    let generating = false;
    let activeStream = null;
    const allowed = () => !generating && o.allowed();
    const update = () => {
      o.send.disabled = !allowed();
    };
    const setGenerating = (on) => {
      generating = on;
      o.slot.replaceChildren(on ? o.stop : o.send);
      update();
    };
    o.stop.addEventListener("click", () => {
      if (activeStream) activeStream.stop();
    });
    setGenerating(false);
    return { button: o.send, allowed, update, setGenerating, setActiveStream: (stream) => { activeStream = stream; } };
  }

  // "/x/{cid}/stream/{mid}" with the ids filled in.
  function apiPath(template, ids) {
    return template.replace("{cid}", encodeURIComponent(ids.cid || "")).replace("{mid}", encodeURIComponent(ids.mid || ""));
  }

  function hydrateLinks(root) {
    for (const anchor of root.querySelectorAll("a[data-sim-blob]")) {
      const url = anchor.getAttribute("href");
      anchor.removeAttribute("data-sim-blob");
      fetch(url, { credentials: "include" })
        .then((r) => r.blob())
        .then((blob) => anchor.setAttribute("href", URL.createObjectURL(blob)))
        .catch(() => {});
    }
    for (const button of root.querySelectorAll("button.copy-code")) {
      button.textContent = "Copy code";
      button.onclick = () => {
        // ChatGPT's button is inside a presentation <pre>; Grok's in its code block's header.
        const block = button.closest("[data-testid=code-block]") || button.closest("pre");
        const code = block ? block.querySelector("pre code, code") : null;
        navigator.clipboard && navigator.clipboard.writeText(code ? code.textContent : "").catch(() => {});
      };
    }
  }

  // Mixed into an assistant view whose `message` element holds the answer: the whole answer's
  // structure is known at "start"; its text appears as tokens arrive.
  const RevealMixin = {
    prepare(html) {
      this.message.innerHTML = html;
      const walker = document.createTreeWalker(this.message, NodeFilter.SHOW_TEXT);
      this.textNodes = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        this.textNodes.push({ node, full: node.data });
        node.data = "";
      }
      this.revealed = 0;
    },
    reveal(count) {
      let left = count;
      for (const entry of this.textNodes || []) {
        const take = Math.min(left, entry.full.length);
        if (entry.node.data.length !== take) entry.node.data = entry.full.slice(0, take);
        left -= take;
      }
      this.revealed = count;
    },
    totalChars() {
      return (this.textNodes || []).reduce((n, e) => n + e.full.length, 0);
    },
  };

  let simulatedHidden = false;
  function goHidden(pageEvent) {
    // The tab goes to the background: Chrome stops animation frames, so the streamed text
    // freezes while the network keeps flowing (facts §3.5).
    simulatedHidden = true;
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
    pageEvent("hidden");
  }

  // Read an NDJSON response line by line.
  function readEvents(url, signal, onEvent) {
    return fetch(url, { credentials: "include", signal })
      .then(async (response) => {
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 1);
            if (line.trim()) onEvent(JSON.parse(line));
          }
        }
      })
      .catch(() => {});
  }

  // Stream one answer into `view` (setMessageId, setReasoning, prepare/reveal, renderFinal,
  // showActions, showError, `message`). `o`: streamUrl, stopUrl() (the view's current message),
  // scenario, flags, decoyId and decoyUrl (navigate_away), api, pageEvent, setGenerating(on),
  // setActiveStream(stream | null). Returns nothing; the page's stop button calls
  // `activeStream.stop()`.
  function runStream(view, o) {
    const SC = o.scenario;
    const FLAGS = o.flags;
    o.setGenerating(true);
    const controller = new AbortController();
    const stream = { received: 0, done: false, stopped: false };
    o.setActiveStream({
      stop: async () => {
        stream.stopped = true;
        controller.abort();
        const result = await o.api("POST", o.stopUrl());
        if (result.ok) {
          view.setReasoning(result.data.reasoning_label, false);
          view.renderFinal(result.data.html || "");
          if (result.data.research && view.setResearch) view.setResearch(result.data.research);
          view.showActions(false);
        }
        o.setActiveStream(null);
        o.setGenerating(false);
      },
    });
    view.setReasoning("", true);

    let navigated = false;
    const frame = () => {
      if (stream.stopped || !view.textNodes) {
        if (!stream.stopped) requestAnimationFrame(frame);
        return;
      }
      if (!document.hidden) {
        let target = stream.done ? view.totalChars() : Math.min(stream.received, view.totalChars());
        // Never jump past a scenario's trigger point, however many tokens arrived per frame.
        if (FLAGS.has("hidden_tab") && !simulatedHidden) target = Math.min(target, SC.hidden_after_chars);
        if (o.decoyId && !navigated) target = Math.min(target, SC.navigate_after_chars);
        if (target > view.revealed) view.reveal(target);
        if (FLAGS.has("hidden_tab") && !simulatedHidden && view.revealed >= SC.hidden_after_chars) goHidden(o.pageEvent);
        if (o.decoyId && !navigated && view.revealed >= SC.navigate_after_chars) {
          navigated = true;
          o.pageEvent("navigated_away", { to: o.decoyId });
          location.assign(o.decoyUrl);
          return;
        }
        if (stream.done && view.revealed >= view.totalChars()) {
          hydrateLinks(view.message);
          return;
        }
      }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);

    const onEvent = (event) => {
      if (event.t === "thinking") {
        view.setReasoning("", true);
      } else if (event.t === "gap") {
        // silent_gap_ms: between reasoning and answer there is no stop control and no
        // indicator; label_only_turn puts the reasoning label in the message as its only text.
        o.setGenerating(false);
        const only = FLAGS.has("label_only_turn");
        view.setReasoning(only ? "" : event.reasoning_label, false);
        if (only) view.message.replaceChildren(document.createTextNode(event.reasoning_label));
        o.pageEvent("silent_gap");
      } else if (event.t === "pause" || event.t === "resume") {
        // pause_ms: mid-answer the text so far stays, with no stop control and no indicator.
        o.setGenerating(event.t === "resume");
        o.pageEvent(event.t === "pause" ? "answer_paused" : "answer_resumed");
      } else if (event.t === "start") {
        o.setGenerating(true);
        view.setMessageId(event.message_id);
        view.setReasoning(event.reasoning_label, false);
        view.prepare(event.html);
        if (event.comparison && view.setComparison) view.setComparison(event.comparison);
      } else if (event.t === "delta") {
        stream.received += event.v.length;
        if (o.onDelta) o.onDelta();
      } else if (event.t === "research") {
        // Deep Research (ChatGPT only): the widget's live status, then its report.
        if (view.setResearch) view.setResearch(event.research);
      } else if (event.t === "done") {
        stream.done = true;
        if (event.comparison && view.setComparison) view.setComparison(event.comparison);
        o.setActiveStream(null);
        if (FLAGS.has("stale_stop")) {
          // The stop control outlives the stream (observed live for 31 minutes).
          o.pageEvent("stale_stop");
          return;
        }
        o.setGenerating(false);
        finishTurn(view, SC, FLAGS, o.pageEvent);
      } else if (event.t === "error") {
        stream.stopped = true;
        o.setActiveStream(null);
        view.message.replaceChildren();
        view.setReasoning("", false);
        view.showError(event.text);
        o.setGenerating(false);
      }
    };
    readEvents(o.streamUrl, controller.signal, onEvent);
  }


  // A finished turn gets its action bar (`action_bar_delay_ms` late), and under
  // rerender_at_end its DOM is then replaced by a fresh copy once fully shown, as React does.
  function finishTurn(view, SC, FLAGS, pageEvent) {
    const rerender = () => {
      if (view.textNodes && view.revealed < view.totalChars()) {
        setTimeout(rerender, 50);
        return;
      }
      view.root.replaceWith(view.root.cloneNode(true));
      pageEvent("rerendered");
    };
    setTimeout(() => {
      view.showActions(false);
      if (FLAGS.has("rerender_at_end")) rerender();
    }, SC.action_bar_delay_ms || 0);
  }

  // An upload chip's progress and its POST. The bar never passes 90% before the server
  // answered; `o.arrived()` runs once the bytes are in and the bar is full, `o.failed()` when the
  // POST fails (the chip then shows `o.failedLabel`). o: {url, file, conversationId, scenario,
  // entry, chip, progress, status, failedLabel, arrived, failed}.
  function trackUpload(o) {
    const SC = o.scenario;
    const started = performance.now();
    let serverDone = false;
    let failed = false;
    const tick = () => {
      if (failed || o.entry.state !== "uploading") return;
      const fraction = Math.min(1, (performance.now() - started) / Math.max(1, SC.upload_ms));
      const pct = Math.round((serverDone ? fraction : Math.min(fraction, 0.9)) * 100);
      o.progress.setAttribute("aria-valuenow", String(pct));
      o.progress.style.setProperty("--pct", `${pct}%`);
      if (serverDone && fraction >= 1) {
        o.arrived();
        return;
      }
      setTimeout(tick, 50);
    };
    tick();

    const body = new FormData();
    body.append("file", o.file, o.file.name);
    if (o.conversationId) body.append("conversation_id", o.conversationId);
    else body.append("scenario", JSON.stringify(SC));
    fetch(o.url, { method: "POST", body, credentials: "include" })
      .then(async (response) => {
        if (!response.ok) throw new Error(`status ${response.status}`);
        o.entry.id = (await response.json()).id;
        serverDone = true;
      })
      .catch(() => {
        failed = true;
        o.entry.state = "error";
        o.chip.dataset.state = "error";
        o.progress.remove();
        o.status.textContent = o.failedLabel;
        o.status.classList.add("chip-error");
        o.failed();
      });
  }

  // The alert banner above the composer: show(text) / clear().
  function banner(slot) {
    return {
      show: (text) => slot.replaceChildren(h("div", { role: "alert", class: "banner" }, text)),
      clear: () => slot.replaceChildren(),
    };
  }

  // prefilled_thread: a new chat shows an earlier exchange a moment after it is ready (or at
  // once when a send beats it), through the page's `render(turns)`.
  function prefill(sim, render) {
    const earlier = sim.config.prefill;
    let shown = false;
    let timer = null;
    const show = () => {
      if (shown || !earlier) return;
      shown = true;
      clearTimeout(timer);
      render(earlier.turns);
      sim.pageEvent("prefill_shown", { prefill_id: earlier.id });
    };
    const schedule = () => {
      if (earlier) timer = setTimeout(show, sim.scenario.prefill_delay_ms);
    };
    return { show, schedule };
  }

  // A page's runStream(view, messageId, decoyId) over SimCommon.runStream, its composer
  // `actions` showing Stop meanwhile. o: {streamUrl(mid), stopUrl(mid)}. The decoy a
  // navigate_away stream goes to is a conversation page, /c/<id>, on every site.
  function streamer(sim, actions, o) {
    const flags = new Set(sim.scenario.flags);
    return (view, messageId, decoyId) => runStream(view, {
      streamUrl: o.streamUrl(messageId),
      stopUrl: () => o.stopUrl(view.messageId),
      scenario: sim.scenario,
      flags,
      decoyId,
      decoyUrl: decoyId ? `/c/${decoyId}` : null,
      api,
      pageEvent: sim.pageEvent,
      setGenerating: actions.setGenerating,
      setActiveStream: actions.setActiveStream,
      onDelta: o.onDelta,
    });
  }

  // One file's upload as a chip near the composer: its entry in `o.uploads`, the "Uploading…"
  // status, the progress bar and the Remove button (the page lays them out: `o.chip(parts)`
  // returns the chip), then its POST (trackUpload). `o.arrived(parts)` once the bytes are in.
  // o: {file, uploads, container, chip, update(), url, conversationId, failedLabel, arrived,
  // failed}; parts: {file, entry, chip, progress, status, remove}.
  function startUpload(sim, o) {
    const file = o.file;
    const entry = { id: null, name: file.name, state: "uploading", el: null };
    const parts = {
      file,
      entry,
      status: h("span", { class: "chip-status" }, "Uploading…"),
      progress: h("div", {
        role: "progressbar",
        class: "chip-progress",
        "aria-label": `Uploading ${file.name}`,
        "aria-valuemin": 0,
        "aria-valuemax": 100,
        "aria-valuenow": 0,
      }),
      remove: h("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${file.name}` }, "×"),
    };
    const chip = o.chip(parts);
    parts.chip = chip;
    entry.el = chip;
    parts.remove.onclick = () => {
      const index = o.uploads.indexOf(entry);
      if (index >= 0) o.uploads.splice(index, 1);
      chip.remove();
      o.update();
    };
    o.uploads.push(entry);
    o.container.append(chip);
    o.update();
    trackUpload({
      ...parts,
      url: o.url,
      conversationId: o.conversationId,
      scenario: sim.scenario,
      failedLabel: o.failedLabel,
      arrived: () => o.arrived(parts),
      failed: o.failed,
    });
  }

  // The page's Send, one message at a time: signed out, it goes to sign-in instead; a new chat
  // adopts the conversation the server made (its URL, a sidebar entry, the earlier exchange it
  // showed) before the page renders the new turns (`o.render(data)`). o: {signInHref,
  // conversationId(), adopt(id), conversationUrl(id), addSidebarEntry, showPrefill, path(id),
  // payload(id), banner: {show, clear}, clearComposer, render}.
  function sender(sim, actions, o) {
    let sending = false;
    return async () => {
      if (sending || !actions.allowed()) return;
      if (!sim.config.signedIn) {
        location.assign(o.signInHref);
        return;
      }
      sending = true;
      actions.button.disabled = true;
      const payload = o.payload(o.conversationId());
      try {
        const result = await api("POST", o.path(o.conversationId()), payload);
        if (!result.ok) {
          o.banner.show((result.data && result.data.detail) || "Something went wrong. Please try again.");
          return;
        }
        o.banner.clear();
        const data = result.data;
        o.clearComposer();
        if (!o.conversationId()) {
          o.adopt(data.conversation_id);
          history.pushState({}, "", o.conversationUrl(data.conversation_id));
          o.addSidebarEntry(data.conversation_id, data.title, true);
          o.showPrefill(); // a send that beat the earlier exchange still shows it first
        }
        o.render(data);
      } finally {
        sending = false;
        actions.update();
      }
    };
  }

  // One stored assistant turn into its view: still streaming, failed, or final.
  function showTurn(view, turn, stream, fromPersistence) {
    if (turn.status === "streaming") {
      stream(view, turn.message_id, null);
    } else if (turn.status === "error") {
      view.showError(turn.error_text);
    } else {
      view.setReasoning(turn.reasoning_label, false);
      view.renderFinal(turn.html);
      if (turn.comparison && view.setComparison) view.setComparison(turn.comparison);
      if (turn.research && view.setResearch) view.setResearch(turn.research);
      view.showActions(fromPersistence);
    }
  }

  // The Retry button of a failed turn: the server restarts it and the view streams it again.
  async function retryTurn(view, url, stream) {
    const result = await api("POST", url);
    if (!result.ok) return;
    view.errorSlot.replaceChildren();
    view.message.replaceChildren();
    view.textNodes = null;
    view.setMessageId(result.data.message_id);
    stream(view, result.data.message_id, null);
  }

  // lazy_file_input (issue 37): a file input that exists only while its chooser is open,
  // appended to `parent` for the click and removed once files are chosen or the chooser closes.
  function chooseLazily(parent, onFile) {
    const lazy = h("input", { type: "file", multiple: true, class: "hidden-file-input", tabindex: -1 });
    lazy.addEventListener("change", () => {
      for (const file of Array.from(lazy.files || [])) onFile(file);
      lazy.remove();
    });
    lazy.addEventListener("cancel", () => lazy.remove());
    parent.append(lazy);
    lazy.click();
  }

  // Issue 37's obstacles (flags obstacle_*): what real pages put over the composer, shown at
  // scenario.obstacle_at (load, ready = obstacle_delay_ms after load, upload, answer, picker) above the
  // page's #app. Every press of one of their buttons, and every Escape while one shows, is a
  // page event ("obstacle_button" {obstacle, button}; "obstacle_escape" {obstacle, closed}).
  // Returns at(moment), which the page calls at each of those moments.
  const OBSTACLES = {
    // An aria-modal dialog that aria-hides and inerts the page; Escape does not close it.
    obstacle_modal: { modal: true, heading: "Try the new canvas", buttons: [["Try it", false], ["Not now", true]] },
    // A backdrop with no accessible dismiss control; Escape closes it.
    obstacle_backdrop: { backdrop: true, text: "Updating your workspace", escapes: true, buttons: [] },
    // A cookie consent region over the composer; Escape does not close it.
    obstacle_consent: { region: "Cookie consent", text: "We use cookies to improve your experience.", buttons: [["Accept all", false], ["Reject non-essential", true]] },
    // Nothing safe clears it: only an upgrade and an accept-all, and Escape does nothing.
    obstacle_unclearable: { modal: true, heading: "Your plan needs an upgrade", buttons: [["Upgrade", false], ["Accept all", false]] },
  };
  function obstacles(sim) {
    const SC = sim.scenario;
    const flags = Object.keys(OBSTACLES).filter((f) => SC.flags.includes(f));
    const open = [];
    let shown = false;
    const app = () => document.getElementById("app");
    const hidePage = () => {
      const hide = open.some((o) => o.spec.modal);
      if (hide) { app().setAttribute("aria-hidden", "true"); app().setAttribute("inert", ""); }
      else { app().removeAttribute("aria-hidden"); app().removeAttribute("inert"); }
    };
    function build(flag) {
      const spec = OBSTACLES[flag];
      const entry = { flag, spec };
      const close = () => {
        entry.el.remove();
        open.splice(open.indexOf(entry), 1);
        hidePage();
      };
      entry.close = close;
      const buttons = spec.buttons.map(([label, closes]) => {
        const b = h("button", { type: "button", class: "btn" }, label);
        b.onclick = () => {
          sim.pageEvent("obstacle_button", { obstacle: flag, button: label });
          if (closes) close();
        };
        return b;
      });
      const cover = "position:fixed;inset:0;z-index:100;background:rgba(0,0,0,.4);display:flex;align-items:center;justify-content:center;";
      if (spec.modal) {
        const id = `obstacle-title-${flag}`;
        const dialog = h("div", { role: "dialog", "aria-modal": "true", "aria-labelledby": id, style: "background:#fff;padding:24px;border-radius:8px;" },
          h("h2", { id }, spec.heading), h("div", {}, buttons));
        entry.el = h("div", { "data-testid": flag, style: cover }, dialog);
      } else if (spec.backdrop) {
        entry.el = h("div", { "data-testid": flag, style: cover }, h("p", { style: "color:#fff" }, spec.text));
      } else {
        entry.el = h("section", { role: "region", "aria-label": spec.region, "data-testid": flag,
          style: "position:fixed;left:0;right:0;bottom:0;height:55vh;z-index:100;background:#fff;border-top:1px solid #999;padding:16px;" },
        h("p", {}, spec.text), h("div", {}, buttons));
      }
      document.body.append(entry.el);
      open.push(entry);
      hidePage();
    }
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape" || !open.length) return;
      const top = open[open.length - 1];
      sim.pageEvent("obstacle_escape", { obstacle: top.flag, closed: !!top.spec.escapes });
      if (top.spec.escapes) top.close();
    }, true);
    const show = () => {
      if (shown) return;
      shown = true;
      flags.forEach(build);
      sim.pageEvent("obstacle_shown", { obstacles: flags, at: SC.obstacle_at });
    };
    return {
      at(moment) {
        if (!flags.length || shown) return;
        if (moment === "load" && SC.obstacle_at === "ready") setTimeout(show, SC.obstacle_delay_ms);
        else if (moment === SC.obstacle_at) show();
      },
    };
  }

  // One open menu at a time, placed in `container` (Grok's and Gemini's composer menus): its
  // opener says aria-expanded; a click outside it or Escape closes it, focus back on the opener.
  function menus(container) {
    let open = null;
    function close() {
      if (!open) return;
      const { el, opener } = open;
      open = null;
      el.remove();
      opener.setAttribute("aria-expanded", "false");
    }
    function show(el, opener) {
      close();
      open = { el, opener };
      container.append(el);
      opener.setAttribute("aria-expanded", "true");
    }
    function toggle(opener, build) {
      if (open && open.opener === opener) close();
      else show(build(), opener);
    }
    document.addEventListener("pointerdown", (event) => {
      if (!open) return;
      if (open.el.contains(event.target) || open.opener.contains(event.target)) return;
      close();
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && open) {
        const opener = open.opener;
        close();
        opener.focus();
      }
    });
    return { close, toggle };
  }

  // A one-editor composer (Grok's, Gemini's): its text as sent, Enter sends (Shift+Enter and an
  // IME composition do not), and every change of its content calls `update`.
  function editorText(editor) {
    if (!editor.isContentEditable) return "";
    return editor.innerText.replace(/\u00a0/g, " ").replace(/\n+$/, "");
  }
  function wireEditor(editor, send, update) {
    editor.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send();
      }
    });
    new MutationObserver(() => update()).observe(editor, { childList: true, subtree: true, characterData: true });
  }

  // An upload chip's end once its file arrived (`startUpload`'s `arrived`): done, its status
  // and progress gone, the composer's controls updated.
  function chipArrived(update) {
    return ({ entry, chip, status, progress }) => {
      entry.state = "done";
      chip.dataset.state = "done";
      status.remove();
      progress.remove();
      update();
    };
  }

  // What a send posts (`sender`'s `payload`): the prompt, the finished uploads, and on a new
  // chat its scenario and prefill.
  function sendPayload(config, uploads, prompt) {
    return (cid) => ({
      conversation_id: cid,
      prompt: prompt(),
      attachments: uploads.filter((u) => u.state === "done").map((u) => u.id),
      scenario: cid ? null : config.scenario,
      prefill_id: !cid && config.prefill ? config.prefill.id : null,
    });
  }

  // A picker item's click (Grok's models, Gemini's modes): while the account may not use its
  // entry it is refused (a `model_refused` event), else the menu closes and `choose(id)` runs.
  function pickable(item, sim, o) {
    item.onclick = () => {
      if (o.unavailable) {
        sim.pageEvent("model_refused", { model: o.id });
        return;
      }
      o.close();
      o.choose(o.id);
    };
    return item;
  }

  // The reply-view methods Grok's and Gemini's pages share (their markup is their own): the
  // final HTML with its links hydrated, a failed turn's words beside Retry, and the retry.
  // `o.retryUrl(messageId)`, `o.runStream()` (the page's streamer, made after its views).
  function replyViewMixin(o) {
    return {
      renderFinal(html) {
        this.message.innerHTML = html;
        hydrateLinks(this.message);
      },
      showError(text) {
        const retry = h("button", { type: "button", class: "btn retry" }, o.retryLabel);
        retry.onclick = () => this.retry();
        this.errorSlot.replaceChildren(h("div", { class: "generation-error" }, h("p", { class: "error-text" }, text), retry));
      },
      retry() {
        return retryTurn(this, o.retryUrl(this.messageId), o.runStream());
      },
    };
  }

  // A look-alike's start: the stored conversation, then after `hydrate_ms` the editor, the
  // load obstacles and the prefill; `window.__oraculumSimulator` for the tests.
  function boot(o) {
    const SC = o.config.scenario;
    if (o.config.conversation) o.renderTurns(o.config.conversation.turns);
    setTimeout(() => {
      o.hydrate();
      o.obstacles.at("load");
      o.schedulePrefill();
    }, SC.hydrate_ms);
    window.__oraculumSimulator = { provider: o.provider, scenario: SC, get conversationId() { return o.conversationId(); } };
  }

  return {
    menus, editorText, wireEditor, chipArrived, sendPayload, pickable, replyViewMixin, boot,
    chooseLazily, readConfig, translator, session, composerActions, h, svgIcon, api, pageEvents, apiPath, hydrateLinks,
    RevealMixin, runStream, trackUpload, startUpload, sender, banner, prefill, streamer, showTurn,
    retryTurn, obstacles,
  };
})();
