"""One module per dashboard view, each with one `render()`; run as pages by `app/main.py`."""
