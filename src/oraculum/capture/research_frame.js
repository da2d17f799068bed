// The Deep Research widget iframe of one assistant turn, for Playwright to enter (it is
// cross-origin: only the browser's frame tree, not this realm, can read inside it).
//
// Closure-free; evaluated with evaluate_handle in the host page. With a message id, the iframe
// must sit in that message's exchange (in the reply in the classic shell; in a sibling block of
// the reply's own `data-turn-key` section in the redesigned one); without one, the page's last
// widget (used only for the live status line, never for capture).
//
// request = { messageId, messageIdAttributes, frameTitle, exchangeSelector }
(request) => {
  const selector = `iframe[title="${CSS.escape(request.frameTitle)}"]`;
  if (!request.messageId) {
    const all = document.querySelectorAll(selector);
    return all.length ? all[all.length - 1] : null;
  }
  const byId = request.messageIdAttributes
    .map((attr) => `[${attr}="${CSS.escape(request.messageId)}"]`)
    .join(", ");
  const message = document.querySelector(byId);
  if (!message) return null;
  const exchange = message.closest(request.exchangeSelector) || message;
  const frames = exchange.querySelectorAll(selector);
  return frames.length === 1 ? frames[0] : null;
}
