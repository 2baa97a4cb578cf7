"""RerunLens analyzer: read run logs, measure consistency, re-run unstable tasks. Never imports streamlit."""
