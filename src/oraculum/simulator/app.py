"""HTTP routes of the look-alikes (ChatGPT, Grok). Handlers translate requests to `actions` and
back; what differs between the sites (page, sign-in cookie and form, API paths) is their `Site`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import BodyPartReader, web

from oraculum.simulator import actions, scenarios
from oraculum.simulator.locales import page_language
from oraculum.simulator.scenarios import MODELS_BY_PROVIDER, Scenario, ScenarioError
from oraculum.simulator.site import Site, site_for
from oraculum.simulator.state import Conversation, Selection, SimState, Turn
from oraculum.simulator.uploads import make_upload

STATIC_DIR = Path(__file__).parent / "static"
DEFAULT_EMAIL = "tester@example.com"
SESSION_MAX_AGE_S = 30 * 24 * 3600
# ChatGPT accepts archives up to 250 MiB; leave room for multipart framing.
MAX_UPLOAD = 300 * 1024 * 1024

STATE_KEY = web.AppKey("state", SimState)
SITE_KEY = web.AppKey("site", Site)


def _state(request: web.Request) -> SimState:
    return request.app[STATE_KEY]


def _site(request: web.Request) -> Site:
    return request.app[SITE_KEY]


def _template(name: str) -> str:
    return (STATIC_DIR / name).read_text(encoding="utf-8")


def _json_for_script(data: Any) -> str:
    # `</` would end the <script> element early.
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def _session_email(request: web.Request) -> str | None:
    state = _state(request)
    token = request.cookies.get(_site(request).session_cookie)
    if token and token in state.sessions:
        return state.sessions[token]
    return None if state.require_login else DEFAULT_EMAIL


def _text_page(status: int, title: str, message: str) -> web.Response:
    body = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{message}</p></body></html>"
    )
    return web.Response(status=status, text=body, content_type="text/html")


def _count_load(request: web.Request, flag: str, limit: int) -> bool:
    """Whether this page load shows `flag`'s interstitial; counted per browser session."""
    state = _state(request)
    key = f"{flag}:{request.cookies.get(_site(request).session_cookie, 'anonymous')}"
    seen = state.load_counts.get(key, 0)
    state.load_counts[key] = seen + 1
    return limit == 0 or seen < limit


def _interstitial(request: web.Request, scenario: Scenario) -> web.Response | None:
    if scenario.has("challenge") and _count_load(request, "challenge", scenario.challenge_loads):
        _state(request).record("challenge_served", path=request.path_qs)
        html = (
            _template("challenge.html")
            .replace("{{RETURN}}", _json_for_script(request.path_qs))
            .replace("{{HOST}}", _site(request).host)
        )
        # Cloudflare answers a challenge with 403 and this header.
        return web.Response(
            status=403, text=html, content_type="text/html", headers={"cf-mitigated": "challenge"}
        )
    if scenario.has("outage") and _count_load(request, "outage", scenario.outage_loads):
        _state(request).record("outage_served", path=request.path_qs)
        html = _template("outage.html").replace("{{TITLE}}", _site(request).title)
        return web.Response(status=500, text=html, content_type="text/html")
    return None


def _apply_model_knob(state: SimState, scenario: Scenario) -> None:
    model = scenarios.parse_model(scenario.model, scenario.provider)
    if model is not None:
        family, effort = model
        state.selection = dataclasses.replace(state.selection, family=family, effort=effort)


def _sidebar(state: SimState) -> list[dict[str, str]]:
    convs = sorted(state.conversations.values(), key=lambda c: c.created_at, reverse=True)
    return [{"id": c.id, "title": c.title} for c in convs[:30]]


def _prefill_config(state: SimState, scenario: Scenario) -> dict[str, Any] | None:
    """The earlier exchange a signed-in new chat shows under prefilled_thread, for the page."""
    if not scenario.has("prefilled_thread"):
        return None
    prefill_id, turns = actions.prefill(state, scenario)
    return {"id": prefill_id, "turns": [t.public(state) for t in turns]}


