// Observes the Deep Research report's Markdown export in the HOST page, without changing it.
//
// Closure-free (evaluated as text in the page's main frame). The sandboxed report frame cannot
// download by itself: it asks the host page, which makes a Blob, an object URL and an anchor with
// `download`, clicks it, then revokes the URL. While armed we remember the Blob behind every
// `URL.createObjectURL` and every anchor a click activates (document listener and the anchor
// `click` method, for detached anchors); nothing is prevented, so the browser performs its own
// download exactly as it would without us. `read` returns the bytes of the newest download.
//
// request = { op: "arm" | "read" | "disarm", maxBytes }
async (request) => {
  const KEY = "__oraculumResearchExport";
  const toBase64 = (bytes) => {
    let out = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      out += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(out);
  };
  if (request.op === "arm") {
    if (window[KEY]) return { ok: true, already: true };
    const state = {
      blobs: new Map(),
      anchors: [],
      origCreate: URL.createObjectURL,
      origClick: HTMLAnchorElement.prototype.click,
    };
    const remember = (a) => {
      if (a && a.href && (a.hasAttribute("download") || /^(blob|data):/i.test(a.href))) {
        state.anchors.push({ href: a.href, name: a.getAttribute("download") || null });
      }
    };
    state.onClick = (event) => {
      const a = event.target && event.target.closest ? event.target.closest("a") : null;
      remember(a);
    };
    URL.createObjectURL = function registeredCreate(obj) {
      const url = state.origCreate.call(URL, obj);
      if (obj instanceof Blob) state.blobs.set(url, obj);
      return url;
    };
    HTMLAnchorElement.prototype.click = function observedClick() {
      if (!this.isConnected) remember(this); // a detached anchor never reaches the listener
      return state.origClick.call(this);
    };
    document.addEventListener("click", state.onClick, true);
    window[KEY] = state;
    return { ok: true };
  }
  const state = window[KEY];
  if (!state) return { ok: false, error: "not_armed", message: "The export observer is not armed." };
  if (request.op === "disarm") {
    URL.createObjectURL = state.origCreate;
    HTMLAnchorElement.prototype.click = state.origClick;
    document.removeEventListener("click", state.onClick, true);
    delete window[KEY];
    return { ok: true };
  }
  const last = state.anchors[state.anchors.length - 1];
  if (!last) return { ok: false, error: "nothing_yet" };
  let bytes = null;
  if (/^blob:/i.test(last.href)) {
    const blob = state.blobs.get(last.href);
    if (!blob) return { ok: false, error: "unregistered_blob", message: "The download's Blob was not created while observed." };
    if (blob.size > request.maxBytes) return { ok: false, error: "too_large", message: `The export has ${blob.size} bytes.` };
    bytes = new Uint8Array(await blob.arrayBuffer());
  } else if (/^data:/i.test(last.href)) {
    if (last.href.length > 3 * request.maxBytes) return { ok: false, error: "too_large", message: "The export's data URL is too long." };
    bytes = new Uint8Array(await (await fetch(last.href)).arrayBuffer());
    if (bytes.length > request.maxBytes) return { ok: false, error: "too_large", message: `The export has ${bytes.length} bytes.` };
  } else {
    return { ok: false, error: "transport_url", message: "The export came from a transport URL, which is not fetched again." };
  }
  return { ok: true, name: last.name, size: bytes.length, base64: toBase64(bytes) };
}
