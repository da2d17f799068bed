"""The ChatGPT web app: vocabulary, page classification, configuration, composer, completion."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "completion",
    "composer",
    "page",
    "page_state",
    "probe",
    "provider",
    "readiness",
    "vocabulary",
]
