// The conversation as one reading: where we are, the assistant turns' text, the stop control,
// and which archive names the user turns show. Used for send acceptance, URL adoption and
// completion, so location and content can never come from two different pages.
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
  const userTexts = Array.from(document.querySelectorAll(v.userSelector)).map((u) => (u.closest(v.turnSelectors.join(",")) || u).innerText || "");
  const sendButton = Array.from(document.querySelectorAll("button")).find((b) => v.sendLabels.includes((b.getAttribute("aria-label") || b.textContent || "").trim()));
  const stopByLabel = Array.from(document.querySelectorAll("button")).some((b) => v.stopLabels.includes((b.getAttribute("aria-label") || "").trim()) && !b.disabled);
  return {
    url: location.href,
    path: location.pathname,
    assistantTexts: turns.map(textOf),
    userTexts,
    stopPresent: !!document.querySelector(v.stopSelector) || stopByLabel,
    sendEnabled: !!(sendButton && !sendButton.disabled && sendButton.getAttribute("aria-disabled") !== "true"),
    hidden: document.hidden,
  };
}
