"""Gemini's composer words: the shared steps (`providers.composer_steps`: attach, type, send
and its acceptance by `providers.send`) over Gemini's controls — "Upload & tools" opens the
upload menu (facts §1.6: the file input exists only while it is open), "Send message" sends."""

from __future__ import annotations

from oraculum.providers import upload
from oraculum.providers.composer_steps import ComposerWords
from oraculum.providers.gemini import vocabulary as vocab
from oraculum.providers.gemini.page_state import rate_limited, upload_error

__all__ = ["WORDS"]

WORDS = ComposerWords(
    label="Gemini",
    send_label=vocab.SEND_LABEL,
    opener_label=vocab.TOOLS_LABEL,
    route=upload.UploadRoute(
        file_input_selector=vocab.FILE_INPUT_SELECTOR,
        entry_pattern=vocab.UPLOAD_ENTRY,
        menu_selectors=vocab.MENU_SELECTORS,
        wanted=f'a file input or an upload entry in "{vocab.TOOLS_LABEL}"',
    ),
    rate_limited=rate_limited,
    upload_error=upload_error,
)
