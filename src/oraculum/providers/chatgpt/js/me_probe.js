// Ask the app's own backend whether this browser is signed in (no-store, 5 s at most).
async (v) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    const response = await fetch(v.meEndpoint, { credentials: "include", cache: "no-store", signal: controller.signal });
    let hasId = false, hasEmail = false;
    try {
      const body = await response.json();
      hasId = typeof body.id === "string" && body.id.length > 0;
      hasEmail = typeof body.email === "string" && body.email.includes("@");
    } catch (e) { /* not JSON */ }
    return { status: response.status, hasId, hasEmail };
  } catch (e) {
    return { status: 0, hasId: false, hasEmail: false };
  } finally {
    clearTimeout(timer);
  }
}
