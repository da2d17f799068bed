// Gemini's turns, read in a single evaluation: the conversation reading (mode "turns") that
// send acceptance, URL adoption and completion judge, or one bound reply (mode "capture").
// Replies are `model-response` elements, user turns `user-query` (facts §1.7); a reply's id is
// its `.conversation-container`'s. `v` is the vocabulary plus the request; no labels here.
// @use captureRules = oraculum.capture:capture_rules.js
// @use chatReplies = oraculum.providers:js/chat_replies.js
(v) => {
  const { base, refusal } = captureRules.conversation(
    v.conversationPattern, v.mode === "capture" ? v.expectConversationId : null);
  if (refusal) return refusal;
  const users = [...document.querySelectorAll(v.userSelector)];
  const cleaned = chatReplies.cleaner(v);
  const replies = [...document.querySelectorAll(v.replySelector)].map((root) => {
    const body = root.querySelector(v.bodySelector) || root;
    const { copy, chrome } = cleaned(body);
    return { root, copy, chrome, text: chatReplies.textOf(copy.cloneNode(true)) };
  });
  const archiveAnchor = captureRules.archiveAnchor(users, replies.map((r) => r.root), v.archiveName);
  const buttons = [...document.querySelectorAll("button")];
  const stopPresent = buttons.some((b) => v.stopLabels.includes(b.getAttribute("aria-label") || "") && !b.disabled && !b.hidden);

  if (v.mode !== "capture") {
    const send = document.querySelector(v.sendSelector);
    const pending = v.pendingPatterns.map((p) => new RegExp(p, "i"));
    return {
      url: location.href,
      assistantTexts: replies.map((r) => r.text),
      actionBars: replies.map((r) => !!r.root.querySelector(v.actionBarSelector)),
      // A busy marker in the reply, or a placeholder text for all of it (facts §1.10).
      indicators: replies.map((r) => !!r.root.querySelector(v.indicatorSelector)
        || pending.some((p) => p.test(r.text))),
      userTexts: users.map((u) => u.innerText || u.textContent || ""),
      archiveAnchor,
      stopPresent,
      sendEnabled: !!(send && !send.disabled && !send.hidden),
      hidden: document.hidden,
    };
  }

  const idOf = (root) => {
    const box = root.closest(v.containerSelector);
    return box && box.id ? box.id : null;
  };
  const choice = captureRules.choose(v, replies.length, (i) => idOf(replies[i].root) === v.messageId,
    archiveAnchor, { userTurn: "user query", reply: "Gemini response" });
  if (choice.refusal) return { ...base, ok: false, ...choice.refusal };
  const index = choice.index;
  const thinking = replies[index].root.querySelector(v.thinkingSelector);
  return chatReplies.captured(base, replies[index], index, replies.length, {
    messageId: idOf(replies[index].root),
    reasoningLabel: thinking ? (thinking.textContent || "").trim() || null : null,
    archiveAnchor,
  });
}
