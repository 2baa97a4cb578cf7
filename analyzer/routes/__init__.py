"""The route: what a run is pinned to, and the mistakes a base URL can hold.

- `profile`: the route profile and each field's flag, label and help (`RouteKnob`).
- `url_lint`: base URL mistakes, each with a fix; a URL redacted for display.
"""
