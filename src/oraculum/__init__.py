"""oraculum: consult web-only frontier models as durable background jobs."""

__version__ = "0.1.0"