def _page(
    request: web.Request,
    scenario: Scenario,
    conv: Conversation | None,
    email: str | None,
    prefill: dict[str, Any] | None = None,
) -> web.Response:
    state = _state(request)
    site = _site(request)
    lang, texts = page_language(scenario.locale)
    config = {
        "provider": site.provider,
        "api": site.api,
        "signInPath": site.sign_in_path,
        "shell": scenario.shell,
        "picker": scenario.picker,
        "scenario": scenario.to_dict(),
        "texts": texts,
        "signedIn": email is not None,
        "user": {"email": email} if email else None,
        "conversation": (
            {
                "id": conv.id,
                "title": conv.title,
                "turns": [t.public(state) for t in conv.turns],
            }
            if conv
            else None
        ),
        "prefill": prefill,
        "selection": state.selection.to_dict(),
        "sidebar": _sidebar(state) if email else [],
        "deepResearchOrigin": state.widget_origin,
    }
    html = _template(site.page_template).replace("{{CONFIG}}", _json_for_script(config))
    html = html.replace('<html lang="en">', f'<html lang="{lang}">', 1)
    return web.Response(text=html, content_type="text/html", headers={"cache-control": "no-store"})


def _query_scenario(request: web.Request, base: Scenario) -> Scenario:
    return scenarios.apply(base, dict(request.query), strict=False)


async def home(request: web.Request) -> web.Response:
    state = _state(request)
    try:
        scenario = _query_scenario(request, state.defaults)
    except ScenarioError as error:
        return _text_page(400, "Simulator knob error", str(error))
    if scenario.has("login_expired"):
        token = request.cookies.get(_site(request).session_cookie)
        if token and state.sessions.pop(token, None):
            state.record("session_revoked")
    blocked = _interstitial(request, scenario)
    if blocked is not None:
        return blocked
    email = _session_email(request)
    if email is None:
        return _page(request, scenario, None, email)
    _apply_model_knob(state, scenario)
    return _page(request, scenario, None, email, _prefill_config(state, scenario))


async def conversation_page(request: web.Request) -> web.Response:
    state = _state(request)
    email = _session_email(request)
    if email is None:
        raise web.HTTPFound(
            _site(request).sign_in_path + "?" + urlencode({"next": request.path_qs})
        )
    conv = state.conversations.get(request.match_info["cid"])
    if conv is None:
        return _text_page(404, "Conversation not found", "Unable to load conversation.")
    try:
        # Knobs on a conversation URL stick to that conversation.
        conv.scenario = _query_scenario(request, conv.scenario)
    except ScenarioError as error:
        return _text_page(400, "Simulator knob error", str(error))
    blocked = _interstitial(request, conv.scenario)
    if blocked is not None:
        return blocked
    _apply_model_knob(state, conv.scenario)
    conv.refresh()
    return _page(request, conv.scenario, conv, email)


# -- auth ------------------------------------------------------------------------------------
async def login_form(request: web.Request) -> web.Response:
    site = _site(request)
    nxt = request.query.get("next", "/")
    alternatives = "".join(
        f'<button type="button" disabled>{escape(name)}</button>'
        for name in site.sign_in_alternatives
    )
    html = (
        _template("login.html")
        .replace("{{TITLE}}", escape(site.sign_in_title))
        .replace("{{HEADING}}", escape(site.sign_in_heading))
        .replace("{{ACTION}}", site.sign_in_path)
        .replace("{{ALTERNATIVES}}", alternatives)
        .replace("{{NEXT}}", quote(nxt, safe="/?=&%"))
    )
    return web.Response(text=html, content_type="text/html")


def _safe_next(nxt: str) -> str:
    # Only local paths: never an open redirect, even in a simulator.
    return nxt if nxt.startswith("/") and not nxt.startswith("//") else "/"


async def login_submit(request: web.Request) -> web.Response:
    form = await request.post()
    email = str(form.get("email") or DEFAULT_EMAIL).strip() or DEFAULT_EMAIL
    state = _state(request)
    token = state.new_session(email)
    state.record("login", email=email)
    response = web.HTTPFound(_safe_next(str(form.get("next") or "/")))
    # Persistent, like ChatGPT's session cookie: a session-only cookie would vanish when the
    # browser restarts, so a seed profile signed in here would never survive its own close.
    name = _site(request).session_cookie
    response.set_cookie(
        name,
        token,
        path="/",
        secure=name.startswith("__Secure-"),  # the prefix's rule (Gemini's cookie)
        httponly=True,
        samesite="Lax",
        max_age=SESSION_MAX_AGE_S,
    )
    raise response


