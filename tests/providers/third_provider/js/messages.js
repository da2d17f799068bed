// The thread at one instant: `mode` "turns" (a TurnsReading) or "capture" (one bound reply, in
// the shape of oraculum.capture.page.TurnCapture). Labels and selectors come in `v`.
(v) => {
  const url = location.href;
  const found = location.pathname.match(new RegExp(v.conversationPattern));
  const conversationId = found ? found[1] : null;
  const turns = [...document.querySelectorAll(v.turnSelector)];
  const users = turns.filter((t) => t.matches(v.userSelector));
  const bots = turns.filter((t) => t.matches(v.botSelector));
  const body = (turn) => turn.querySelector(v.bodySelector);
  let anchor = null;
  if (v.archiveName) {
    const showing = users.filter((u) => u.textContent.includes(v.archiveName));
    let followingIndex = null;
    if (showing.length === 1) {
      const next = turns.slice(turns.indexOf(showing[0]) + 1).find((t) => t.matches(v.botSelector));
      followingIndex = next ? bots.indexOf(next) : null;
    }
    anchor = { matches: showing.length, followingIndex };
  }
  if (v.mode === "turns") {
    const send = [...document.querySelectorAll("button")].find((b) => b.getAttribute("aria-label") === v.sendLabel);
    return {
      url,
      assistantTexts: bots.map((b) => (body(b) ? body(b).innerText : "")),
      userTexts: users.map((u) => u.innerText),
      stopPresent: !!document.querySelector(v.stopSelector),
      sendEnabled: !!send && !send.disabled,
      hidden: document.hidden,
      archiveAnchor: anchor,
      actionBars: bots.map((b) => !!b.querySelector(v.actionSelector)),
      indicators: bots.map((b) => b.classList.contains(v.streamingClass)),
    };
  }
  const failed = (error, message) => ({ ok: false, url, conversationId, error, message, archiveAnchor: anchor });
  if (v.expectConversationId && conversationId !== v.expectConversationId) {
    return failed("conversation_mismatch", "The page shows another conversation.");
  }
  let index = v.responseIndex;
  if (v.messageId) {
    index = bots.findIndex((b) => b.dataset.id === v.messageId);
    if (index < 0) return failed("bound_message_absent", "The bound reply is not on the page.");
  } else if (v.bindByArchive) {
    if (!anchor || anchor.matches !== 1 || anchor.followingIndex === null) {
      return failed("archive_turn_absent", "No single user turn shows the job's archive with a reply.");
    }
    index = anchor.followingIndex;
  }
  const bot = bots[index];
  if (!bot || !body(bot)) return failed("bound_root_absent", "The bound reply is not on the page.");
  const el = body(bot);
  const text = el.innerText;
  return {
    ok: true,
    url,
    conversationId,
    rootCount: bots.length,
    responseIndex: index,
    messageId: bot.dataset.id || null,
    rawText: text,
    normalizedText: text.replace(/\s+/g, " ").trim(),
    rawHtml: el.innerHTML,
    codeBlocks: [...el.querySelectorAll("pre code")].map((code, i) => ({
      index: i + 1,
      language: ((code.className || "").match(/language-([\w+-]+)/) || [])[1] || "",
      text: code.textContent,
    })),
    sources: [...el.querySelectorAll("a[href]")].map((a) => ({ href: a.getAttribute("href"), title: a.textContent })),
    archiveAnchor: anchor,
  };
}
