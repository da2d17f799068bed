"""English (the default: every concept the Grok driver matches is spelled here)."""

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Ask Grok anything",),
    "attach": ("Attach",),
    "upload_entry": ("Upload a file", "Upload files", "Upload file", "Upload from computer"),
    "submit": ("Submit",),
    "stop": ("Stop model response",),
    "retry": ("Retry",),
    "model_select": ("Model select",),
    "sign_in": ("Sign in",),
    "dismiss": (*shared.DISMISS_LABELS, "Not interested"),
    "forbidden": (*shared.FORBIDDEN_LABELS, "SuperGrok", "Get Premium"),
}
