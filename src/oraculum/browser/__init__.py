"""Browser layer: Chromium executable, launch flags, runtime profiles, diagnostics."""
