"""oraculum: consult web-only frontier models as durable background jobs."""

__all__ = ["__version__"]

__version__ = "0.1.0"
