// Ask the app's own backend whether this browser is signed in (no-store, 5 s at most), and as
// whom (its email, else its name).
async (v) => {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    const response = await fetch(v.meEndpoint, { credentials: "include", cache: "no-store", signal: controller.signal });
    let hasId = false, hasEmail = false, identity = null;
    try {
      const body = await response.json();
      hasId = typeof body.id === "string" && body.id.length > 0;
      hasEmail = typeof body.email === "string" && body.email.includes("@");
      identity = hasEmail ? body.email : typeof body.name === "string" ? body.name : null;
    } catch (e) { /* not JSON */ }
    return { status: response.status, hasId, hasEmail, identity };
  } catch (e) {
    return { status: 0, hasId: false, hasEmail: false, identity: null };
  } finally {
    clearTimeout(timer);
  }
}
