"""Pure collection rules: URL safety, redaction, Markdown, fidelity, gaps, binding."""

from __future__ import annotations

import pytest

from oraculum.capture import outcome
from oraculum.capture.binding import (
    Binding,
    BindingRefused,
    conversation_id_from_url,
    resolve_capture,
)
from oraculum.capture.markdown import fence_for, html_to_markdown
from oraculum.capture.outcome import Fidelity, Gaps
from oraculum.capture.page import CodeBlock, TurnCapture, turn_sha256
from oraculum.capture.redact import (
    REDACTED,
    carries_secret,
    literal_urls,
    redact_transport_secrets,
    safe_url,
)

# (href, base, expected safe absolute URL or None); capture.js must agree (see the browser tests).
SAFE_URL_CASES = [
    ("https://example.invalid/source?case=synthetic&v=1#evidence", None,
     "https://example.invalid/source?case=synthetic&v=1#evidence"),
    ("/docs/a", "http://127.0.0.1:9/c/x", "http://127.0.0.1:9/docs/a"),
    ("https://s3.example/f.pdf?X-Amz-Signature=abc&X-Amz-Date=1", None, None),
    ("https://g.example/f?x-goog-signature=1", None, None),
    ("https://a.example/f?SIG=1", None, None),
    ("https://a.example/f?se=2099&sp=r&sv=1", None, None),
    ("https://a.example/f?Key-Pair-Id=K&Policy=p", None, None),
    ("https://a.example/f?access_token=t", None, None),
    ("https://a.example/f?a=1&amp;token=t", None, None),
    ("https://a.example/f?signed=1&tokens=2", None, "https://a.example/f?signed=1&tokens=2"),
    ("javascript:alert(1)", None, None),
    ("blob:http://127.0.0.1/abc", None, None),
    ("data:text/plain,hi", None, None),
    ("sandbox:/mnt/data/report.pdf", None, None),
    ("", None, None),
]  # fmt: skip


@pytest.mark.parametrize(("href", "base", "expected"), SAFE_URL_CASES)
def test_safe_url(href: str, base: str | None, expected: str | None) -> None:
    assert safe_url(href, base) == expected


def test_redaction_replaces_signed_urls_and_keeps_stable_ones() -> None:
    stable = "https://example.invalid/source?case=synthetic&v=1#evidence"
    signed = "https://files.example/x.pdf?sig=SECRET&se=2099"
    text = f"See {stable}. Download ({signed}) or <{signed.replace('&', '&amp;')}>."
    out = redact_transport_secrets(text)
    assert stable in out
    assert "SECRET" not in out
    assert out.count(REDACTED) == 2
    assert out.endswith(f"({REDACTED}) or <{REDACTED}>.")
    assert redact_transport_secrets(stable) == stable
    assert carries_secret(signed) and not carries_secret(stable)


def test_literal_urls_trim_sentence_punctuation_and_dedupe() -> None:
    text = "a https://x.test/a. b `https://x.test/b` c (https://x.test/a) d https://x.test/c,"
    assert literal_urls(text) == ["https://x.test/a", "https://x.test/b", "https://x.test/c"]


def _pre(code: str, language: str = "") -> str:
    cls = f' class="language-{language}"' if language else ""
    # ChatGPT's shape: a presentation <pre> holding a header and the leaf <pre><code>.
    return (
        f'<pre class="wrapper"><div><div class="code-header"><span>{language or "text"}</span>'
        f'</div><button aria-label="Copy code">Copy code</button><div><pre><code{cls}>'
        f"{code}</code></pre></div></div></pre>"
    )


def test_markdown_code_fences_are_longer_than_backtick_runs() -> None:
    code = "echo ```nested``` and ````four````"
    md = html_to_markdown(f"<div>{_pre(code, 'bash')}</div>")
    assert md == f"`````bash\n{code}\n`````"
    assert fence_for("no ticks") == "```"
    assert fence_for("a ` b") == "```"


