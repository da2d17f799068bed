// What Grok's and Gemini's messages.js read the same way from their replies, whichever nodes
// each site calls a reply: a reply's readable copy without its chrome, its text as laid out
// off-screen, and the capture record of the one bound reply (sources, plain HTML, code blocks).
// One expression, composed into those scripts as `chatReplies` (their `// @use` line;
// oraculum.capture.page.packaged_script). `v` is the vocabulary; no labels here. DOM only.
// @use captureRules = oraculum.capture:capture_rules.js
({
  // (root) -> { copy, chrome }: a copy of `root` without the site's chrome (named in `chrome`).
  cleaner(v) {
    const patterns = captureRules.wholeText(v.chromePatterns);
    return (root) => {
      const copy = root.cloneNode(true);
      const chrome = captureRules.removeChrome(copy, v.chromeSelectors.join(","), patterns);
      return { copy, chrome };
    };
  },

  // A detached copy's text as innerText lays it out off-screen (its textContent when innerText
  // is empty: Gemini's facts §1.7), blank runs folded.
  textOf(copy) {
    const holder = document.createElement("div");
    holder.style.cssText = "position:fixed;left:-10000px;top:0;width:800px;";
    holder.append(copy);
    document.body.append(holder);
    let text = copy.innerText;
    if (!text || !text.trim()) text = copy.textContent || "";
    holder.remove();
    return text.replace(/\n{3,}/g, "\n\n").trim();
  },

  // The capture record of `reply` ({ copy, text, chrome }), the `index`-th of `count` replies;
  // `found` holds the rest of what the site read (messageId, reasoningLabel, archiveAnchor).
  captured(base, reply, index, count, found) {
    const { copy, text, chrome } = reply;
    for (const el of copy.querySelectorAll("script,style,form,input,textarea")) el.remove();
    const absolute = (href) => { try { return new URL(href, document.baseURI).href; } catch (e) { return null; } };
    const sources = [...copy.querySelectorAll("a[href]")].map((a, i) => ({
      id: `source-${i + 1}`, kind: "citation",
      label: (a.textContent || a.getAttribute("aria-label") || "").trim(),
      href: absolute(a.getAttribute("href")),
    }));
    // Only plain attributes survive into the saved HTML; hrefs are judged in Python.
    const KEPT = new Set(["class", "role", "aria-label", "colspan", "rowspan", "href"]);
    for (const el of [copy, ...copy.querySelectorAll("*")]) {
      for (const attr of [...el.attributes]) if (!KEPT.has(attr.name)) el.removeAttribute(attr.name);
    }
    const codeBlocks = captureRules.codeBlocks(copy);
    const title = copy.querySelector("h1,h2");
    return {
      ...base,
      ok: true,
      rootCount: count,
      responseIndex: index,
      messageId: found.messageId,
      rawText: text,
      normalizedText: text.replace(/\s+/g, " ").trim(),
      rawHtml: copy.outerHTML,
      title: title ? title.textContent.trim() : null,
      codeBlocks,
      sources,
      candidates: [],
      frames: [],
      reasoningLabel: found.reasoningLabel,
      archiveAnchor: found.archiveAnchor,
      chrome,
    };
  },
})
