"""German (html lang de-DE; captured 2026-06, picker labels 2026-08)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Mit ChatGPT chatten",),
    "send": ("Aufforderung senden", "Senden"),
    "stop": ("Antwort stoppen", "Stoppen"),
    "add_files": ("Dateien und mehr hinzufügen",),
    "upload_entry": ("Fotos und Dateien hinzufügen",),
    "copy": ("Kopieren", "Antwort kopieren"),
    "retry": ("Erneut versuchen",),  # unseen
    "close": ("Schließen",),
    "dismiss": ("Nicht jetzt", "Vielleicht später", "Nein danke", "Schließen", "Verstanden",
                "Überspringen", "Nur notwendige Cookies", "Nicht notwendige ablehnen"),  # unseen
    "forbidden": ("Ausprobieren", "Jetzt testen", "Upgraden", "Kaufen", "Abonnieren",
                  "Akzeptieren", "Alle akzeptieren", "Zustimmen"),  # unseen
    "upgrade": ("Upgraden", "Upgrade"),  # unseen
    "deep_research": ("Deep Research",),
    "model_opener": ("Modellauswahl", "Modell"),
    "configure": ("Konfigurieren...", "Konfigurieren"),
    "thinking_effort": ("Denkaufwand", "Denkdauer", "Denkzeit"),
    "pro_thinking_effort": ("Pro-Denkaufwand",),  # unseen
    "auto_switch": ("Automatisch zu Thinking wechseln",),  # unseen
    "intelligence": ("Intelligenz",),
    "show_advanced": ("Erweiterte Optionen anzeigen",),  # unseen
    "pro_effort_options": ("Pro-Aufwandsoptionen",),  # unseen
    "power": ("Leistung",),  # unseen
    "Instant": ("Sofort",),
    "Light": ("Leicht",),
    "Standard": ("Standard", "Standardmäßig"),
    "Extended": ("Erweitert",),
    "Heavy": ("Schwer",),
    "Medium": ("Mittel",),
    "High": ("Hoch",),
    "Extra High": ("Extra hoch", "Sehr hoch"),
    "Pro Extended": ("Pro Erweitert",),
    "Pro": ("Pro",),
}  # fmt: skip