def test_markdown_tables_lists_quotes_and_links() -> None:
    html = (
        '<div class="markdown"><h2>Plan</h2><p>Read <a href="/docs">the docs</a> and '
        '<a href="https://f.example/x?sig=1">the signed file</a>.</p>'
        "<ul><li>one<ul><li>one.a</li></ul></li><li>two</li></ul>"
        "<ol><li>first</li><li>second</li></ol>"
        "<blockquote><p>quoted</p></blockquote>"
        "<table><thead><tr><th>Name</th><th>Note</th></tr></thead>"
        "<tbody><tr><td>a|b</td><td><code>x</code></td></tr></tbody></table>"
        '<div role="group"><button>Good response</button></div></div>'
    )
    md = html_to_markdown(html, "http://127.0.0.1:1/c/abc")
    assert md == (
        "## Plan\n\nRead [the docs](http://127.0.0.1:1/docs) and the signed file.\n\n"
        "- one\n  - one.a\n- two\n\n1. first\n2. second\n\n> quoted\n\n"
        "| Name | Note |\n| --- | --- |\n| a\\|b | `x` |"
    )


def test_markdown_counts_nested_pre_wrappers_once() -> None:
    md = html_to_markdown(f"<div><p>x</p>{_pre('print(1)', 'python')}</div>")
    assert md.count("```python") == 1
    assert "Copy code" not in md and "text" not in md.replace("print", "")


def test_single_markdown_block_is_exact_code() -> None:
    block = CodeBlock(1, "markdown", "# Title\n\n```python\nx\n```\n")
    choice = outcome.choose_response([block], "derived", "raw")
    assert choice == outcome.ResponseChoice(block.text, Fidelity.EXACT_CODE, "code_text_content")
    two = [block, CodeBlock(2, "md", "other")]
    assert outcome.choose_response(two, "derived", "raw").fidelity == Fidelity.DERIVED_MARKDOWN


def test_response_text_ends_with_a_newline() -> None:
    # response.md is a text file: it ends with exactly the newline the text had, or one added.
    block = CodeBlock(1, "markdown", "# Title\n\nbody\n")
    assert outcome.choose_response([block], "derived", "raw").text == block.text
    bare = CodeBlock(1, "markdown", "# Title")
    assert outcome.choose_response([bare], "derived", "raw").text == "# Title\n"
    assert outcome.choose_response([], "## Derived", "raw").text == "## Derived\n"
    assert outcome.choose_response([], "", "Plain answer.").text == "Plain answer.\n"


def test_text_only_fallback_strips_chrome_and_none_when_empty() -> None:
    choice = outcome.choose_response([], "", "Thought for 4s\nThe answer.\nWorked for 1m 7s")
    assert choice is not None and choice.text == "The answer.\n"
    assert choice.fidelity == Fidelity.TEXT_ONLY
    assert outcome.choose_response([], " ", "Stopped thinking") is None


def test_redaction_drops_fidelity_to_text_only() -> None:
    choice = outcome.ResponseChoice("see https://a.example/f?sig=1", Fidelity.EXACT_CODE, "m")
    redacted = outcome.redact_choice(choice)
    assert redacted.text == f"see {REDACTED}" and redacted.fidelity == Fidelity.TEXT_ONLY
    assert redacted.redacted
    clean = outcome.ResponseChoice("plain", Fidelity.DERIVED_MARKDOWN, "m")
    assert outcome.redact_choice(clean) is clean


