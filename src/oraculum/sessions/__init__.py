"""Sessions and wake-ups: liveness files, claims, the poller, the wake-up text and its sinks."""
