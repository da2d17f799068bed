"""The obstacle layer's I/O: read what covers a target (`js/obstacles.js`), clear it by the pure
policy of `providers.obstacles`, record every attempt, and act on the target — again once when
Playwright says something intercepted the action.

Drivers reach it through their page view (`ScriptedPage.guarded_click` and friends), so every
click, fill, key press and upload is preceded by the same look and the same safe clearing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from oraculum.capture.page import packaged_script
from oraculum.providers.obstacles import (
    ESCAPE,
    MAX_ATTEMPTS,
    Dismissal,
    DismissVocabulary,
    Obstacle,
    intercepting_element,
    next_step,
    page_obstructed,
)

__all__ = ["ObstacleGuard", "ObstacleVocabulary"]

T = TypeVar("T")
# How long one attempt's effect is watched for before the next one is tried.
EFFECT_WAIT_S = 1.5
EFFECT_POLL_S = 0.1
DISMISS_CLICK_TIMEOUT_MS = 5_000
MARK = "data-oraculum-obstacle"


# ARIA roles (the spec's words, not a provider's): where an obstacle's root is found from what
# sits over the target, and the popups a driver opens itself (menus), never obstacles.
OBSTACLE_ROLES = ("dialog", "alertdialog", "region", "banner", "status", "alert", "complementary")
POPUP_ROLES = ("menu", "listbox", "tooltip")


@dataclass(frozen=True)
class ObstacleVocabulary:
    """What a provider's vocabulary gives the layer: its dismiss policy's words and where its
    composer is (the default target: ``target_selector`` holding ``target_has``)."""

    policy: DismissVocabulary
    target_selector: str
    target_has: str

    def reading_args(self) -> dict[str, Any]:
        return {
            "targetSelector": self.target_selector,
            "targetHas": self.target_has,
            "popupRoles": list(POPUP_ROLES),
            "obstacleRoles": list(OBSTACLE_ROLES),
            "mark": MARK,
        }


Recorder = Callable[[Dismissal], Awaitable[None]]


class ObstacleGuard:
    """One tab's obstacle layer. ``dismissals`` keeps every attempt, in order; ``on_dismissal``
    (set by the job's driver) records each one in the job as it happens."""

    def __init__(self, page: Page, vocabulary: ObstacleVocabulary) -> None:
        self.page = page
        self.vocabulary = vocabulary
        self.dismissals: list[Dismissal] = []
        self.on_dismissal: Recorder | None = None
        self.log: Callable[[str], None] = lambda _message: None
        self._script = packaged_script("oraculum.providers", "js/obstacles.js")

    async def read(self, target: Locator | None = None) -> list[Obstacle]:
        """What covers ``target`` (when it resolves to an element) or the composer region."""
        args = self.vocabulary.reading_args()
        handle = None
        if target is not None and await target.count():
            # A dialog arriving now can hide a role-found target between count and handle:
            # then what covers the composer region is read instead.
            with contextlib.suppress(PlaywrightError):
                handle = await target.first.element_handle(timeout=1_000)
        if handle is not None:
            reading = await handle.evaluate(self._script, args)
        else:
            reading = await self.page.evaluate(self._script, args)
        return [Obstacle.from_js(o) for o in reading["obstacles"]]

    async def clear(self, target: Locator | None = None, wanted: str = "") -> list[Obstacle]:
        """Clear whatever covers ``target`` by the policy, re-reading after each attempt;
        `page_obstructed` when the policy has nothing left for an obstacle still there.
        Returns the obstacles it saw (none: nothing was in the way)."""
        tried: dict[tuple[str, str, str], list[str]] = {}
        seen: list[Obstacle] = []
        for attempt in range(MAX_ATTEMPTS + 1):
            obstacles = await self.read(target)
            if not obstacles:
                return seen
            obstacle = obstacles[0]
            if obstacle not in seen:
                seen.append(obstacle)
            done = tried.setdefault(obstacle.key, [])
            step = next_step(obstacle, done, self.vocabulary.policy)
            if step is None or attempt == MAX_ATTEMPTS:
                error = page_obstructed(obstacle, wanted, done)
                self.log(f"obstacle not cleared: {json.dumps(error.details)}")
                raise error
            done.append(step)
            await self._attempt(obstacle, step)
            cleared = await self._gone(obstacle, target)
            await self._record(Dismissal(obstacle, step, cleared, wanted))
        return seen  # not reached: the last attempt raises

    async def act(self, target: Locator, wanted: str, action: Callable[[], Awaitable[T]]) -> T:
        """``action`` on ``target`` once nothing covers it; when Playwright still reports that
        an element intercepts it, or the action failed while an obstacle came over the page
        (a modal that inerts it makes a click wait instead), clear again and retry once; a
        second interception is `page_obstructed`, naming the element."""
        await self.clear(target, wanted)
        try:
            return await action()
        except PlaywrightError as exc:
            blocker = intercepting_element(str(exc))
            if blocker is None:
                arrived = await self.read(target)
                if not arrived:
                    raise
                blocker = f"{arrived[0].role} {arrived[0].name!r}"
            self.log(f"{wanted}: <{blocker}> intercepted the action; clearing and retrying once")
        if not await self.clear(target, wanted):
            await self.clear(None, wanted)  # the interceptor may sit over the composer only
        try:
            return await action()
        except PlaywrightError as exc:
            blocker = intercepting_element(str(exc))
            if blocker is None:
                raise
            raise page_obstructed(Obstacle("covering", "element", blocker), wanted, []) from exc

    async def _attempt(self, obstacle: Obstacle, step: str) -> None:
        if step == ESCAPE:
            await self.page.keyboard.press("Escape")
            return
        index = obstacle.buttons.index(step)
        # The reading marked each obstacle root and its buttons, in the order it reported them.
        control = self.page.locator(f'[{MARK}-button="{obstacle.mark}:{index}"]')
        try:
            await control.first.click(timeout=DISMISS_CLICK_TIMEOUT_MS)
        except PlaywrightError as exc:  # gone meanwhile, or itself covered: the re-read decides
            self.log(f"could not press {step!r} on {obstacle.describe()}: {exc}")

    async def _gone(self, obstacle: Obstacle, target: Locator | None) -> bool:
        deadline = time.monotonic() + EFFECT_WAIT_S
        while True:
            try:
                keys = {o.key for o in await self.read(target)}
            except PlaywrightError:  # a navigation mid-read: look again
                keys = {obstacle.key}
            if obstacle.key not in keys:
                return True
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(EFFECT_POLL_S)

    async def _record(self, dismissal: Dismissal) -> None:
        self.dismissals.append(dismissal)
        self.log(f"obstacle: {dismissal.describe()}")
        if self.on_dismissal is not None:
            await self.on_dismissal(dismissal)