def test_gaps_and_status() -> None:
    good = outcome.ResponseChoice("x", Fidelity.DERIVED_MARKDOWN, "m")
    empty = outcome.collection_gaps(
        choice=good, sources=[], inspection_state="inspected", artifacts=[]
    )
    assert empty.all() == [] and outcome.collection_status(True, empty) == "complete"

    redacted = outcome.ResponseChoice("x", Fidelity.TEXT_ONLY, "m", redacted=True)
    gaps = outcome.collection_gaps(
        choice=redacted,
        sources=[
            {"kind": "citation", "unresolved": True},
            {"kind": "artifact", "unresolved": True},  # a blob: download link is no citation
        ],
        inspection_state="failed",
        artifacts=[
            {"candidateId": "candidate-1", "state": "failed"},
            {"candidateId": "candidate-2", "state": "validated"},
            {"candidateId": "candidate-3", "state": "failed", "required": True},
            {"label": "legacy entry without state"},
        ],
        capture_errors=["boom\nsecond line"],
    )
    assert gaps.required == [
        "rich_response_fidelity",
        "redacted_transport_links",
        "unresolved_source_links",
        "artifact:candidate-3",
    ]
    assert gaps.optional == [
        "artifact_inspection:failed",
        "artifact:candidate-1",
        "capture_error:boom second line",
    ]
    assert outcome.collection_status(True, gaps) == "partial"
    assert outcome.collection_status(False, Gaps()) == "failed"
    missing = outcome.collection_gaps(
        choice=None, sources=[], inspection_state="inspected", artifacts=[]
    )
    assert missing.required == ["response"]


def test_inventory_adds_safe_literal_urls_only() -> None:
    sources = outcome.inventory_sources(
        [{"id": "source-1", "kind": "citation", "label": "a", "url": "https://a.example/"}],
        ["see https://a.example/ and https://b.example/x and https://c.example/f?sig=1"],
        None,
    )
    assert [s.get("url") for s in sources] == ["https://a.example/", "https://b.example/x"]


def _capture(**fields: object) -> TurnCapture:
    base: dict[str, object] = {
        "ok": True,
        "url": "http://h/c/conv-1",
        "conversation_id": "conv-1",
        "response_index": 1,
        "normalized_text": "The answer.",
    }
    base.update(fields)
    return TurnCapture(**base)  # type: ignore[arg-type]


def test_binding_learns_identity_and_hash() -> None:
    bound = resolve_capture(Binding("conv-1", 1), _capture(message_id="m-1"))
    assert bound == Binding("conv-1", 1, "m-1", turn_sha256("The answer."))
    assert bound.to_json_dict() == {
        "conversationId": "conv-1",
        "responseIndex": 1,
        "messageId": "m-1",
        "turnSha256": turn_sha256("The answer."),
    }
    assert Binding.from_json(bound.to_json_dict()) == bound


def test_identity_wins_over_a_shifted_index() -> None:
    bound = resolve_capture(
        Binding("conv-1", 1, "m-1"), _capture(message_id="m-1", response_index=3)
    )
    assert bound.response_index == 3 and bound.message_id == "m-1"


def test_binding_refusals() -> None:
    with pytest.raises(BindingRefused) as other:
        resolve_capture(Binding("conv-1", 1), _capture(conversation_id="conv-2"))
    assert other.value.code == "conversation_mismatch"
    positional = Binding("conv-1", 1, None, turn_sha256("Old text."))
    with pytest.raises(BindingRefused) as changed:
        resolve_capture(positional, _capture())
    assert changed.value.code == "bound_turn_changed"
    with pytest.raises(BindingRefused) as ambiguous:
        resolve_capture(
            Binding("conv-1", 1), _capture(archive_anchor={"matches": 2}), archive_name="a.zst"
        )
    assert ambiguous.value.code == "archive_turn_ambiguous"
    with pytest.raises(BindingRefused) as moved:
        resolve_capture(
            Binding("conv-1", 1),
            _capture(archive_anchor={"matches": 1, "followingIndex": 0}),
            archive_name="a.zst",
        )
    assert moved.value.code == "archive_turn_mismatch"
    ok = resolve_capture(
        Binding("conv-1", 1),
        _capture(archive_anchor={"matches": 1, "followingIndex": 1}),
        archive_name="a.zst",
    )
    assert ok.turn_sha256 == turn_sha256("The answer.")


def test_conversation_id_from_url() -> None:
    assert conversation_id_from_url("https://chatgpt.com/c/abc-123?x=1") == "abc-123"
    assert conversation_id_from_url("https://chatgpt.com/g/g-x/c/def") == "def"
    assert conversation_id_from_url("https://chatgpt.com/") is None
    assert conversation_id_from_url(None) is None
