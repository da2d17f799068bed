"""English (the default: every concept the driver matches is spelled here)."""

from oraculum.providers import shared_vocabulary as shared
from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Chat with ChatGPT", "Ask ChatGPT"),
    "send": ("Send prompt", "Send"),
    "stop": ("Stop answering", "Stop streaming", "Stop generating", "Stop"),
    "add_files": ("Add files and more",),
    "upload_entry": ("Add photos & files", "Add photos and files", "Upload from computer",
                     "Upload files", "Upload file"),
    "copy": ("Copy", "Copy response"),
    "feedback": ("Good response", "Bad response"),
    "retry": ("Retry",),
    "close": ("Close", "Close dialog"),
    "dismiss": shared.DISMISS_LABELS,
    "forbidden": shared.FORBIDDEN_LABELS,
    "upgrade": ("Upgrade",),
    "deep_research": ("Deep research",),
    "model_opener": ("Model selector", "Model"),
    "configure": ("Configure...",),
    "thinking_effort": ("Thinking effort",),
    "pro_thinking_effort": ("Pro thinking effort",),
    "auto_switch": ("Auto-switch to Thinking",),
    "intelligence": ("Intelligence",),
    "show_advanced": ("Show advanced options",),
    "pro_effort_options": ("Pro effort options",),
    "power": ("Power",),
    # Model and tier names: the concept is the English name the driver reasons with.
    "Instant": ("Instant",),
    "Thinking": ("Thinking",),
    "Pro": ("Pro",),
    "Light": ("Light",),
    "Standard": ("Standard",),
    "Extended": ("Extended",),
    "Heavy": ("Heavy",),
    "Medium": ("Medium",),
    "High": ("High",),
    "Extra High": ("Extra High",),
    "Pro Standard": ("Pro Standard",),
    "Pro Extended": ("Pro Extended",),
}  # fmt: skip
