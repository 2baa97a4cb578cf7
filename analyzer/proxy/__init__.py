"""The recording proxy: pin and record the route of any harness.

- `server`: the pass-through endpoint on 127.0.0.1 (local token, key only to the route's origin).
- `journal`: one JSON line per attempt; `facts`: what is read from requests and responses.
- `session`: a proxy in front of a route profile; `wrap`: a command run through it.
"""
