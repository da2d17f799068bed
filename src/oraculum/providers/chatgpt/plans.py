"""Which plan a preset's model needs, read from the open model picker: the entries it shows
locked behind an upgrade control (the account's plan lacks them), and the refusal a job or
`doctor --live` gives when the wanted one is among them. Nothing is ever clicked."""

from __future__ import annotations

from collections.abc import Sequence

from oraculum.core.errors import ErrorCode, OracleError
from oraculum.providers.chatgpt import vocabulary as vocab
from oraculum.providers.chatgpt.labels import names_label
from oraculum.providers.chatgpt.page import ChatGPTPage


async def locked_entries(chat: ChatGPTPage) -> list[str]:
    """The names of the open picker's entries that carry an upgrade control."""
    script = chat.script("locked_row.js")
    controls = chat.page.locator(vocab.PICKER_SCOPE_SELECTOR).get_by_role(
        "button", name=vocab.UPGRADE_LABEL
    )
    names = [
        str(await controls.nth(i).evaluate(script, vocab.LOCKED_ROW_SELECTOR))
        for i in range(await controls.count())
    ]
    return [name for name in names if name]


def refusal(
    family: str, effort: str | None, preset: str, locked: Sequence[str]
) -> OracleError | None:
    """The refusal of a job for ``preset`` (its model ``family``/``effort``) when the picker
    showed that model among the ``locked`` entries; None when it is not locked (pure)."""
    target = vocab.power_stop_for(family, effort)
    labels = {target, vocab.FAMILY_LABELS[family]}
    if any(names_label(name, label) for name in locked for label in labels):
        return _not_in_plan(preset, target, locked)
    return None


def _not_in_plan(preset: str, target: str, locked: Sequence[str]) -> OracleError:
    plan = vocab.PLAN_FOR_STOP.get(target, vocab.HIGHER_PLAN)
    return OracleError(
        ErrorCode.MODEL_NOT_IN_PLAN,
        f"This ChatGPT account cannot use preset {preset}: its model picker shows {target!r} "
        f'locked behind "Upgrade" ({preset} needs {plan}). Nothing was sent.',
        details={"preset": preset, "wanted": target, "plan": plan, "locked": list(locked)},
        suggested_next_step=f"Pass `--preset` with a model the account has (`oraculum presets`), "
        f"set `defaults.preset` in the config, or use an account with {plan}.",
    )
