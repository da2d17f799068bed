// One look at the third site for its classifier, in a single evaluation (labels come in `v`).
// @use scopedText = oraculum.providers:js/scoped_text.js
(v) => {
  const scoped = scopedText((el) => el.matches(v.turnSelector));
  const named = (el) => (el.getAttribute("aria-label") || el.textContent || "").trim().toLowerCase();
  const loginCta = [...document.querySelectorAll("a, button")].some((el) => v.signInNames.includes(named(el)));
  const prompt = [...document.querySelectorAll("textarea")].find((el) => el.getAttribute("aria-label") === v.promptLabel);
  return { url: location.href, scopedText: scoped.join("\n").slice(0, 20000), loginCta, composerReady: !!prompt && !prompt.disabled };
}