async def logout(request: web.Request) -> web.Response:
    cookie = _site(request).session_cookie
    token = request.cookies.get(cookie)
    if token:
        _state(request).sessions.pop(token, None)
    response = web.HTTPFound("/")
    response.del_cookie(cookie, path="/")
    raise response


async def me(request: web.Request) -> web.Response:
    email = _session_email(request)
    if email is None:
        return web.json_response({"detail": "Unauthorized"}, status=401)
    return web.json_response(
        {
            "object": "user",
            "id": "user-simulated0000000000000001",
            "email": email,
            "name": "Simulated Tester",
            "mfa_flag_enabled": False,
        }
    )


def _require_api_session(request: web.Request) -> None:
    if _session_email(request) is None:
        raise web.HTTPUnauthorized(
            text=json.dumps({"detail": "Unauthorized"}), content_type="application/json"
        )


# -- conversation API ------------------------------------------------------------------------
def _conversation_or_404(request: web.Request) -> Conversation:
    conv = _state(request).conversations.get(request.match_info["cid"])
    if conv is None:
        raise web.HTTPNotFound(
            text=json.dumps({"detail": "conversation not found"}), content_type="application/json"
        )
    conv.refresh()
    return conv


def _turn_or_404(conv: Conversation, message_id: str) -> Turn:
    turn = conv.find(message_id)
    if turn is None:
        raise web.HTTPNotFound(
            text=json.dumps({"detail": "message not found"}), content_type="application/json"
        )
    return turn


def _bad_request(message: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=json.dumps({"detail": message}), content_type="application/json")


async def post_message(request: web.Request) -> web.Response:
    _require_api_session(request)
    state = _state(request)
    body = await request.json()
    # A site whose follow-ups have their own path (Grok's) names the conversation in it.
    conversation_id = request.match_info.get("cid") or body.get("conversation_id") or None
    try:
        if conversation_id:
            scenario = _conversation_or_404_by_id(state, conversation_id).scenario
        else:
            scenario = scenarios.apply(state.defaults, body.get("scenario") or {}, strict=True)
    except ScenarioError as error:
        raise _bad_request(str(error)) from None
    if scenario.has("rate_limit"):
        state.record("rate_limited", conversation_id=conversation_id)
        text = _site(request).rate_limit_text or actions.RATE_LIMIT_TEXT
        return web.json_response({"detail": text}, status=429)
    prompt = str(body.get("prompt") or "")
    attachments = [str(a) for a in body.get("attachments") or []]
    if not prompt.strip() and not attachments:
        raise _bad_request("empty message")
    try:
        sent = actions.send_message(
            state,
            conversation_id=conversation_id,
            prompt=prompt,
            attachments=attachments,
            scenario=scenario,
            tool=body.get("tool") or None,
            prefill_id=str(body.get("prefill_id") or "") or None,
        )
    except actions.Busy:
        return web.json_response({"detail": "still answering"}, status=409)
    except actions.UnknownPrefill:
        raise _bad_request("unknown prefill_id: that earlier exchange was never shown") from None
    _record_send_while_processing(state, sent, body.get("processing"))
    decoy_id = None
    if scenario.has("navigate_away"):
        decoy_id = actions.decoy(state, scenario).id
    return web.json_response(
        {
            "conversation_id": sent.conversation.id,
            "title": sent.conversation.title,
            "before": [t.public(state) for t in sent.before],
            "user": sent.user.public(state),
            "assistant": sent.assistant.public(state),
            "decoy_id": decoy_id,
        }
    )


def _record_send_while_processing(state: SimState, sent: actions.Sent, processing: Any) -> None:
    """drift_upload_lingers: the page names the chips still processing when Send was pressed;
    a careful driver never sends then, and tests assert this event never happens."""
    names = [str(name) for name in processing or []] if isinstance(processing, list) else []
    if names:
        state.record(
            "send_while_processing",
            conversation_id=sent.conversation.id,
            message_id=sent.user.message_id,
            names=names,
        )


