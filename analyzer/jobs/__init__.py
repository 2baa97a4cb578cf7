"""What the dashboard runs and reads in the background; nothing here is needed by the CLI's analysis.

- `manager`: background runs with a state file per job (`JobManager`).
- `resample_jobs`: a step resample as a dashboard job.
- `watch`: a run's progress read from its journal as it grows.
- `uploads`: uploaded task files and logs kept in the runs folder.
- `exposure`: the dashboard's safe settings, its launcher, who may start runs.
"""
