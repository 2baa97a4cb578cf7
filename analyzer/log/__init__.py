"""The run log: its format, the one reader, and the columns every metric starts from.

- `model`: the log format (versions 1 and 2) as pydantic models.
- `loader`: validate bytes into a `RunLog`, list and save logs; one-line errors.
- `fast_decode`: the fast reader (msgspec records checked column by column by the model's own types).
- `table`: a log's results and attempts as columns, built once and kept with a loaded log.
- `structural`: warnings about a log that still loads (ragged rounds, duplicates, unknown tokens).
- `schema`: the JSON Schema of the format (`rerunlens schema`).
- `redaction`: secret-shaped values masked in what a log carries.
- `frames`: the result and attempt frames (pandas).
- `call_tokens`: each tool call's canonical signature, shared by the `actions` key and trajectories.
- `taskfile`: task files read and checked.
- `chat_steps`: chat messages to trajectory steps and back.

Every file is opened through `analyzer.importers.load_any`, which reads with `safety.bounded_read`.
"""
