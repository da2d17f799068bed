"""Portuguese (facts §1.4: the mode names an extension for the live page reads)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "mode_fast": ("Rápido",),
    "mode_thinking": ("Raciocínio",),
    "mode_pro": ("Pro",),
}
