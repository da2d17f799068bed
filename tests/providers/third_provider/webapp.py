"""The third provider's web app: a tiny look-alike chat site, served by the test on loopback.

Signed out (no `third_session` cookie) it shows only a "Sign in" link; `/login` signs the
browser in. Signed in: a composer form (textarea, file input, Send, Stop) and the thread. Send
posts the prompt and the attached file's name; the first send creates a conversation at
`/c/<id>`; the reply streams for ``stream_ms`` (a busy turn and a Stop control), then shows its
answer (Markdown-like HTML with a code block) and a Copy action.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

COOKIE = "third_session"

PAGE = (Path(__file__).parent / "page.html").read_text(encoding="utf-8")
COMPOSER = """<form id="composer">
<textarea id="prompt" aria-label="Message Third"></textarea>
<input type="file" id="file" aria-label="Attach a file"><span id="chip" class="chip"></span>
<button type="submit" aria-label="Send">Send</button>
<button type="button" id="stop" aria-label="Stop" hidden>Stop</button>
</form>"""
SIGN_IN = '<a href="/login">Sign in</a>'


def answer_html(prompt: str) -> str:
    """The answer the site gives: the prompt quoted back, and a code block."""
    quoted = prompt.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f"<p>Third answer to: {quoted}</p>"
        '<pre><code class="language-python">print("third")\n</code></pre>'
        "<p>END-OF-ANSWER</p>"
    )


@dataclass
class Turn:
    role: str
    id: str
    html: str
    file: str | None = None
    ready_at: float = 0.0

    def to_json(self, now: float) -> dict[str, Any]:
        streaming = now < self.ready_at
        html = "<p>Thinking</p>" if streaming else self.html
        return {"role": self.role, "id": self.id, "html": html, "file": self.file,
                "streaming": streaming}  # fmt: skip


@dataclass
class Site:
    stream_ms: int = 400
    conversations: dict[str, list[Turn]] = field(default_factory=dict)
    sends: list[dict[str, Any]] = field(default_factory=list)  # what each Send posted
    lock: threading.Lock = field(default_factory=threading.Lock)

    def send(self, data: dict[str, Any]) -> str:
        with self.lock:
            self.sends.append(data)
            conversation = data.get("conversation") or secrets.token_hex(8)
            turns = self.conversations.setdefault(conversation, [])
            prompt = str(data.get("prompt") or "")
            user_html = prompt.replace("<", "&lt;")
            turns.append(Turn("user", f"u{len(turns)}", f"<p>{user_html}</p>", data.get("file")))
            ready = time.monotonic() + self.stream_ms / 1000
            turns.append(Turn("bot", f"b{len(turns)}", answer_html(prompt), None, ready))
            return conversation


class Server:
    """The site on an ephemeral loopback port, in a thread (a context manager)."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def _send(
            self, status: int, body: str, kind: str, headers: dict[str, str] | None = None
        ) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _signed_in(self) -> bool:
            return f"{COOKIE}=" in (self.headers.get("Cookie") or "")

        def do_GET(self) -> None:
            if self.path == "/login":
                cookie = f"{COOKIE}=signed-in; Max-Age=86400; Path=/; SameSite=Lax"
                self._send(302, "", "text/plain", {"Set-Cookie": cookie, "Location": "/"})
            elif self.path.startswith("/api/c/"):
                turns = site.conversations.get(self.path.removeprefix("/api/c/"))
                if turns is None:
                    self._send(404, "{}", "application/json")
                    return
                now = time.monotonic()
                body = json.dumps({"turns": [t.to_json(now) for t in turns]})
                self._send(200, body, "application/json")
            elif self.path == "/" or self.path.startswith("/c/"):
                signed_in = self._signed_in()
                page = PAGE.replace("{{header}}", "" if signed_in else SIGN_IN)
                page = page.replace("{{composer}}", COMPOSER if signed_in else "")
                self._send(200, page, "text/html; charset=utf-8")
            else:
                self._send(404, "not found", "text/plain")

        def do_POST(self) -> None:
            if self.path != "/api/send" or not self._signed_in():
                self._send(403, "{}", "application/json")
                return
            length = int(self.headers.get("Content-Length") or 0)
            conversation = site.send(json.loads(self.rfile.read(length) or b"{}"))
            self._send(200, json.dumps({"conversation": conversation}), "application/json")

    return Handler
