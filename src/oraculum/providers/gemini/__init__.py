"""The Gemini web app: vocabulary, page classification, mode choice, composer, completion."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "page",
    "page_state",
    "probe",
    "provider",
]
