"""Simulator knobs: what a conversation does, as plain data parsed from a query or JSON.

A scenario is chosen per conversation: the query string of the chat URL it was created from
(`/?scenario=challenge&think_ms=500`), else the server default (`POST /__sim/scenario`). Every
knob is documented in docs/simulator.md; `KNOBS` below is the single list the docs, the control
endpoint and the query parser share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from oraculum.simulator.locales import LOCALES

PROVIDERS = ("chatgpt", "grok", "gemini")
SHELLS = ("classic", "redesign")
PICKERS = ("legacy", "chips", "intelligence", "power")
# Issue 38 §7: the signed-in account's plan; the page locks what it lacks (docs/simulator.md).
PLANS = ("free", "plus", "pro")
ANSWERS = ("default", "markdown", "files", "files_only", "tricky", "echo", "receipt")
MESSAGE_ID_MODES = ("both", "selection", "none")
EFFORTS = ("light", "standard", "extended", "heavy")
# Which efforts each family offers (Instant has none of its own; its effort is ignored).
FAMILIES_EFFORTS = frozenset(
    {("instant", e) for e in EFFORTS}
    | {("thinking", e) for e in EFFORTS}
    | {("pro", "standard"), ("pro", "extended")}
)

# Grok's model menu (facts §5 names only "Heavy"; the others are what grok.com offers beside it).
GROK_MODELS = ("auto", "fast", "expert", "heavy")
MODELS_BY_PROVIDER: dict[str, frozenset[tuple[str, str]]] = {
    "chatgpt": FAMILIES_EFFORTS,
    "grok": frozenset(("grok", mode) for mode in GROK_MODELS),
}
# Gemini's mode picker (gemini-and-locale-facts.md §1.4); Deep Think only with its flag.
GEMINI_MODELS = ("fast", "thinking", "pro", "deep_think")
MODELS_BY_PROVIDER["gemini"] = frozenset(("gemini", mode) for mode in GEMINI_MODELS)

# Behaviours switched on by name in `scenario=a,b`.
FLAGS: dict[str, str] = {
    "login_expired": "the session cookie is revoked on load: logged-out page, /backend-api/me 401",
    "challenge": "a Cloudflare 'Just a moment…' interstitial for `challenge_loads` page loads",
    "outage": "a 'Something went wrong' page for `outage_loads` page loads",
    "rate_limit": "Send is refused with 'Too many requests' rate-limit text",
    "upload_fail": "every upload fails; the chip shows 'Failed upload'",
    "generation_error": "the answer fails mid-stream with a 'Retry' button (`error_times` times)",
    "stale_stop": "the stop control stays mounted after the stream ends (gone after reload)",
    "hidden_tab": "the tab turns hidden after `hidden_after_chars`; the stream freezes there",
    "navigate_away": "after `navigate_after_chars` the tab is moved to another conversation",
    "pro_feedback": "a 'Pro feedback' dialog (button 'Close') opens over the page",
    "announcement": "a product announcement ('Close dialog' / 'Get started') opens over the page",
    "prefilled_thread": "a new chat shows an earlier exchange `prefill_delay_ms` after it is ready",
    "extra_assistant": "each send adds an assistant message before the new user turn",
    # UI drift (issue 14 §4): same vocabulary, different mechanics.
    "drift_zero_height_slider": "the Power slider has a zero-height box; keys still step it",
    "drift_sticky_menu": "model-picker menus and dialogs ignore Escape and outside clicks",
    "drift_opener_relabel": "a picker's opener has another name while its menu is open",
    "drift_send_needs_text": "Send stays disabled on an empty composer, attachments or not",
    "drift_upload_lingers": "the upload chip shows 'Processing' for `upload_linger_ms` first",
    "drift_slow_picker": "a model-picker choice shows (and takes) `picker_delay_ms` after it",
    # Issue 37 §2-3: uploads without a standing file input, names that drift.
    "lazy_file_input": "no standing file input: the upload entry creates one for its chooser",
    "no_upload_path": "no file input and no upload entry in the attach menu",
    "drift_ambiguous_model": "two model entries share a base name ('GPT-5.6 Thinking', '5.5 …')",
    # Deep Research (issue 18): the report widget's variants.
    "dr_clarify": "a Deep Research send first gets a clarifying question; the reply starts it",
    "dr_no_export": "the finished research report has no Export button",
    "dr_no_widget_state": "the report frame's window.openai.widgetState stays null",
    "dr_unresolved_citation": "the report carries a citation token with no content_references",
    "dr_code_tokens": "the report has code fences holding token-like citation text",
    # Turn content (issue 37 §5-6): what the app puts in and around an answer.
    "comparison_answer": "a conversation's first reply is two candidates ('Response 1', "
    "'Response 2') under 'Which response do you prefer?', each with 'I prefer this response'; "
    "the second finishes `comparison_lag_ms` after the first",
    "turn_chrome": "the reply holds app chrome inside its turn: 'Thought for 25s', "
    "'Memory updated' + 'Manage memories', a 'Sources' pill and a feedback question",
    # Completion (issue 37 §4): what a finishing turn looks like between and after its phases.
    "label_only_turn": "during `silent_gap_ms` the turn's only text is its reasoning label",
    "rerender_at_end": "when the answer finishes, the turn's DOM is replaced by a fresh copy",
    # Obstacles (issue 37 §1): shown at `obstacle_at`; button presses and Escapes are events.
    "obstacle_modal": "an aria-modal dialog ('Not now' / 'Try it') aria-hides and inerts the page",
    "obstacle_backdrop": "a backdrop with no dismiss button covers the page; Escape closes it",
    "obstacle_consent": "a cookie consent region ('Accept all' / 'Reject non-essential') over it",
    "obstacle_unclearable": "a modal with only 'Upgrade' / 'Accept all' that ignores Escape",
    "send_after_text": "no Send button until the composer holds text (a voice button instead)",
}
# Gemini (issue 42 §1).
FLAGS["gemini_deep_think"] = "the Gemini account has Deep Think: the mode picker lists it"
OBSTACLE_FLAGS = frozenset(f for f in FLAGS if f.startswith("obstacle_"))
OBSTACLE_MOMENTS = ("load", "ready", "upload", "answer", "picker")


# The flags the Grok page reproduces; the others belong to ChatGPT's own UI (its pickers,
# dialogs and upload chip) and are refused on a Grok simulator rather than silently ignored.
GROK_FLAGS = frozenset(
    {
        "login_expired",
        "challenge",
        "outage",
        "rate_limit",
        "upload_fail",
        "generation_error",
        "stale_stop",
        "hidden_tab",
        "navigate_away",
        "prefilled_thread",
        "extra_assistant",
        "turn_chrome",
        "label_only_turn",
        "rerender_at_end",
        "lazy_file_input",
        "no_upload_path",
        *OBSTACLE_FLAGS,
    }
)
# Gemini's page has no /c/ decoy for navigate_away (its conversations are /app/<id>).
GEMINI_FLAGS = (GROK_FLAGS - {"navigate_away"}) | {"gemini_deep_think"}
FLAGS_BY_PROVIDER: dict[str, frozenset[str]] = {
    "chatgpt": frozenset(FLAGS) - {"gemini_deep_think"},
    "grok": GROK_FLAGS,
    "gemini": GEMINI_FLAGS,
}


class ScenarioError(ValueError):
    """A knob name or value the simulator does not know."""


@dataclass(frozen=True)
class Scenario:
    # Which site the simulator imitates: fixed per simulator, not a knob (never in a query).
    provider: str = "chatgpt"
    shell: str = "classic"
    picker: str = "power"
    flags: frozenset[str] = field(default_factory=frozenset)
    answer: str = "default"
    think_ms: int = 1200
    token_ms: int = 20
    hydrate_ms: int = 300
    upload_ms: int = 500
    challenge_loads: int = 0
    outage_loads: int = 1
    error_times: int = 1
    hidden_after_chars: int = 40
    navigate_after_chars: int = 40
    draft: str = ""
    reasoning_label: str = ""
    message_ids: str = "both"
    model: str = ""
    prefill_delay_ms: int = 400
    upload_linger_ms: int = 2500
    picker_delay_ms: int = 700
    research_ms: int = 4000
    research_reported_ms: int = 0
    comparison_lag_ms: int = 800
    silent_gap_ms: int = 0
    action_bar_delay_ms: int = 0
    # Issue 37 §3: names that drift.
    composer_label: str = ""
    model_prefix: str = ""
    power_stops: str = ""
    obstacle_at: str = "load"
    obstacle_delay_ms: int = 1500
    # Issue 37 §4: a silent pause in the middle of the answer.
    pause_ms: int = 0
    pause_at_chars: int = 200
    # Issue 42 §2: the page's UI language (its html lang and every label the driver reads).
    locale: str = "en"
    # Issue 38 §7: the account's plan (the Power slider locks the stops it lacks).
    plan: str = "pro"

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["flags"] = sorted(self.flags)
        return data

    def query(self) -> str:
        """The query string that recreates this scenario on a chat URL (non-defaults only)."""
        from urllib.parse import urlencode

        base = Scenario()
        pairs: list[tuple[str, str]] = []
        for name in KNOBS:
            value = getattr(self, name)
            if value == getattr(base, name):
                continue
            if name == "flags":
                pairs.append(("scenario", ",".join(sorted(value))))
            else:
                pairs.append((name, str(value)))
        return urlencode(pairs)


# Knob name -> (kind, allowed values or None, help). "flags" is spelled `scenario` outside.
KNOBS: dict[str, tuple[str, tuple[str, ...] | None, str]] = {
    "shell": ("choice", SHELLS, "page shell: classic labels or the redesigned ones"),
    "picker": ("choice", PICKERS, "which model picker the composer shows"),
    "flags": ("flags", tuple(FLAGS), "comma-separated behaviours (query key `scenario`)"),
    "answer": ("choice", ANSWERS, "answer template"),
    "think_ms": ("int", None, "delay between send and the first streamed token"),
    "token_ms": ("int", None, "delay between streamed tokens (one token ≈ one word)"),
    "hydrate_ms": ("int", None, "delay before the non-editable composer fallback hydrates"),
    "upload_ms": ("int", None, "how long the upload chip shows progress before it is ready"),
    "challenge_loads": ("int", None, "page loads that show the challenge (0 = every load)"),
    "outage_loads": ("int", None, "page loads that show the outage (0 = every load)"),
    "error_times": ("int", None, "attempts that fail under generation_error before one works"),
    "hidden_after_chars": ("int", None, "streamed characters before the tab turns hidden"),
    "navigate_after_chars": ("int", None, "streamed characters before the tab is moved away"),
    "draft": ("str", None, "text the composer restores as a saved draft when it hydrates"),
    "reasoning_label": ("str", None, "override the reasoning label, e.g. 'Worked for 1m 7s'"),
    "message_ids": ("choice", MESSAGE_ID_MODES, "which message-id attributes turns carry"),
    "model": ("str", None, "set the account's model on page load: 'pro/extended', Grok 'heavy'"),
    "prefill_delay_ms": ("int", None, "prefilled_thread: delay after hydrating (Send is sooner)"),
    "upload_linger_ms": ("int", None, "drift_upload_lingers: chip processing after the bytes"),
    "picker_delay_ms": ("int", None, "drift_slow_picker: how late a picker choice shows"),
    "research_ms": ("int", None, "Deep Research: wall-clock length of the research phase"),
    "research_reported_ms": ("int", None, "Deep Research: the length its header claims (0 = real)"),
    "comparison_lag_ms": ("int", None, "comparison_answer: how late the second candidate ends"),
    "silent_gap_ms": (
        "int",
        None,
        "after thinking: no stop control, no indicator, then the answer",
    ),
    "action_bar_delay_ms": ("int", None, "how long after the answer ends its action bar appears"),
    "composer_label": ("str", None, "the composer's accessible name ('none': no name)"),
    "model_prefix": ("str", None, "a family prefix on model names in pickers and pills"),
    "power_stops": ("str", None, "the Power slider's stops, comma-separated, in order"),
    "obstacle_at": ("choice", OBSTACLE_MOMENTS, "obstacle_*: when it shows (ready: after a delay)"),
    "obstacle_delay_ms": ("int", None, "obstacle_at=ready: how long after load it shows"),
    "pause_ms": ("int", None, "mid-answer hold: the text so far, no stop control, no indicator"),
    "pause_at_chars": ("int", None, "pause_ms: answer characters streamed before the pause"),
    "locale": ("choice", LOCALES, "UI language: html lang and labels (en, de, fr, es, ja, zh-cn)"),
    "plan": ("choice", PLANS, "the account's plan: the Power slider locks the stops it lacks"),
}

# Query keys that are part of a chat URL but not knobs (ignored, never an error).
_IGNORED_QUERY_KEYS = frozenset({"next", "model_slug", "utm_source", "q", "hints"})


def _parse_flags(value: Any) -> frozenset[str]:
    if isinstance(value, str):
        items: Iterable[str] = value.split(",")
    elif isinstance(value, Iterable):
        items = [str(v) for v in value]
    else:
        raise ScenarioError(f"scenario must be a string or a list, got {value!r}")
    flags = {item.strip() for item in items if item.strip() and item.strip() != "normal"}
    unknown = sorted(flags - set(FLAGS))
    if unknown:
        raise ScenarioError(
            f"unknown scenario {', '.join(unknown)}; known: normal, {', '.join(FLAGS)}"
        )
    return frozenset(flags)


def check_provider(provider: str) -> str:
    if provider not in PROVIDERS:
        raise ScenarioError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")
    return provider


def parse_model(value: str, provider: str = "chatgpt") -> tuple[str, str] | None:
    """ChatGPT: 'pro/extended', 'thinking', 'instant'; Grok: 'heavy' or 'grok/heavy'
    -> (family, effort); '' -> None."""
    if not value:
        return None
    text = value.replace("_", "/").strip().lower()
    if provider != "chatgpt":  # a site whose modes are one family, its own name
        mode = text.removeprefix(f"{provider}/")
        if (provider, mode) not in MODELS_BY_PROVIDER[provider]:
            modes = sorted(m for _, m in MODELS_BY_PROVIDER[provider])
            raise ScenarioError(f"model must be one of {', '.join(modes)}; got {value!r}")
        return provider, mode
    family, _, effort = text.partition("/")
    family, effort = family.strip(), (effort.strip() or "standard")
    if (family, effort) not in FAMILIES_EFFORTS:
        raise ScenarioError(f"model must be <family>[/<effort>], e.g. pro/extended; got {value!r}")
    return family, effort


def _check_flags_apply(flags: frozenset[str], provider: str) -> None:
    foreign = sorted(flags - FLAGS_BY_PROVIDER[provider])
    if foreign:
        raise ScenarioError(
            f"scenario {', '.join(foreign)} does not apply to {provider}; "
            f"{provider} has: {', '.join(sorted(FLAGS_BY_PROVIDER[provider]))}"
        )


def apply(base: Scenario, values: Mapping[str, Any], *, strict: bool = True) -> Scenario:
    """`base` with `values` applied. Unknown keys raise when `strict` (the control endpoint)."""
    changes: dict[str, Any] = {}
    for key, raw in values.items():
        if key == "provider":
            # A scenario read back from a page names its provider; it can never change it.
            if str(raw) != base.provider:
                raise ScenarioError(f"provider is {base.provider} for this simulator, not {raw!r}")
            continue
        name = "flags" if key == "scenario" else key
        if name not in KNOBS:
            if strict and key not in _IGNORED_QUERY_KEYS:
                raise ScenarioError(f"unknown knob {key!r}; known: scenario, {', '.join(KNOBS)}")
            continue
        kind, allowed, _ = KNOBS[name]
        if kind == "flags":
            changes[name] = _parse_flags(raw)
        elif kind == "int":
            try:
                number = int(raw)
            except (TypeError, ValueError):
                raise ScenarioError(f"{key} must be an integer, got {raw!r}") from None
            if number < 0:
                raise ScenarioError(f"{key} must be >= 0, got {number}")
            changes[name] = number
        elif kind == "choice":
            text = str(raw).strip().lower()
            if allowed is not None and text not in allowed:
                raise ScenarioError(f"{key} must be one of {', '.join(allowed)}; got {raw!r}")
            changes[name] = text
        else:
            changes[name] = str(raw)
    result = dataclasses.replace(base, **changes)
    # Validate early, at the URL that set them.
    _check_flags_apply(result.flags, result.provider)
    parse_model(result.model, result.provider)
    _check_power_stops(result.power_stops)
    return result


# The stops a `power_stops` list may name (the page maps each to a model).
POWER_STOP_NAMES = ("Instant", "Low", "Medium", "High", "Extra High", "Pro")


def _check_power_stops(value: str) -> None:
    stops = [stop.strip() for stop in value.split(",") if stop.strip()]
    unknown = [stop for stop in stops if stop not in POWER_STOP_NAMES]
    if unknown or (value and "Instant" not in stops[:1]):
        raise ScenarioError(
            f"power_stops must start with Instant and name only {', '.join(POWER_STOP_NAMES)}; "
            f"got {value!r}"
        )
