"""Grok's composer words: the shared steps (`providers.composer_steps`: attach, type, send and
its acceptance by `providers.send`) over Grok's controls — "Attach" opens the upload menu,
"Submit" sends."""

from __future__ import annotations

from oraculum.providers import upload
from oraculum.providers.composer_steps import ComposerWords
from oraculum.providers.grok import vocabulary as vocab
from oraculum.providers.grok.page_state import rate_limited, upload_error

__all__ = ["WORDS"]

WORDS = ComposerWords(
    label="Grok",
    send_label=vocab.SUBMIT_LABEL,
    opener_label=vocab.ATTACH_LABEL,
    route=upload.UploadRoute(
        file_input_selector=vocab.FILE_INPUT_SELECTOR,
        entry_pattern=vocab.UPLOAD_ENTRY,
        menu_selectors=vocab.MENU_SELECTORS,
        wanted=f'a file input or an upload entry in "{vocab.ATTACH_LABEL}"',
    ),
    rate_limited=rate_limited,
    upload_error=upload_error,
)
