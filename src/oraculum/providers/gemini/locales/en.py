"""English (the default: every concept the Gemini driver matches is spelled here; facts §1)."""

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Enter a prompt for Gemini", "Enter a prompt here"),
    "send": ("Send message",),
    "stop": ("Stop response", "Stop generation"),  # the latter: builds before 2026-09
    "tools": ("Upload & tools", "Open upload file menu"),  # one menu since 2026-05
    "upload_entry": ("Upload files. Documents, data, code files", "Upload files", "Upload file"),
    "retry": ("Retry",),
    "sign_in": ("Sign in",),
    # The mode opener's name: "Open mode picker, currently Pro" (the words before the mode).
    "current_mode": ("currently",),
    "mode_fast": ("Fast", "Flash"),
    "mode_thinking": ("Thinking",),
    "mode_pro": ("Pro",),
    "mode_deep_think": ("Deep Think",),
    "dismiss": shared.DISMISS_LABELS,
    "forbidden": (*shared.FORBIDDEN_LABELS, "Cancel", "Google AI Pro", "Google AI Ultra"),
}
