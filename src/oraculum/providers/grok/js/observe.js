// One look at a Grok page for the classifier, in a single evaluation.
// `v` is the vocabulary handed in from Python; this file holds no labels of its own.
// @use scopedText = oraculum.providers:js/scoped_text.js
(v) => {
  const inMessage = (el) => !!el.closest(v.bubbleSelector) || !!el.closest(v.assistantRoleSelector);
  // Text outside the messages: banners, dialogs, interstitials, the composer.
  const scoped = scopedText((el) => el.matches(v.bubbleSelector) || el.matches(v.assistantRoleSelector));
  const nameOf = (el) => (el.getAttribute("aria-label") || el.innerText || el.textContent || "").trim().toLowerCase();
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  // A login call to action: a button, link or menu item named exactly like one (facts §5).
  const loginCta = [...document.querySelectorAll('a, button, [role="button"], [role="link"], [role="menuitem"]')]
    .some((el) => !inMessage(el) && v.loginCtaNames.includes(nameOf(el)) && visible(el));
  const labelled = (label) => [...document.querySelectorAll("[aria-label]")]
    .filter((el) => el.getAttribute("aria-label") === label && !inMessage(el));
  const composer = labelled(v.composerLabel).find((el) => el.getAttribute("role") === "textbox");
  const editable = document.querySelector(v.editableSelector);
  const attach = labelled(v.attachLabel).find((el) => el.tagName === "BUTTON" || el.getAttribute("role") === "button");
  return {
    url: location.href,
    scopedText: scoped.join("\n").slice(0, 20000),
    loginCta,
    composerPresent: !!composer,
    editable: !!(editable && editable.isContentEditable),
    attachPresent: !!(attach && !attach.disabled),
  };
}
