// The page's text outside the conversation (banners, dialogs, interstitials, the composer),
// which every provider's page classifier judges: its text nodes in document order, leaving out
// whatever `inConversation(el)` says belongs to the conversation, and scripts, styles and
// templates. One expression, composed into the providers' observe.js as `scopedText` (their
// `// @use` line; oraculum.capture.page.packaged_script). DOM only.
((inConversation) => {
  const scoped = [];
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      if (node.nodeType === Node.ELEMENT_NODE) {
        if (inConversation(node)) return NodeFilter.FILTER_REJECT;
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
  return scoped;
})
