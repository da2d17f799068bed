"""Core: errors, paths, config, presets, project and session identity."""

# The modules other layers may import; the rest of the package is internal to it.
__all__ = [
    "bounded",
    "columns",
    "config",
    "crashlog",
    "errors",
    "fsio",
    "ownenv",
    "paths",
    "presets",
    "process_group",
    "project",
    "providers",
    "session",
    "surface",
]
