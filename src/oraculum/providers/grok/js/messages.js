// Grok's messages, read in a single evaluation: the conversation reading (mode "turns") that
// send acceptance, URL adoption and completion judge, or one bound reply (mode "capture").
// Both use the one rule of facts §5 for which nodes are replies, so what completion waited
// for is what collection captures. `v` is the vocabulary plus the request; no labels here.
//
// v.mode: "turns" | "capture"; v.archiveName: the job's archive as its user message shows it;
// capture: v.expectConversationId, v.conversationPattern, v.responseIndex, v.messageId,
// v.bindByArchive. Which reply a capture binds, and how its code blocks read, are the rules
// ChatGPT's capture.js uses too (`captureRules`).
// @use captureRules = oraculum.capture:capture_rules.js
// @use chatReplies = oraculum.providers:js/chat_replies.js
(v) => {
  const { base, refusal } = captureRules.conversation(
    v.conversationPattern, v.mode === "capture" ? v.expectConversationId : null);
  if (refusal) return refusal;
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

  // A reply's readable form: a copy without chrome (named in `chrome`), its text without a
  // leading "Thought for …" line.
  const cleaned = chatReplies.cleaner(v);
  const textOf = (copy) => {
    const text = chatReplies.textOf(copy);
    const lines = text.split("\n");
    if (lines.length && lines[0].trim().startsWith(v.thoughtForPrefix)) return lines.slice(1).join("\n").trim();
    return text;
  };
  const replies = rows
    .filter((r) => !isUser(r))
    .map((root) => ({ root, ...cleaned(root) }))
    .map((r) => ({ ...r, text: textOf(r.copy.cloneNode(true)) }))
    .filter((r) => !r.text.toLowerCase().startsWith(v.executedCodePrefix));

  const archiveAnchor = captureRules.archiveAnchor(userRows, replies.map((r) => r.root), v.archiveName);
  const stopPresent = [...document.querySelectorAll("button")]
    .some((b) => (b.getAttribute("aria-label") || "") === v.stopLabel && !b.disabled);

  if (v.mode !== "capture") {
    const submit = [...document.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") || "") === v.submitLabel);
    return {
      url: location.href,
      assistantTexts: replies.map((r) => r.text),
      // Completion's evidence, per reply: its own action buttons, a thinking shimmer in its row.
      actionBars: replies.map((r) => !!r.root.querySelector(v.actionBarSelector)),
      indicators: replies.map((r) => !!r.root.querySelector(v.indicatorSelector)),
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
  const choice = captureRules.choose(v, replies.length, (i) => idOf(replies[i].root) === v.messageId,
    archiveAnchor, { userTurn: "user message", reply: "Grok reply" });
  if (choice.refusal) return { ...base, ok: false, ...choice.refusal };
  const index = choice.index;
  const thinking = replies[index].root.querySelector(v.thinkingSelector);
  const reasoning = thinking ? (thinking.textContent || "").trim() : "";
  return chatReplies.captured(base, replies[index], index, replies.length, {
    messageId: idOf(replies[index].root),
    reasoningLabel: reasoning.startsWith(v.thoughtForPrefix) ? reasoning : null,
    archiveAnchor,
  });
}
