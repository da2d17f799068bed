"""The detached per-job worker process (`python -m oraculum.worker run <job-dir>`)."""
