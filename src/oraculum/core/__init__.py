"""Core: errors, paths, config, presets, project and session identity."""
