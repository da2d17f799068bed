// Reads one bound assistant turn out of the page, in a single evaluation.
//
// Closure-free on purpose: Playwright evaluates this text as a function in the page, so it may
// use nothing but its argument, the DOM and the capture rules it shares with Grok's messages.js
// (`captureRules`: binding and code blocks, bound around it by capture.page.packaged_script).
// It never searches the whole page for content: everything comes from the one bound root.
//
// request = {
//   mode: "capture" | "count",
//   expectConversationId: string | null,  // checked against this page before anything is read
//   conversationPattern: string,           // how a path names its conversation (the registry's)
//   responseIndex: number,                 // 0-based among assistant turn roots
//   messageId: string | null,              // identity wins over a shifted index
//   archiveName: string | null,            // the job's archive, as its user turn shows it
//   bindByArchive: boolean,                // bind to the first reply after that user turn
//   headingText: string, userHeadingText: string,
//   turn: {                                // the provider's words for what a turn holds
//     chromeSelectors: string[],           // controls and known chrome elements (structure)
//     chromePatterns: string[],            // whole texts of chrome notices ("Memory updated")
//     comparisonQuestions: string[],       // the preference question of a comparison
//     comparisonChoices: string[],         // its choice buttons ("I prefer this response")
//     candidateLabels: string[],           // a candidate's heading ("Response 2")
//   },
// }
// @use captureRules = oraculum.capture:capture_rules.js
(request) => {
  const ROLE_SELECTOR = '[data-message-author-role="assistant"], [data-testid="assistant-message"]';
  const USER_SELECTOR = '[data-message-author-role="user"]';
  const ID_ATTRS = ["data-message-id", "data-chatgpt-selection-message-id"];
  const ID_SELECTOR = ID_ATTRS.map((a) => `[${a}]`).join(",");
  const HEADING_SELECTOR = 'h1,h2,h3,h4,h5,h6,[role="heading"]';
  const KEPT_ATTRS = new Set([
    "class", "role", "aria-label", "colspan", "rowspan",
    "data-message-id", "data-message-author-role", "data-report-id",
  ]);
  const REMOVED_TAGS = "script,style,form,input,textarea";
  const SECRET_KEYS = new Set([
    "sig", "signature", "token", "access_token", "auth", "key-pair-id",
    "policy", "expires", "se", "sp", "sv",
  ]);
  const ARTIFACT_HREF = /sandbox:|\/files\/|estuary\/content|blob:/i;
  const DOC_EXT = "(?:md|txt|csv|tsv|json|pdf|docx|xlsx|pptx|zip|png|jpe?g)";
  const DOC_HREF = new RegExp(`\\.${DOC_EXT}(?:[?#].*)?$`, "i");
  const FILE_TOKEN = new RegExp(`[\\w][\\w.-]*\\.${DOC_EXT}\\b`, "i");
  const CONTROL_SELECTOR = 'a,button,[role="button"],[role="menuitem"]';
  const CONTAINER_SELECTOR = '[role="group"],li,p,figure,[data-testid*="file"]';
  const REASONING = /^(?:(?:Thought|Worked|Reasoned) for\b.{0,40}|Stopped thinking)$/i;
  const MAX_CONTROL_TEXT = 200;
  const turnWords = request.turn || {};
  const wholeText = captureRules.wholeText;
  const CHROME_PATTERNS = wholeText(turnWords.chromePatterns);
  const QUESTIONS = wholeText(turnWords.comparisonQuestions);
  const CANDIDATE_LABELS = wholeText(turnWords.candidateLabels);
  const CHOICES = new Set(turnWords.comparisonChoices || []);
  const CHROME_SELECTOR = (turnWords.chromeSelectors || ["button", '[role="button"]']).join(",");

  const { base, refusal } = captureRules.conversation(request.conversationPattern, request.expectConversationId);
  if (refusal) return refusal;

  const textOf = (el) => (el.innerText !== undefined && el.innerText !== null ? el.innerText : el.textContent) || "";
  const labelOf = (el) => (textOf(el).trim() || el.getAttribute("aria-label") || "").trim();
  const outermost = (nodes) => nodes.filter((n) => !nodes.some((o) => o !== n && o.contains(n)));
  const headingRoots = (label) =>
    [...document.querySelectorAll(HEADING_SELECTOR)]
      .filter((h) => (h.textContent || "").trim() === label)
      .map((h) => h.nextElementSibling)
      .filter(Boolean);

  const roleRoots = outermost([...document.querySelectorAll(ROLE_SELECTOR)]);
  const wrapped = headingRoots(request.headingText || "ChatGPT said:");
  const roots = wrapped.some((r) => textOf(r).trim()) ? wrapped : roleRoots;

  const identities = (root) => {
    const ids = new Set();
    const add = (el) => {
      for (const attr of ID_ATTRS) {
        const value = el.getAttribute(attr);
        if (value) ids.add(value);
      }
    };
    add(root);
    const ancestor = root.parentElement ? root.parentElement.closest(ID_SELECTOR) : null;
    if (ancestor) add(ancestor);
    for (const el of root.querySelectorAll(ID_SELECTOR)) add(el);
    return [...ids];
  };

  // The job's own exchange: the user turn that shows the job's archive, and the reply after it.
  // A first capture binds through it; a positional recollection checks its saved index by it.
  const userNodes = () => outermost([
    ...document.querySelectorAll(USER_SELECTOR),
    ...headingRoots(request.userHeadingText || "You said:"),
  ].filter((n, i, all) => all.indexOf(n) === i));
  const archiveAnchor = request.archiveName
    ? captureRules.archiveAnchor(userNodes(), roots, request.archiveName) : null;

  if (request.mode === "count") {
    return { ...base, ok: true, count: roots.length,
      messageIds: roots.map((r) => { const ids = identities(r); return ids.length === 1 ? ids[0] : null; }) };
  }

  const choice = captureRules.choose(request, roots.length,
    (i) => identities(roots[i]).includes(request.messageId), archiveAnchor,
    { userTurn: "user turn", reply: "assistant reply" });
  if (choice.refusal) return { ...base, ok: false, ...choice.refusal };
  const index = choice.index;
  const root = roots[index];
  const norm = (text) => (text || "").replace(/\s+/g, " ").trim();

  // A comparison: the turn holds several candidate replies (each its own assistant message)
  // and the page asks which one is preferred, by its question or its choice buttons.
  const comparisonOf = (turn) => {
    const nodes = outermost([...turn.querySelectorAll(ROLE_SELECTOR)]);
    if (nodes.length < 2) return null;
    const asks = (el) => QUESTIONS.some((q) => q.test(norm(el.textContent)));
    const asking = [...turn.querySelectorAll("*")].filter((el) => asks(el) && ![...el.children].some(asks));
    const offersChoice = [...turn.querySelectorAll(CONTROL_SELECTOR)].some((el) => CHOICES.has(labelOf(el)));
    if (!asking.length && !offersChoice) return null;
    const labelIn = (node) => {
      let column = node;
      while (column.parentElement && column.parentElement !== turn
        && !nodes.some((other) => other !== node && column.parentElement.contains(other))) column = column.parentElement;
      const label = [...column.querySelectorAll("*")].find((el) => !node.contains(el)
        && CANDIDATE_LABELS.some((p) => p.test(norm(el.textContent))));
      return label ? norm(label.textContent) : null;
    };
    return { question: asking.length ? norm(asking[0].textContent) : null, nodes,
      labels: nodes.map(labelIn) };
  };
  const comparison = comparisonOf(root);

  let ids = identities(root);
  if (comparison) {
    // Each candidate is its own message; an id on the turn around them is the first one's.
    const own = comparison.nodes.map((n) => [...new Set([n, ...n.querySelectorAll(ID_SELECTOR)]
      .flatMap((el) => ID_ATTRS.map((a) => el.getAttribute(a)).filter(Boolean)))]);
    const inside = new Set(own.flat());
    const around = ids.filter((id) => !inside.has(id));
    if (around.length === 1 && !own[0].length) own[0] = around;
    if (own.some((c) => c.length > 1) || around.length > 1 || (around.length === 1 && own[0][0] !== around[0])) {
      return { ...base, ok: false, error: "identity_ambiguous", rootCount: roots.length,
        message: "A compared response's message IDs cannot be told apart." };
    }
    comparison.ids = own.map((c) => c[0] || null);
    ids = comparison.ids[0] ? [comparison.ids[0]] : [];
  }
  if (ids.length > 1) {
    return { ...base, ok: false, error: "identity_ambiguous", rootCount: roots.length,
      message: `Bound response root spans several message IDs (${ids.length}).` };
  }
  if (request.messageId && ids[0] !== request.messageId) {
    return { ...base, ok: false, error: "bound_message_absent", rootCount: roots.length,
      message: "Bound response message ID is absent or ambiguous." };
  }

  const safeUrl = (href) => {
    if (!href) return null;
    let url;
    try { url = new URL(href, document.baseURI); } catch (e) { return null; }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    const query = url.search.replace(/^\?/, "").replace(/&amp;/g, "&");
    for (const part of query.split("&")) {
      if (!part) continue;
      let key = part.split("=")[0];
      try { key = decodeURIComponent(key.replace(/\+/g, " ")); } catch (e) { /* keep raw */ }
      key = key.trim().toLowerCase();
      if (SECRET_KEYS.has(key) || key.startsWith("x-amz-") || key.startsWith("x-goog-")) return null;
    }
    return url.href;
  };
  const hrefKind = (href) => {
    if (!href) return "none";
    const m = href.trim().match(/^([a-z][a-z0-9+.-]*):/i);
    if (!m) return "relative";
    return m[1].toLowerCase();
  };
  const fnv1a = (text) => {
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i += 1) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash.toString(16).padStart(8, "0");
  };

  // The text hash input: the whole turn (for a comparison, every candidate in it).
  const normalizedText = norm(textOf(root));

  // Artifact candidates: controls inside the root only, containers excluded.
  const counts = new Map();
  const candidates = [];
  [...root.querySelectorAll(CONTROL_SELECTOR)].forEach((el) => {
    const text = textOf(el).trim();
    if (el.querySelector(CONTROL_SELECTOR) || text.length > MAX_CONTROL_TEXT) return; // container
    const href = el.tagName === "A" ? el.getAttribute("href") || "" : "";
    const label = labelOf(el);
    const fileInLabel = FILE_TOKEN.test(label);
    const reasons = [];
    if (el.hasAttribute("download")) reasons.push("download_attribute");
    if (/download|export/i.test(label)) reasons.push("label");
    if (href && ARTIFACT_HREF.test(href)) reasons.push("file_href");
    if (el.tagName === "A" && DOC_HREF.test(href) && fileInLabel) reasons.push("document_link");
    if (!reasons.length) return;
    let fileName = el.getAttribute("download") || "";
    if (!fileName) {
      const container = el.closest(CONTAINER_SELECTOR);
      const m = container ? textOf(container).match(FILE_TOKEN) : null;
      if (m) fileName = m[0];
      else if (fileInLabel) fileName = label.match(FILE_TOKEN)[0];
    }
    const stable = fileName || el.getAttribute("aria-label") || el.getAttribute("title") || text || "Download";
    const occurrence = counts.get(stable) || 0;
    counts.set(stable, occurrence + 1);
    const mark = `oracle-capture-${index}-${candidates.length}`;
    el.setAttribute("data-oracle-capture", mark);
    candidates.push({
      candidateId: `candidate-${fnv1a(`${stable}|${occurrence}`)}`,
      selector: `[data-oracle-capture="${mark}"]`,
      label: stable,
      fileName: fileName || null,
      reasons,
      hrefKind: hrefKind(href),
      safeHref: href ? safeUrl(href) : null,
    });
  });

  const frames = [...root.querySelectorAll("iframe")].map((frame, i) => {
    const mark = `oracle-frame-${index}-${i}`;
    frame.setAttribute("data-oracle-capture", mark);
    return { selector: `[data-oracle-capture="${mark}"]`, src: safeUrl(frame.getAttribute("src")),
      srcKind: hrefKind(frame.getAttribute("src")) };
  });

  // One reply's content: its text, code blocks, sources (unsafe targets never returned, only
  // flagged) and sanitized HTML (a clone without chrome, active elements or unlisted
  // attributes; safe hrefs only).
  const readReply = (el) => {
    const sources = [...el.querySelectorAll("a[href]")].map((a, i) => {
      const href = a.getAttribute("href") || "";
      const artifact = a.hasAttribute("download") || ARTIFACT_HREF.test(href);
      const url = safeUrl(href);
      const source = { id: `source-${i + 1}`, kind: artifact ? "artifact" : "citation", label: labelOf(a) };
      if (url) source.url = url; else source.unresolved = true;
      return source;
    });
    const clone = el.cloneNode(true);
    const chrome = captureRules.removeChrome(clone, CHROME_SELECTOR, CHROME_PATTERNS);
    for (const removed of clone.querySelectorAll(REMOVED_TAGS)) removed.remove();
    for (const node of [clone, ...clone.querySelectorAll("*")]) {
      const href = node.tagName === "A" ? safeUrl(node.getAttribute("href")) : null;
      for (const attr of [...node.attributes]) {
        if (!KEPT_ATTRS.has(attr.name)) node.removeAttribute(attr.name);
      }
      if (href) node.setAttribute("href", href);
    }
    return { rawText: textOf(el), rawHtml: clone.outerHTML, codeBlocks: captureRules.codeBlocks(el),
      sources, chrome };
  };
  const replies = comparison ? comparison.nodes.map(readReply) : [readReply(root)];
  const primary = comparison ? comparison.nodes[0] : root;
  const titleEl = primary.querySelector("h1,h2");

  // The reasoning-time label: inside the root (classic) or in the header just before it.
  const findLabel = (scope) => {
    for (const el of [scope, ...scope.querySelectorAll("button,span,div,p")]) {
      const t = (el.textContent || "").trim();
      if (t.length <= 60 && REASONING.test(t)) return t;
    }
    return null;
  };
  let reasoningLabel = findLabel(root);
  for (let sib = root.previousElementSibling, n = 0; !reasoningLabel && sib && n < 4; sib = sib.previousElementSibling, n += 1) {
    if (sib.matches(`${USER_SELECTOR},${ROLE_SELECTOR}`) || sib.querySelector(`${USER_SELECTOR},${ROLE_SELECTOR}`)) break;
    reasoningLabel = findLabel(sib);
  }

  return {
    ...base,
    ok: true,
    rootCount: roots.length,
    responseIndex: index,
    messageId: ids.length === 1 ? ids[0] : null,
    ...replies[0],
    normalizedText,
    title: titleEl ? titleEl.textContent.trim() : null,
    comparison: comparison ? { question: comparison.question,
      replies: replies.map((reply, i) => ({ ...reply, messageId: comparison.ids[i],
        label: comparison.labels[i] })) } : null,
    candidates,
    frames,
    reasoningLabel,
    archiveAnchor,
  };
}
