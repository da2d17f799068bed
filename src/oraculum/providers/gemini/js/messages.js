// Gemini's turns, read in a single evaluation: the conversation reading (mode "turns") that
// send acceptance, URL adoption and completion judge, or one bound reply (mode "capture").
// Replies are `model-response` elements, user turns `user-query` (facts §1.7); a reply's id is
// its `.conversation-container`'s. `v` is the vocabulary plus the request; no labels here.
// @use captureRules = oraculum.capture:capture_rules.js
(v) => {
  const { base, refusal } = captureRules.conversation(
    v.conversationPattern, v.mode === "capture" ? v.expectConversationId : null);
  if (refusal) return refusal;
  const users = [...document.querySelectorAll(v.userSelector)];
  const chromePatterns = captureRules.wholeText(v.chromePatterns);
  const cleaned = (root) => {
    const copy = root.cloneNode(true);
    const chrome = captureRules.removeChrome(copy, v.chromeSelectors.join(","), chromePatterns);
    return { copy, chrome };
  };
  const textOf = (copy) => {
    const holder = document.createElement("div");
    holder.style.cssText = "position:fixed;left:-10000px;top:0;width:800px;";
    holder.append(copy);
    document.body.append(holder);
    let text = copy.innerText;
    if (!text || !text.trim()) text = copy.textContent || ""; // facts §1.7: innerText can be empty
    holder.remove();
    return text.replace(/\n{3,}/g, "\n\n").trim();
  };
  const replies = [...document.querySelectorAll(v.replySelector)].map((root) => {
    const body = root.querySelector(v.bodySelector) || root;
    const { copy, chrome } = cleaned(body);
    return { root, copy, chrome, text: textOf(copy.cloneNode(true)) };
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
  const { root, copy, text, chrome } = replies[index];
  const thinking = root.querySelector(v.thinkingSelector);
  for (const el of copy.querySelectorAll("script,style,form,input,textarea")) el.remove();
  const absolute = (href) => { try { return new URL(href, document.baseURI).href; } catch (e) { return null; } };
  const sources = [...copy.querySelectorAll("a[href]")].map((a, i) => ({
    id: `source-${i + 1}`, kind: "citation",
    label: (a.textContent || a.getAttribute("aria-label") || "").trim(),
    href: absolute(a.getAttribute("href")),
  }));
  const KEPT = new Set(["class", "role", "aria-label", "colspan", "rowspan", "href"]);
  for (const el of [copy, ...copy.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) if (!KEPT.has(attr.name)) el.removeAttribute(attr.name);
  }
  const codeBlocks = captureRules.codeBlocks(copy);
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
    reasoningLabel: thinking ? (thinking.textContent || "").trim() || null : null,
    archiveAnchor,
    chrome,
  };
}