def _conversation_or_404_by_id(state: SimState, conversation_id: str) -> Conversation:
    conv = state.conversations.get(conversation_id)
    if conv is None:
        raise web.HTTPNotFound(
            text=json.dumps({"detail": "conversation not found"}), content_type="application/json"
        )
    return conv


async def get_conversation(request: web.Request) -> web.Response:
    _require_api_session(request)
    conv = _conversation_or_404(request)
    state = _state(request)
    return web.json_response(
        {
            "id": conv.id,
            "title": conv.title,
            "scenario": conv.scenario.to_dict(),
            "turns": [t.public(state) for t in conv.turns],
        }
    )


async def _send_line(response: web.StreamResponse, data: dict[str, Any]) -> None:
    await response.write((json.dumps(data) + "\n").encode())


@dataclass
class _Told:
    """What one stream has told its reader so far."""

    sent: int = 0
    started: bool = False
    gap: bool = False
    paused: bool = False
    research: dict[str, Any] | None = None
    ended: bool = False


def _stream_events(turn: Turn, now: float, told: _Told) -> list[dict[str, Any]]:
    """The events due at ``now`` for a reader told ``told`` so far (``told`` is updated)."""
    events: list[dict[str, Any]] = []
    if not told.gap and turn.in_gap(now):
        # silent_gap_ms: reasoning is over but the answer has not begun.
        told.gap = True
        events.append({"t": "gap", "reasoning_label": turn.reasoning_label})
    if not told.started and not turn.thinking(now) and not turn.in_gap(now):
        told.started = True
        events.append(
            {
                "t": "start",
                "message_id": turn.message_id,
                "html": turn.html,
                "reasoning_label": turn.reasoning_label,
                "comparison": turn.comparison_view(),
            }
        )
    # pause_ms: mid-answer the stream holds; the page shows the text so far and nothing else.
    pausing = told.started and turn.in_pause(now)
    if told.paused and not pausing:
        told.paused = False
        events.append({"t": "resume"})
    due = turn.tokens_due(now)
    if told.started and due > told.sent:
        events.append({"t": "delta", "v": "".join(turn.tokens[told.sent : due])})
        told.sent = due
    if pausing and not told.paused:
        told.paused = True
        events.append({"t": "pause"})
    if told.started and turn.research_kind == "research":
        # Deep Research: the widget's live status, then its finished report.
        view = turn.research_view(now)
        if view != told.research:
            events.append({"t": "research", "research": view})
            told.research = view
    if turn.status == "error":
        events.append({"t": "error", "text": turn.error_text})
        told.ended = True
    elif turn.status in ("complete", "stopped"):
        events.append({"t": "done", "status": turn.status, "comparison": turn.comparison_view()})
        told.ended = True
    return events


def _stream_pause(turn: Turn, now: float, told: _Told) -> float:
    """How long the stream sleeps before its next look."""
    if told.sent >= turn.stream_end_token() and turn.research_s > 0:
        wait = 0.1  # the research phase: status changes are slow
    else:
        wait = turn.token_s if told.started else turn.answer_starts_at() - now
    return float(min(max(wait, 0.005), 0.1))


async def stream(request: web.Request) -> web.StreamResponse:
    """The answer as NDJSON events, paced by the turn's schedule (not by the reader)."""
    _require_api_session(request)
    conv = _conversation_or_404(request)
    turn = _turn_or_404(conv, request.match_info["mid"])
    response = web.StreamResponse(
        headers={"content-type": "application/x-ndjson", "cache-control": "no-store"}
    )
    await response.prepare(request)
    told = _Told()
    try:
        await _send_line(response, {"t": "thinking"})
        while not told.ended:
            now = time.time()
            turn.refresh(now)
            for event in _stream_events(turn, now, told):
                await _send_line(response, event)
            if not told.ended:
                await asyncio.sleep(_stream_pause(turn, now, told))
        await response.write_eof()
    except (ConnectionResetError, asyncio.CancelledError):
        # The page went away (reload, navigation); the schedule goes on without it.
        pass
    return response


async def stop_message(request: web.Request) -> web.Response:
    _require_api_session(request)
    conv = _conversation_or_404(request)
    turn = _turn_or_404(conv, request.match_info["mid"])
    actions.stop(_state(request), conv, turn)
    return web.json_response(turn.public(_state(request)))


