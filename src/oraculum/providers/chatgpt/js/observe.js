// One look at the page, read in a single evaluation so every field describes the same moment.
// `v` is the vocabulary handed in from Python; this file holds no labels of its own.
// @use scopedText = oraculum.providers:js/scoped_text.js
(v) => {
  const turnSelector = v.turnSelectors.join(",");
  // Text outside the conversation turns: banners, dialogs, interstitials, the composer.
  const scoped = scopedText((el) => el.matches(turnSelector));
  const lowerStarts = (text) => {
    const s = (text || "").trim().toLowerCase();
    return v.loginCtaPrefixes.some((p) => s.startsWith(p));
  };
  let loginCta = false;
  for (const el of document.querySelectorAll('a[href*="/auth/login"], a[href*="/auth/signin"], button, a')) {
    if (el.closest(turnSelector)) continue;
    const tid = (el.getAttribute("data-testid") || "").toLowerCase();
    const label = el.innerText || el.getAttribute("aria-label") || el.getAttribute("title") || "";
    const href = el.getAttribute("href") || "";
    if (/login|log-in|sign-in|signin/.test(tid) || href.includes("/auth/login") || href.includes("/auth/signin") || lowerStarts(label)) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) { loginCta = true; break; }
    }
  }
  const path = location.pathname;
  const editor = document.querySelector(v.composerSelector);
  return {
    url: location.href,
    scopedText: scoped.join("\n").slice(0, 20000),
    loginCta,
    onAuthPage: v.authPathPrefixes.some((p) => path === p || path.startsWith(p + "/") || path.startsWith(p + "?")),
    stopPresent: !!document.querySelector(v.stopSelector),
    editorEditable: !!(editor && editor.isContentEditable),
    title: document.title,
  };
}
