"""What covers or hides the control a driver goes for, and the safe way a careful person clears
it (pure: the in-page reading is `js/obstacles.js`, the loop that acts is `obstacle_guard`).

The policy: Escape first; then a button whose name is in the provider's dismiss vocabulary;
never a button whose name holds a forbidden phrase (upgrade, buy, enable, change the model,
accept all cookies) — a forbidden phrase wins over a dismiss phrase in the same name. What
nothing in the policy clears is `page_obstructed`, named by role and accessible name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from oraculum.core.errors import ErrorCode, OracleError

__all__ = [
    "ESCAPE",
    "MAX_ATTEMPTS",
    "DismissVocabulary",
    "Dismissal",
    "Obstacle",
    "intercepting_element",
    "next_step",
    "page_obstructed",
]

ESCAPE = "Escape"
# Every way the policy offers to one obstacle is tried at most once; this bounds a whole
# clearing (obstacles that keep coming back included).
MAX_ATTEMPTS = 8


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def _holds(name: str, phrase: str) -> bool:
    """``phrase`` appears in ``name`` as whole words (case and spacing ignored)."""
    return re.search(rf"(?<!\w){re.escape(_norm(phrase))}(?!\w)", _norm(name)) is not None


@dataclass(frozen=True)
class DismissVocabulary:
    """One provider's words for closing what covers its page (its vocabulary module's)."""

    dismiss: tuple[str, ...]
    forbidden: tuple[str, ...]

    def forbids(self, name: str) -> bool:
        return any(_holds(name, phrase) for phrase in self.forbidden)

    def dismisses(self, name: str) -> bool:
        """A button a person presses to get rid of the obstacle and nothing else."""
        return bool(name.strip()) and not self.forbids(name) and self.rank(name) is not None

    def rank(self, name: str) -> int | None:
        """Where ``name`` stands in the dismiss list (the list's order is the preference)."""
        for index, phrase in enumerate(self.dismiss):
            if _holds(name, phrase):
                return index
        return None

    def to_js(self) -> dict[str, Any]:
        return {"dismiss": list(self.dismiss), "forbidden": list(self.forbidden)}


@dataclass(frozen=True)
class Obstacle:
    """Something over (or hiding) the target: a modal dialog, a backdrop, a banner, a toast."""

    kind: str  # modal | covering
    role: str  # dialog, alertdialog, region, status, … or the element's tag when it has none
    name: str  # its accessible name ("" when it has none)
    buttons: tuple[str, ...] = ()
    mark: str = field(default="", compare=False)  # which reading marked its buttons

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.role, self.name)

    def describe(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else f"{self.role} (unnamed)"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "role": self.role, "name": self.name, "buttons": self.buttons}

    @classmethod
    def from_js(cls, data: dict[str, Any]) -> Obstacle:
        return cls(
            kind=str(data.get("kind") or "covering"),
            role=str(data.get("role") or "unknown"),
            name=str(data.get("name") or "").strip(),
            buttons=tuple(str(b).strip() for b in data.get("buttons") or ()),
            mark=str(data.get("mark") or ""),
        )


@dataclass(frozen=True)
class Dismissal:
    """One attempt at clearing an obstacle: what it was, and which control (or Escape)."""

    obstacle: Obstacle
    control: str  # ESCAPE or a button's accessible name
    cleared: bool = False
    wanted: str = ""  # the control the driver was going for

    def describe(self) -> str:
        how = "Escape" if self.control == ESCAPE else f'button "{self.control}"'
        verdict = "cleared it" if self.cleared else "did not clear it"
        return f"{self.obstacle.describe()} over {self.wanted or 'the page'}: {how} {verdict}"

    def to_json(self) -> dict[str, Any]:
        return {
            **self.obstacle.to_json(),
            "control": self.control,
            "cleared": self.cleared,
            "wanted": self.wanted,
        }


def next_step(obstacle: Obstacle, tried: Iterable[str], vocab: DismissVocabulary) -> str | None:
    """The next way to clear ``obstacle`` given the controls already ``tried`` on it: Escape,
    then its dismiss buttons in the vocabulary's order; None when the policy has nothing left
    (never a forbidden button, never one tried before)."""
    done = set(tried)
    if ESCAPE not in done:
        return ESCAPE
    allowed = [b for b in obstacle.buttons if b not in done and vocab.dismisses(b)]
    if not allowed:
        return None
    return min(allowed, key=lambda b: vocab.rank(b) or 0)


def page_obstructed(obstacle: Obstacle, wanted: str, tried: Sequence[str]) -> OracleError:
    """Nothing the policy allows cleared ``obstacle``: name it, and what was wanted."""
    how = ", ".join("Escape" if t == ESCAPE else f'"{t}"' for t in tried) or "nothing"
    buttons = ", ".join(f'"{b}"' for b in obstacle.buttons) or "none"
    return OracleError(
        ErrorCode.PAGE_OBSTRUCTED,
        f"{obstacle.describe()} covers {wanted or 'the page'} and nothing safe clears it "
        f"(tried {how}; its buttons: {buttons}). Nothing was accepted, upgraded or enabled.",
        retryable=True,
        details={
            "wanted": wanted,
            "observed": obstacle.to_json(),
            "tried": list(tried),
        },
        suggested_next_step=(
            "Open the provider in the auth browser (`oraculum auth --manual`), close the "
            "dialog or banner by hand, then resubmit; the job's logs hold its screenshot."
        ),
    )


_INTERCEPT = re.compile(r"<(?P<element>[^>\n]+)>[^\n]*?intercepts pointer events")


def intercepting_element(message: str) -> str | None:
    """The element Playwright's actionability error names as intercepting a click, if any."""
    found = _INTERCEPT.search(message)
    return found["element"].strip() if found else None