async def retry_message(request: web.Request) -> web.Response:
    _require_api_session(request)
    conv = _conversation_or_404(request)
    turn = _turn_or_404(conv, request.match_info["mid"])
    try:
        actions.retry(_state(request), conv, turn)
    except ValueError as error:
        raise _bad_request(str(error)) from None
    return web.json_response(turn.public(_state(request)))


# -- uploads, files, settings ----------------------------------------------------------------
async def upload_file(request: web.Request) -> web.Response:
    _require_api_session(request)
    state = _state(request)
    reader = await request.multipart()
    name, data, content_type = "", b"", ""
    fields: dict[str, str] = {}
    while True:
        part = await reader.next()
        if part is None:
            break
        if not isinstance(part, BodyPartReader):
            continue
        if part.name == "file":
            name = part.filename or "upload.bin"
            content_type = part.headers.get("Content-Type", "")
            data = await part.read(decode=False)
        else:
            fields[str(part.name)] = await part.text()
    try:
        if fields.get("conversation_id"):
            scenario = _conversation_or_404_by_id(state, fields["conversation_id"]).scenario
        else:
            scenario = scenarios.apply(
                state.defaults, json.loads(fields.get("scenario") or "{}"), strict=True
            )
    except (ScenarioError, json.JSONDecodeError) as error:
        raise _bad_request(str(error)) from None
    if not name:
        raise _bad_request("no file part")
    if scenario.has("upload_fail"):
        state.record("upload_failed", name=name)
        return web.json_response({"detail": "Failed upload"}, status=500)
    upload = make_upload(name, data, content_type)
    state.uploads[upload.id] = upload
    state.record("upload", upload_id=upload.id, name=name, sha256=upload.sha256)
    return web.json_response(
        {"id": upload.id, "name": upload.name, "size": upload.size, "sha256": upload.sha256}
    )


async def download_file(request: web.Request) -> web.Response:
    blob = _state(request).files.get(request.match_info["fid"])
    if blob is None or blob.name != request.match_info["name"]:
        raise web.HTTPNotFound()
    headers = {"content-disposition": f'attachment; filename="{blob.name}"'}
    return web.Response(body=blob.data, content_type=blob.content_type, headers=headers)


def _selection_from(data: dict[str, Any], current: Selection, provider: str) -> Selection:
    chosen = dataclasses.replace(
        current,
        family=str(data.get("family", current.family)),
        effort=str(data.get("effort", current.effort)),
        auto_switch=bool(data.get("auto_switch", current.auto_switch)),
        version=str(data.get("version", current.version)),
    )
    if (chosen.family, chosen.effort) not in MODELS_BY_PROVIDER[provider]:
        raise _bad_request(f"no such model: {chosen.family}/{chosen.effort}")
    return chosen


async def set_model(request: web.Request) -> web.Response:
    _require_api_session(request)
    state = _state(request)
    state.selection = _selection_from(await request.json(), state.selection, state.provider)
    state.record("model_changed", **state.selection.to_dict())
    return web.json_response(state.selection.to_dict())


async def get_model(request: web.Request) -> web.Response:
    _require_api_session(request)
    return web.json_response(_state(request).selection.to_dict())


async def announcement_accept(request: web.Request) -> web.Response:
    """'Get started' on the announcement: switches the model. A driver must never press it."""
    _require_api_session(request)
    state = _state(request)
    state.selection = Selection(family="instant", effort="standard", auto_switch=False)
    state.record("announcement_get_started")
    return web.json_response(state.selection.to_dict())


async def page_event(request: web.Request) -> web.Response:
    """Things only the page sees (a dialog closed, the tab hidden) go into the event log."""
    data = await request.json()
    kind = str(data.pop("type", "page_event"))
    _state(request).record(f"page:{kind}", **{str(k): v for k, v in data.items()})
    return web.json_response({"ok": True})


# -- control endpoints for tests and people --------------------------------------------------
async def sim_get_scenario(request: web.Request) -> web.Response:
    return web.json_response(_state(request).defaults.to_dict())


