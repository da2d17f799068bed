"""The detached per-job worker process (`python -m oraculum.worker run <job-dir>`)."""

# Nothing to import: the worker's surface is its command line (`jobs.process` starts it).
__all__: list[str] = []
