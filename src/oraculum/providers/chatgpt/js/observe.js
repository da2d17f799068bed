// One look at the page, read in a single evaluation so every field describes the same moment.
// `v` is the vocabulary handed in from Python; this file holds no labels of its own.
(v) => {
  const turnSelector = v.turnSelectors.join(",");
  // Text outside the conversation turns: banners, dialogs, interstitials, the composer.
  const scoped = [];
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.matches(turnSelector)) return NodeFilter.FILTER_REJECT;
        const tag = node.tagName;
        if (tag === "SCRIPT" || tag === "STYLE" || tag === "NOSCRIPT" || tag === "TEMPLATE") return NodeFilter.FILTER_REJECT;
        return NodeFilter.FILTER_SKIP;
      }
      return NodeFilter.FILTER_ACCEPT;
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.nodeValue.trim();
    if (t) scoped.push(t);
  }
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