async def sim_set_scenario(request: web.Request) -> web.Response:
    state = _state(request)
    try:
        body = await request.json()
        base = Scenario(provider=state.provider) if body.pop("reset", False) else state.defaults
        state.defaults = scenarios.apply(base, body, strict=True)
    except (ScenarioError, json.JSONDecodeError, AttributeError) as error:
        raise _bad_request(str(error)) from None
    return web.json_response(state.defaults.to_dict())


async def sim_seed(request: web.Request) -> web.Response:
    state = _state(request)
    body = await request.json()
    try:
        scenario = scenarios.apply(state.defaults, body.get("scenario") or {}, strict=True)
    except ScenarioError as error:
        raise _bad_request(str(error)) from None
    conv = actions.seed(state, body.get("turns") or [], scenario, title=body.get("title"))
    return web.json_response(
        {"conversation_id": conv.id, "path": _site(request).conversation_path(conv.id)}
    )


async def sim_session(request: web.Request) -> web.Response:
    body = await request.json() if request.can_read_body else {}
    token = _state(request).new_session(str(body.get("email") or DEFAULT_EMAIL))
    return web.json_response({"name": _site(request).session_cookie, "value": token})


async def sim_whoami(request: web.Request) -> web.Response:
    """The signed-in email of this browser, for every site (Grok has no identity endpoint)."""
    token = request.cookies.get(_site(request).session_cookie)
    email = _state(request).sessions.get(token or "")
    if email is None:
        return web.json_response({"detail": "Unauthorized"}, status=401)
    return web.json_response({"email": email})


async def sim_state(request: web.Request) -> web.Response:
    state = _state(request)
    return web.json_response(
        {
            "provider": state.provider,
            "defaults": state.defaults.to_dict(),
            "require_login": state.require_login,
            "selection": state.selection.to_dict(),
            "conversations": [
                {
                    "id": c.id,
                    "title": c.title,
                    "scenario": c.scenario.to_dict(),
                    "turns": [t.public(state) | {"text": t.text} for t in c.turns],
                }
                for c in state.conversations.values()
            ],
            "uploads": [
                {"id": u.id, "name": u.name, "size": u.size, "sha256": u.sha256}
                for u in state.uploads.values()
            ],
            "events": state.events[-200:],
        }
    )


def _add_api_routes(app: web.Application, site: Site) -> None:
    api = site.api
    app.router.add_post(api["send"], post_message)
    if "followup" in api:
        app.router.add_post(api["followup"], post_message)
    app.router.add_get(api["conversation"], get_conversation)
    app.router.add_get(api["stream"], stream)
    app.router.add_post(api["stop"], stop_message)
    app.router.add_post(api["retry"], retry_message)
    app.router.add_post(api["upload"], upload_file)
    app.router.add_get(api["model"], get_model)
    app.router.add_post(api["model"], set_model)
    app.router.add_post(api["page_event"], page_event)


def create_app(state: SimState) -> web.Application:
    site = site_for(state.provider)
    app = web.Application(client_max_size=MAX_UPLOAD)
    app[STATE_KEY] = state
    app[SITE_KEY] = site
    app.router.add_get("/", home)
    for route in site.home_routes:
        app.router.add_get(route, home)
    for route in site.conversation_routes:
        app.router.add_get(route, conversation_page)
    app.router.add_get(site.sign_in_path, login_form)
    app.router.add_post(site.sign_in_path, login_submit)
    app.router.add_get("/auth/logout", logout)
    _add_api_routes(app, site)
    if site.has_identity_endpoint:
        app.router.add_get("/backend-api/me", me)
    if site.provider == "chatgpt":
        app.router.add_post("/backend-api/announcement/accept", announcement_accept)
    app.router.add_get("/files/{fid}/{name}", download_file)
    app.router.add_get("/__sim/scenario", sim_get_scenario)
    app.router.add_post("/__sim/scenario", sim_set_scenario)
    app.router.add_post("/__sim/seed", sim_seed)
    app.router.add_post("/__sim/session", sim_session)
    app.router.add_get("/__sim/session", sim_whoami)
    app.router.add_get("/__sim/state", sim_state)
    app.router.add_static("/static", STATIC_DIR)
    return app
