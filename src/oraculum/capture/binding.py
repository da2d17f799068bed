"""The collection binding: which one assistant turn a job's answer is, and checking a capture
against it. Pure functions; the page work lives in page.py and collect.py."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from oraculum.capture.page import TurnCapture
from oraculum.core.providers import conversation_id_from_url

__all__ = ["Binding", "BindingRefused", "conversation_id_from_url", "resolve_capture"]


@dataclass(frozen=True)
class Binding:
    conversation_id: str
    response_index: int
    message_id: str | None = None
    turn_sha256: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "conversationId": self.conversation_id,
            "responseIndex": self.response_index,
        }
        if self.message_id:
            data["messageId"] = self.message_id
        if self.turn_sha256:
            data["turnSha256"] = self.turn_sha256
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Binding | None:
        if not data or not data.get("conversationId") or data.get("responseIndex") is None:
            return None
        return cls(
            conversation_id=str(data["conversationId"]),
            response_index=int(data["responseIndex"]),
            message_id=data.get("messageId") or None,
            turn_sha256=data.get("turnSha256") or None,
        )


class BindingRefused(Exception):
    """The captured turn is not provably the bound one."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def resolve_capture(
    binding: Binding,
    capture: TurnCapture,
    *,
    archive_name: str | None = None,
    anchored: bool = False,
) -> Binding:
    """The binding after a successful ``capture`` of the bound turn, or BindingRefused.

    - the capture must come from the bound conversation;
    - with a message id, the page resolved the turn by identity (a shifted index is followed);
    - without one, a stored hash must match the turn's text, and when ``archive_name`` is given
      the user turn showing it must be unique and its first reply must be the captured turn:
      at the saved index (recollection), or wherever the page shows it when ``anchored`` (the
      first capture, which binds through that user turn rather than a count made before send);
    - the result records the identity (if the turn has one) and the text hash.
    """
    if not capture.ok:
        raise BindingRefused(capture.error or "capture_failed", capture.message or "")
    if capture.conversation_id != binding.conversation_id:
        raise BindingRefused(
            "conversation_mismatch",
            "Collection conversation binding does not match the current page.",
        )
    if binding.message_id:
        if capture.message_id != binding.message_id:
            raise BindingRefused(
                "bound_message_absent", "Bound response message ID is absent or ambiguous."
            )
    else:
        if archive_name is not None:
            anchor = capture.archive_anchor or {}
            matches = int(anchor.get("matches") or 0)
            if matches != 1:
                raise BindingRefused(
                    "archive_turn_ambiguous",
                    f"The job's archive {archive_name} is shown in {matches} user turns; "
                    "exactly one is required to recollect a positional binding.",
                )
            expected = capture.response_index if anchored else binding.response_index
            if anchor.get("followingIndex") != expected:
                raise BindingRefused(
                    "archive_turn_mismatch",
                    "The reply to the user turn showing the job's archive is not the "
                    + ("captured turn." if anchored else "turn at the saved response index."),
                )
        if binding.turn_sha256 and capture.turn_sha256 != binding.turn_sha256:
            raise BindingRefused(
                "bound_turn_changed",
                "The turn at the saved position no longer matches the saved text hash.",
            )
    index = capture.response_index if capture.response_index is not None else 0
    return replace(
        binding,
        response_index=index,
        message_id=binding.message_id or capture.message_id,
        turn_sha256=capture.turn_sha256,
    )
