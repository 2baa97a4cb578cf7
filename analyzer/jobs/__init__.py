"""What the dashboard runs and reads in the background; nothing here is needed by the CLI's analysis.

- `manager`: the registry that starts, finds, cancels and resumes background runs (`JobManager`).
- `status`: where a job stands (`JobStatus`), the content of its state file.
- `store`: the state files, readable by any process; a dead owner reads as `interrupted`.
- `threads`: a job's thread in this process, its progress writes and cross-process cancel.
- `thread_jobs`: short jobs in a daemon thread (one registry per kind, progress, cancel, one-line failure).
- `resample_jobs`, `audit_jobs`: a step resample and a live audit as such jobs.
- `watch`: a run's progress read from its journal as it grows.
- `uploads`: uploaded task files and logs kept in the runs folder.
- `exposure`: the dashboard's safe settings, its launcher, who may start runs.
"""
