// One look at a Gemini page for the classifier, in a single evaluation.
// `v` is the vocabulary handed in from Python; this file holds no labels of its own.
// @use scopedText = oraculum.providers:js/scoped_text.js
(v) => {
  const inTurn = (el) => !!el.closest(v.replySelector) || !!el.closest(v.userSelector);
  // Text outside the turns: banners, dialogs, interstitials, the composer.
  const scoped = scopedText((el) => el.matches(v.replySelector) || el.matches(v.userSelector));
  const nameOf = (el) => (el.getAttribute("aria-label") || el.innerText || el.textContent || "").trim().toLowerCase();
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const loginCta = [...document.querySelectorAll('a, button, [role="button"], [role="link"], [role="menuitem"]')]
    .some((el) => !inTurn(el) && v.loginCtaNames.includes(nameOf(el)) && visible(el));
  const editable = document.querySelector(v.editableSelector);
  const tools = [...document.querySelectorAll("button")]
    .find((b) => v.toolsLabels.includes(b.getAttribute("aria-label") || "") && !inTurn(b));
  return {
    url: location.href,
    scopedText: scoped.join("\n").slice(0, 20000),
    signedIn: !!document.querySelector(v.accountSelector),
    loginCta,
    composerPresent: !!document.querySelector(v.composerSelector),
    editable: !!(editable && editable.isContentEditable),
    toolsPresent: !!(tools && !tools.disabled),
  };
}
