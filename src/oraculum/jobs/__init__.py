"""Jobs: model and transitions, the store, locks, leases, admission and workers."""
