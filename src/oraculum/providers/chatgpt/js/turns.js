// The conversation as one reading: where we are, the assistant turns' text, the stop control,
// and which archive names the user turns show. Used for send acceptance, URL adoption and
// completion, so location and content can never come from two different pages.
// With v.archiveName, it also finds the job's own exchange: the user turns showing that archive
// and the index of the first assistant turn after the (single) one that does.
(v) => {
  const headingTurns = [];
  for (const h of document.querySelectorAll("h1,h2,h3,h4,h5,h6,[role=heading]")) {
    if ((h.textContent || "").trim() === v.assistantHeading && h.nextElementSibling) headingTurns.push(h.nextElementSibling);
  }
  const roleTurns = Array.from(document.querySelectorAll(v.assistantSelector));
  const textOf = (el) => {
    // innerText of a hidden tab can be empty; render off-screen to get line breaks right.
    let text = el.innerText;
    if (!text || !text.trim()) text = el.textContent || "";
    const cut = text.indexOf(v.disclaimer);
    if (cut >= 0) text = text.slice(0, cut);
    return text.trim();
  };
  const turns = headingTurns.some((t) => textOf(t)) ? headingTurns : roleTurns;
  const userTurns = Array.from(document.querySelectorAll(v.userSelector))
    .map((u) => u.closest(v.turnSelectors.join(",")) || u)
    .filter((n, i, all) => all.indexOf(n) === i);
  const userTexts = userTurns.map((u) => u.innerText || "");
  let archiveAnchor = null;
  if (v.archiveName) {
    const shows = (n) => (n.textContent || "").includes(v.archiveName)
      || [...n.querySelectorAll("[aria-label]")].some((e) => (e.getAttribute("aria-label") || "").includes(v.archiveName));
    const matches = userTurns.filter(shows);
    let followingIndex = null;
    if (matches.length === 1) {
      const at = turns.findIndex((t) => (matches[0].compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)
        && !matches[0].contains(t));
      followingIndex = at >= 0 ? at : null;
    }
    archiveAnchor = { matches: matches.length, followingIndex };
  }
  // Per assistant turn: its own action bar (in its turn or exchange, at or after its message,
  // never a user turn's) and a reasoning/streaming indicator there. Completion's evidence.
  const scopeOf = (t) => (v.turnScopeSelectors.length && t.closest(v.turnScopeSelectors.join(","))) || t;
  const ownActionBar = (t) => [...scopeOf(t).querySelectorAll(v.actionBarSelector)].some((b) =>
    !b.closest(v.userSelector) && (t.contains(b) || (t.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)));
  const sendButton = Array.from(document.querySelectorAll("button")).find((b) => v.sendLabels.includes((b.getAttribute("aria-label") || b.textContent || "").trim()));
  const stopByLabel = Array.from(document.querySelectorAll("button")).some((b) => v.stopLabels.includes((b.getAttribute("aria-label") || "").trim()) && !b.disabled);
  return {
    url: location.href,
    path: location.pathname,
    assistantTexts: turns.map(textOf),
    actionBars: turns.map(ownActionBar),
    indicators: turns.map((t) => !!scopeOf(t).querySelector(v.indicatorSelector)),
    userTexts,
    archiveAnchor,
    stopPresent: !!document.querySelector(v.stopSelector) || stopByLabel,
    sendEnabled: !!(sendButton && !sendButton.disabled && sendButton.getAttribute("aria-disabled") !== "true"),
    hidden: document.hidden,
  };
}
