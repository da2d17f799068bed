// Grok's messages, read in a single evaluation: the conversation reading (mode "turns") that
// send acceptance, URL adoption and completion judge, or one bound reply (mode "capture").
// Both use the one rule of facts §5 for which nodes are replies, so what completion waited
// for is what collection captures. `v` is the vocabulary plus the request; no labels here.
//
// v.mode: "turns" | "capture"; v.archiveName: the job's archive as its user message shows it;
// capture: v.expectConversationId, v.conversationPattern, v.responseIndex, v.messageId,
// v.bindByArchive.
(v) => {
  const conversationId = (() => {
    const m = location.pathname.match(new RegExp(v.conversationPattern));
    return m ? m[1] : null;
  })();
  const base = { url: location.origin + location.pathname, conversationId };
  if (v.mode === "capture" && v.expectConversationId && conversationId !== v.expectConversationId) {
    // Checked in the same evaluation that reads the DOM: a navigation can never pair one
    // conversation's binding with another conversation's reply.
    return { ...base, ok: false, error: "conversation_mismatch",
      message: "Collection conversation binding does not match the current page." };
  }
  const unique = (nodes) => nodes.filter((n, i, all) => all.indexOf(n) === i);
  const isUser = (n) => n.matches(v.userSelector) || !!n.querySelector(v.userSelector) || !!n.querySelector(v.userEditSelector);

  // Replies: bubbles, else assistant role nodes, else the row shape; each taken up to its row.
  let found = [...document.querySelectorAll(v.bubbleSelector)];
  if (!found.length) found = [...document.querySelectorAll(v.assistantRoleSelector)];
  if (!found.length) {
    found = [...document.querySelectorAll("div")].filter((d) => v.rowFallbackClasses.every((c) => d.classList.contains(c)));
  }
  const rows = unique(found.map((n) => n.closest(v.messageRootSelector) || n));
  const userRows = unique([...document.querySelectorAll(v.userSelector)].map((n) => {
    const row = n.parentElement ? n.parentElement.closest(v.messageRootSelector) : null;
    return row || n;
  }));

  // A reply's readable form: a copy without chrome, laid out off-screen for innerText.
  const cleaned = (root) => {
    const copy = root.cloneNode(true);
    for (const el of copy.querySelectorAll(v.chromeSelectors.join(","))) el.remove();
    return copy;
  };
  const textOf = (copy) => {
    const holder = document.createElement("div");
    holder.style.cssText = "position:fixed;left:-10000px;top:0;width:800px;";
    holder.append(copy);
    document.body.append(holder);
    let text = copy.innerText;
    if (!text || !text.trim()) text = copy.textContent || "";
    holder.remove();
    text = text.replace(/\n{3,}/g, "\n\n").trim();
    const lines = text.split("\n");
    if (lines.length && lines[0].trim().startsWith(v.thoughtForPrefix)) text = lines.slice(1).join("\n").trim();
    return text;
  };
  const replies = rows
    .filter((r) => !isUser(r))
    .map((root) => ({ root, copy: cleaned(root) }))
    .map((r) => ({ ...r, text: textOf(r.copy.cloneNode(true)) }))
    .filter((r) => !r.text.toLowerCase().startsWith(v.executedCodePrefix));

  let archiveAnchor = null;
  if (v.archiveName) {
    const shows = (n) => (n.textContent || "").includes(v.archiveName)
      || [...n.querySelectorAll("[aria-label]")].some((e) => (e.getAttribute("aria-label") || "").includes(v.archiveName));
    const matches = userRows.filter(shows);
    let followingIndex = null;
    if (matches.length === 1) {
      const at = replies.findIndex((r) => (matches[0].compareDocumentPosition(r.root) & Node.DOCUMENT_POSITION_FOLLOWING)
        && !matches[0].contains(r.root));
      followingIndex = at >= 0 ? at : null;
    }
    archiveAnchor = { matches: matches.length, followingIndex };
  }
  const stopPresent = [...document.querySelectorAll("button")]
    .some((b) => (b.getAttribute("aria-label") || "") === v.stopLabel && !b.disabled);

  if (v.mode !== "capture") {
    const submit = [...document.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") || "") === v.submitLabel);
    return {
      url: location.href,
      assistantTexts: replies.map((r) => r.text),
      userTexts: userRows.map((u) => u.innerText || u.textContent || ""),
      archiveAnchor,
      stopPresent,
      sendEnabled: !!(submit && !submit.disabled),
      hidden: document.hidden,
    };
  }

  const idOf = (root) => {
    const id = root.id || "";
    if (id.startsWith(v.messageIdPrefix)) return id.slice(v.messageIdPrefix.length);
    return root.getAttribute("data-message-id");
  };
  let index = -1;
  if (v.messageId) {
    const hits = replies.map((r, i) => (idOf(r.root) === v.messageId ? i : -1)).filter((i) => i >= 0);
    if (hits.length !== 1) {
      return { ...base, ok: false, error: "bound_message_absent", rootCount: replies.length,
        message: "Bound response message ID is absent or ambiguous." };
    }
    index = hits[0];
  } else if (v.bindByArchive) {
    if (!archiveAnchor || archiveAnchor.matches !== 1) {
      const matches = archiveAnchor ? archiveAnchor.matches : 0;
      return { ...base, ok: false, error: matches ? "archive_turn_ambiguous" : "archive_turn_absent",
        rootCount: replies.length, archiveAnchor,
        message: `The job's archive ${v.archiveName} is shown in ${matches} user messages; `
          + "exactly one is required to bind the answer." };
    }
    if (archiveAnchor.followingIndex === null) {
      return { ...base, ok: false, error: "bound_root_absent", rootCount: replies.length, archiveAnchor,
        message: "No Grok reply follows the user message that shows the job's archive." };
    }
    index = archiveAnchor.followingIndex;
  } else {
    index = v.responseIndex;
    if (!(index >= 0 && index < replies.length)) {
      return { ...base, ok: false, error: "bound_root_absent", rootCount: replies.length,
        message: "Bound response root is absent; whole-conversation capture is forbidden." };
    }
  }
  const { root, copy, text } = replies[index];
  const thinking = root.querySelector(v.thinkingSelector);
  const reasoning = thinking ? (thinking.textContent || "").trim() : "";
  for (const el of copy.querySelectorAll("script,style,form,input,textarea")) el.remove();
  const absolute = (href) => { try { return new URL(href, document.baseURI).href; } catch (e) { return null; } };
  const sources = [...copy.querySelectorAll("a[href]")].map((a, i) => ({
    id: `source-${i + 1}`, kind: "citation",
    label: (a.textContent || a.getAttribute("aria-label") || "").trim(),
    href: absolute(a.getAttribute("href")),
  }));
  // Only plain attributes survive into the saved HTML; hrefs are judged in Python.
  const KEPT = new Set(["class", "role", "aria-label", "colspan", "rowspan", "href"]);
  for (const el of [copy, ...copy.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) if (!KEPT.has(attr.name)) el.removeAttribute(attr.name);
  }
  const languageOf = (pre) => {
    for (const el of [pre, pre.querySelector("code")]) {
      if (!el) continue;
      const m = (el.getAttribute("class") || "").match(/(?:^|\s)(?:language|lang)-([\w+#.-]+)/);
      if (m) return m[1];
    }
    return "";
  };
  const codeBlocks = [...copy.querySelectorAll("pre")].filter((pre) => !pre.querySelector("pre"))
    .map((pre, i) => ({ index: i + 1, language: languageOf(pre), text: pre.textContent || "" }));
  const title = copy.querySelector("h1,h2");
  return {
    ...base,
    ok: true,
    rootCount: replies.length,
    responseIndex: index,
    messageId: idOf(root),
    rawText: text,
    normalizedText: text.replace(/\s+/g, " ").trim(),
    rawHtml: copy.outerHTML,
    title: title ? title.textContent.trim() : null,
    codeBlocks,
    sources,
    candidates: [],
    frames: [],
    reasoningLabel: reasoning.startsWith(v.thoughtForPrefix) ? reasoning : null,
    archiveAnchor,
  };
}
