"""Hosts the user confirmed may receive a key variable taken from a log's route, remembered per host.

A shared log names a base URL and a key variable; sending that variable's value to that host is the
user's decision, never the file's. Once confirmed, the pair is remembered in a small JSON file under
the user's config folder (`$XDG_CONFIG_HOME/rerunlens/trusted_hosts.json`, else
`~/.config/rerunlens/...`) so the next re-run of the same colleague's logs does not ask again. The
file holds origins (scheme, host and port: never a path, a query or user info) and variable names
(checked to be names): never a key. A file that is a symlink, writable by others or owned by
another user is ignored with a warning: anyone who could write it could confirm a host for you.
"""

from __future__ import annotations

import json
import os
import re
import stat
import warnings
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from analyzer.atomic import write_text_atomic
from analyzer.errors import RerunLensError, RerunLensWarning, RouteError
from analyzer.safety.bounded_read import read_file

__all__ = [
    "dns_host",
    "is_lookalike",
    "is_trusted",
    "origin_of",
    "remember",
    "trusted_hosts_path",
    "unsafe_store",
]

LIMIT = 1 << 20
"""Largest trusted-hosts file read (it holds a few lines)."""

_NAME = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def trusted_hosts_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the confirmed hosts are kept: under `$XDG_CONFIG_HOME`, else `~/.config`."""
    source = os.environ if env is None else env
    root = source.get("XDG_CONFIG_HOME") or str(Path(source.get("HOME") or Path.home()) / ".config")
    return Path(root) / "rerunlens" / "trusted_hosts.json"


def dns_host(host: str) -> str:
    """The host as DNS resolves it, lower case: a name with non-ASCII letters in its IDNA (`xn--`)
    form, so a look-alike (Cyrillic "а" in "api.openаi.com") never reads as the host it imitates.

    Raises:
        RouteError: a name that has no IDNA form.
    """
    if host.isascii():
        return host.lower()
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise RouteError(f"the base URL's host {ascii(host)} is not a valid host name") from None


def is_lookalike(origin: str) -> bool:
    """True when an origin's host was written with non-ASCII letters (an `xn--` label)."""
    return "xn--" in origin


def origin_of(url: str) -> str:
    """`https://gw.example.com:443`: scheme, lower-cased host (`xn--` form when not ASCII) and port
    (the default one filled in).

    Raises:
        RouteError: the URL has no http(s) scheme or no host.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise RouteError("the base URL is not a URL (its port or host does not parse)") from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise RouteError("the base URL needs an http:// or https:// scheme and a host")
    return f"{scheme}://{dns_host(parts.hostname)}:{port or _DEFAULT_PORTS[scheme]}"


def unsafe_store(path: Path) -> str | None:
    """Why the trusted-hosts file may not be believed (None when it may): a symlink, writable by
    others (group or world) or owned by another user could have been planted to pre-confirm a host."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "it is a symlink"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_mode & 0o022:
        return f"it is writable by {'everyone' if info.st_mode & 0o002 else 'its group'}"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return "it is owned by another user"
    return None


def _load(path: Path) -> dict[str, list[str]]:
    if (why := unsafe_store(path)) is not None:
        warnings.warn(f"{path}: ignored, {why}: no host counts as confirmed", RerunLensWarning, stacklevel=3)
        return {}
    if not path.exists():
        return {}
    try:
        data = json.loads(read_file(path, LIMIT, "trusted hosts", RouteError).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RouteError(f"{path}: not a trusted-hosts file (not JSON); delete it to start over") from None
    hosts = data.get("hosts") if isinstance(data, dict) else None
    if not isinstance(hosts, dict):
        raise RouteError(f"{path}: not a trusted-hosts file (no 'hosts' table); delete it to start over")
    return {
        str(origin): [v for v in names if isinstance(v, str) and _NAME.fullmatch(v)]
        for origin, names in hosts.items()
        if isinstance(names, list)
    }


def is_trusted(origin: str, variable: str, path: Path | None = None) -> bool:
    """True when the user confirmed sending `variable` to `origin` before."""
    return variable in _load(path or trusted_hosts_path()).get(origin, [])


def remember(origin: str, variable: str, path: Path | None = None) -> Path:
    """Remember that the user confirmed sending `variable` to `origin` (atomic, private file).

    Raises:
        RerunLensError: the variable is not a variable name (a key pasted there is never written).
    """
    if not _NAME.fullmatch(variable):
        raise RerunLensError("a key variable must be a variable name in capitals; nothing was remembered")
    target = path or trusted_hosts_path()
    hosts = _load(target)
    names = hosts.setdefault(origin, [])
    if variable not in names:
        names.append(variable)
    text = json.dumps({"version": 1, "hosts": hosts}, indent=2, sort_keys=True) + "\n"
    return write_text_atomic(target, text, mode=0o600)
