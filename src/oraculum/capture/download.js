// Activates one artifact control and reads the bytes the UI itself produces.
//
// Closure-free (evaluated as text in the page). Temporary hooks see every way the web app may
// hand over a file: a click on an anchor with `download` or a blob:/data: href, a programmatic
// anchor click, window.open, and fetch responses that are attachments. Navigation-style
// downloads are prevented and re-read with fetch in the page realm, so the bytes come with the
// page's own cookies. Every hook is restored in `finally`.
//
// request = { selector, maxBytes, timeoutMs, pollCount, pollMs, settleMs }
async (request) => {
  const el = document.querySelector(request.selector);
  if (!el) return { ok: false, error: "control_missing", message: "The artifact control is gone." };
  const captured = [];
  const pending = new Set();
  const failures = [];
  const origFetch = window.fetch;
  const origOpen = window.open;
  const origClick = HTMLAnchorElement.prototype.click;

  const toBase64 = (bytes) => {
    let out = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(out);
  };
  const nameFromDisposition = (value) => {
    if (!value) return null;
    const star = value.match(/filename\*\s*=\s*[^']*'[^']*'([^;]+)/i);
    if (star) { try { return decodeURIComponent(star[1].trim()); } catch (e) { /* fall through */ } }
    const plain = value.match(/filename\s*=\s*"?([^";]+)"?/i);
    return plain ? plain[1].trim() : null;
  };
  const kindOf = (url) => {
    const m = String(url).match(/^([a-z][a-z0-9+.-]*):/i);
    return m ? m[1].toLowerCase() : "relative";
  };
  const readResponse = async (response, via, name) => {
    const type = response.headers.get("content-type") || "";
    const encoded = response.headers.get("content-encoding");
    const lengthHeader = response.headers.get("content-length");
    const declared = !encoded && lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
    if (declared !== null && declared > request.maxBytes) {
      failures.push(`The download declares ${declared} bytes, over the ${request.maxBytes}-byte limit.`);
      return;
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > request.maxBytes) {
      failures.push(`The download has ${bytes.length} bytes, over the ${request.maxBytes}-byte limit.`);
      return;
    }
    captured.push({
      via,
      name: name || nameFromDisposition(response.headers.get("content-disposition")) || null,
      contentType: type,
      declaredSize: declared,
      status: response.status,
      base64: toBase64(bytes),
    });
  };
  const follow = (url, name, viaHint) => {
    const via = viaHint || (kindOf(url) === "blob" ? "blob" : kindOf(url) === "data" ? "data" : "link");
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs);
    const task = origFetch.call(window, url, { credentials: "include", signal: controller.signal })
      .then((response) => readResponse(response, via, name))
      .catch((error) => failures.push(`Reading ${via} download failed: ${error && error.message}`))
      .finally(() => { clearTimeout(timer); pending.delete(task); });
    pending.add(task);
  };
  // Any link the control activates is read in place rather than followed: a download link
  // yields its bytes, and a plain link can never navigate the bound page away.
  const wantsAnchor = (a) => a && a.href && /^(https?|blob|data):/i.test(a.href);
  const onClick = (event) => {
    const a = event.target && event.target.closest ? event.target.closest("a") : null;
    if (!wantsAnchor(a)) return;
    event.preventDefault();
    follow(a.href, a.getAttribute("download") || null, null);
  };

  document.addEventListener("click", onClick, true);
  HTMLAnchorElement.prototype.click = function patchedClick() {
    if (wantsAnchor(this) && !this.isConnected) {
      // A detached anchor never reaches the document listener.
      follow(this.href, this.getAttribute("download") || null, null);
      return undefined;
    }
    return origClick.call(this);
  };
  window.open = function patchedOpen(url) {
    if (url) follow(new URL(String(url), document.baseURI).href, null, "open");
    return null;
  };
  window.fetch = async function patchedFetch(...args) {
    const response = await origFetch.apply(window, args);
    try {
      const type = (response.headers.get("content-type") || "").toLowerCase();
      const disposition = (response.headers.get("content-disposition") || "").toLowerCase();
      const isFile = disposition.includes("attachment") || /markdown|octet-stream|application\/pdf/.test(type);
      if (isFile && !/json|html/.test(type)) {
        const task = readResponse(response.clone(), "fetch", null)
          .catch((error) => failures.push(`Reading fetched download failed: ${error && error.message}`))
          .finally(() => pending.delete(task));
        pending.add(task);
      }
    } catch (error) { /* the app's own fetch must never break */ }
    return response;
  };

  try {
    el.click();
    for (let i = 0; i < request.pollCount && !captured.length && !pending.size; i += 1) {
      await new Promise((r) => setTimeout(r, request.pollMs));
    }
    const deadline = Date.now() + request.settleMs;
    while (pending.size && Date.now() < deadline) {
      await Promise.race([Promise.allSettled([...pending]), new Promise((r) => setTimeout(r, 100))]);
    }
  } finally {
    document.removeEventListener("click", onClick, true);
    HTMLAnchorElement.prototype.click = origClick;
    window.open = origOpen;
    window.fetch = origFetch;
  }
  if (captured.length) return { ok: true, ...captured[0] };
  if (failures.length) return { ok: false, error: "capture_failed", message: failures[0] };
  return { ok: false, error: "nothing_captured", message: "The control produced no download the page hooks could read." };
}
