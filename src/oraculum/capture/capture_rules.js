// The capture rules every capture root shares (ChatGPT's capture.js, Grok's messages.js), so a
// reply is bound and read by the same rules whoever renders it. Binding: the conversation is
// checked in the evaluation that reads the DOM, a message id wins over an index, a first
// capture binds to the first reply after the one user turn that shows the job's archive, and
// an index alone must name a reply that is there. Reading: the reply's code blocks and the
// app chrome inside it. One expression, composed into those scripts as `captureRules` (their
// `// @use` line; oraculum.capture.page.packaged_script). DOM only.
({
  // The page's conversation (named by the registry's path pattern) and, when it is not the
  // expected one, the refusal to return instead of reading anything.
  conversation(pattern, expected) {
    const match = location.pathname.match(new RegExp(pattern));
    const conversationId = match ? match[1] : null;
    const base = { url: location.origin + location.pathname, conversationId };
    if (expected && conversationId !== expected) {
      // Checked in the same evaluation that reads the DOM: a navigation can never pair one
      // conversation's binding with another conversation's reply.
      return { base, refusal: { ...base, ok: false, error: "conversation_mismatch",
        message: "Collection conversation binding does not match the current page." } };
    }
    return { base, refusal: null };
  },

  // The job's own exchange: how many user turns show the archive and, when exactly one does,
  // the index among `replyRoots` of the first reply after it (null: none yet).
  archiveAnchor(userNodes, replyRoots, archiveName) {
    if (!archiveName) return null;
    const shows = (n) => (n.textContent || "").includes(archiveName)
      || [...n.querySelectorAll("[aria-label]")].some((e) => (e.getAttribute("aria-label") || "").includes(archiveName));
    const matches = userNodes.filter(shows);
    let followingIndex = null;
    if (matches.length === 1) {
      const at = replyRoots.findIndex((r) => (matches[0].compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING)
        && !matches[0].contains(r));
      followingIndex = at >= 0 ? at : null;
    }
    return { matches: matches.length, followingIndex };
  },

  // Which of `count` replies the request binds: `{ index }`, or `{ refusal }` (the failure's
  // fields after `ok: false`). `hasId(i)`: reply i carries request.messageId. `words` names the
  // page's turns in the refusals: { userTurn: "user turn", reply: "assistant reply" }.
  choose(request, count, hasId, anchor, words) {
    if (request.messageId) {
      const hits = [];
      for (let i = 0; i < count; i += 1) if (hasId(i)) hits.push(i);
      if (hits.length !== 1) {
        return { refusal: { error: "bound_message_absent", rootCount: count,
          message: "Bound response message ID is absent or ambiguous." } };
      }
      return { index: hits[0] };
    }
    if (request.bindByArchive) {
      if (!anchor || anchor.matches !== 1) {
        const matches = anchor ? anchor.matches : 0;
        return { refusal: { error: matches ? "archive_turn_ambiguous" : "archive_turn_absent",
          rootCount: count, archiveAnchor: anchor,
          message: `The job's archive ${request.archiveName} is shown in ${matches} ${words.userTurn}s; `
            + "exactly one is required to bind the answer." } };
      }
      if (anchor.followingIndex === null) {
        return { refusal: { error: "bound_root_absent", rootCount: count, archiveAnchor: anchor,
          message: `No ${words.reply} follows the ${words.userTurn} that shows the job's archive.` } };
      }
      return { index: anchor.followingIndex };
    }
    const index = request.responseIndex;
    if (!(index >= 0 && index < count)) {
      return { refusal: { error: "bound_root_absent", rootCount: count,
        message: "Bound response root is absent; whole-conversation capture is forbidden." } };
    }
    return { index };
  },

  // Regular expressions (sources) that match an element's whole text, ignoring case.
  wholeText(sources) {
    return (sources || []).map((p) => new RegExp(`^(?:${p})$`, "i"));
  },

  // App chrome inside a reply, taken out of `clone` (a detached copy) and named: structure
  // first (elements matching `selector`; a code block's own controls and marked artifact
  // candidates are left to the Markdown rules), then short notices (at most 80 characters)
  // neither in nor around prose or code whose whole text matches one of `patterns`, so the
  // same words in the answer's own paragraphs, lists, headings or code stay.
  // Returns [{kind: "control" | "notice", text}].
  removeChrome(clone, selector, patterns) {
    const PROSE = "p,li,h1,h2,h3,h4,h5,h6,td,th,blockquote,pre,code";
    const norm = (text) => (text || "").replace(/\s+/g, " ").trim();
    const chrome = [];
    const take = (el, kind) => {
      chrome.push({ kind, text: norm(el.textContent) || (el.getAttribute("aria-label") || "").trim() });
      el.remove();
    };
    for (const el of [...clone.querySelectorAll(selector)]) {
      if (!clone.contains(el) || el.closest("pre") || el.closest("[data-oracle-capture]")) continue;
      take(el, "control");
    }
    for (const el of [...clone.querySelectorAll("*")]) {
      if (!clone.contains(el) || el.closest(PROSE) || el.querySelector(PROSE)) continue;
      const text = norm(el.textContent);
      if (text && text.length <= 80 && patterns.some((p) => p.test(text))) take(el, "notice");
    }
    return chrome;
  },

  // A reply's code blocks: leaf <pre> only, so presentation wrappers are not counted twice; the
  // language from a `language-*` / `lang-*` class on the <pre> or its <code>.
  codeBlocks(root) {
    const languageOf = (pre) => {
      for (const el of [pre, pre.querySelector("code")]) {
        if (!el) continue;
        const m = (el.getAttribute("class") || "").match(/(?:^|\s)(?:language|lang)-([\w+#.-]+)/);
        if (m) return m[1];
      }
      return "";
    };
    return [...root.querySelectorAll("pre")]
      .filter((pre) => !pre.querySelector("pre"))
      .map((pre, i) => ({ index: i + 1, language: languageOf(pre), text: pre.textContent || "" }));
  },
})
