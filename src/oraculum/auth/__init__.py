"""Auth: the signed-in seed profiles that every job's runtime profile is cloned from."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "bootstrap",
    "cookie_source",
    "result",
    "seed",
    "seed_check",
    "simulator",
    "transfer",
    "verify",
]
