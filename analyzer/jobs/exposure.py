"""How the dashboard is exposed: the safe server settings, the launcher's command, and who may start runs.

`streamlit run` reads `.streamlit/config.toml` only from the working directory: started elsewhere it
would listen on every interface, show tracebacks and send usage statistics. `rerunlens dashboard`
passes the safe settings as command-line flags, which beat every config file and environment
variable, so they hold wherever it is started. The app itself also checks the address it is bound to
and refuses to start runs (which send this server's keys) when it listens beyond loopback, unless
`RERUNLENS_ALLOW_REMOTE_RUNS=1` says that is meant.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from analyzer.errors import RerunLensError
from analyzer.routes.url_lint import is_loopback


def app_main() -> Path:
    """The dashboard's entry file: `app/main.py` of the installed `app` package (a wheel ships it
    beside `analyzer`; an editable install points at the checkout). Found without importing it."""
    spec = importlib.util.find_spec("app")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        candidate = Path(folder) / "main.py"
        if candidate.is_file() and (Path(folder) / "views").is_dir():
            return candidate.resolve()
    return Path(__file__).resolve().parents[2] / "app" / "main.py"


ALLOW_REMOTE_RUNS_ENV = "RERUNLENS_ALLOW_REMOTE_RUNS"
"""Set to 1 to allow starting runs from a dashboard that listens beyond loopback."""

SAFE_OPTIONS: dict[str, str] = {
    "server.address": "127.0.0.1",
    "server.enableXsrfProtection": "true",
    "server.enableCORS": "true",
    "server.showEmailPrompt": "false",
    "server.runOnSave": "false",
    "browser.gatherUsageStats": "false",
    "client.showErrorDetails": "none",
    "client.toolbarMode": "minimal",
    "runner.magicEnabled": "false",
}
"""Settings that keep the dashboard private and quiet, whatever config file is (or is not) found."""


def dashboard_command(runs_dir: str | None, port: int | None = None, address: str | None = None) -> list[str]:
    """The `streamlit run` command line with the safe settings as flags.

    Args:
        runs_dir: The runs folder passed to the app (None: its default).
        port: The port (None: Streamlit's default, 8501).
        address: Listen beyond loopback on purpose (runs stay refused unless allowed).

    Raises:
        RerunLensError: the dashboard's files are missing from this install.
    """
    entry = app_main()
    if not entry.is_file():
        raise RerunLensError(f"{entry}: the dashboard is missing from this install; reinstall rerunlens")
    options = dict(SAFE_OPTIONS)
    if address:
        options["server.address"] = address
    if port is not None:
        if not 0 < port <= 65535:
            raise RerunLensError(f"--port {port}: a port is 1 to 65535")
        options["server.port"] = str(port)
    command = [sys.executable, "-m", "streamlit", "run", str(entry)]
    command += [f"--{name}={value}" for name, value in options.items()]
    return command + (["--", f"--runs-dir={runs_dir}"] if runs_dir else [])


DEFAULT_PORT = 8501
"""Streamlit's own default port."""


def port_busy(port: int, address: str | None = None) -> bool:
    """Whether something already listens on `port` at `address` (default 127.0.0.1); an address
    that does not resolve is not called busy (the server then says what is wrong with it)."""
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            address or "127.0.0.1", port, type=socket.SOCK_STREAM
        )[0]
    except (OSError, UnicodeError):
        return False
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(where)
        except OSError:
            return True
    return False


def free_port_after(port: int, address: str | None = None, tries: int = 50) -> int | None:
    """The first free port after `port` (within `tries`), or None."""
    for candidate in range(port + 1, min(port + 1 + tries, 65536)):
        if not port_busy(candidate, address):
            return candidate
    return None


def check_port(port: int | None, address: str | None = None) -> None:
    """Refuse a busy port in one line that names a free one to use instead.

    Raises:
        RerunLensError: the port is taken (another dashboard, or any other server).
    """
    wanted = DEFAULT_PORT if port is None else port
    if not port_busy(wanted, address):
        return
    free = free_port_after(wanted, address)
    hint = f"; try rerunlens dashboard --port {free}" if free else "; pick another with --port"
    raise RerunLensError(f"port {wanted} is already in use (another dashboard is running?){hint}")


def runs_refused(address: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Why starting runs is refused on a dashboard bound to `address`, or None when it is allowed."""
    source = os.environ if env is None else env
    host = (address or "").strip().strip("[]")
    if host and is_loopback(host):
        return None
    if source.get(ALLOW_REMOTE_RUNS_ENV) == "1":
        return None
    where = host or "every interface"
    return (
        f"this dashboard listens on {where}, so anyone who reaches it could start runs that send this "
        f"server's keys; runs are refused here (set {ALLOW_REMOTE_RUNS_ENV}=1 to allow them on purpose, "
        "or start it with `rerunlens dashboard`, which listens on 127.0.0.1)"
    )


ALLOW_REMOTE_ENV = "RERUNLENS_ALLOW_REMOTE"
"""Set to 1 to serve the dashboard's pages beyond loopback (`rerunlens dashboard --address` sets it)."""
ALLOWED_HOSTS_ENV = "RERUNLENS_ALLOWED_HOSTS"
"""Comma-separated further host names a page may be requested under (a remote dashboard's own name)."""

SAFE_START = "start it with `rerunlens dashboard` (it serves on 127.0.0.1)"


def serving_refused(address: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Why pages are refused on a dashboard bound to `address` (plain `streamlit run` from another
    folder listens on every interface), or None when it is bound to loopback or the switch is set."""
    source = os.environ if env is None else env
    host = (address or "").strip().strip("[]")
    if (host and is_loopback(host)) or source.get(ALLOW_REMOTE_ENV) == "1":
        return None
    return (
        f"this dashboard listens on {host or 'every interface'}, where anyone who reaches it could read "
        f"your logs; {SAFE_START}, or set {ALLOW_REMOTE_ENV}=1 to serve beyond loopback on purpose"
    )


def _host_name(authority: str) -> str:
    """`Evil.example:8501` -> `evil.example`; `[::1]:8501` -> `::1`."""
    text = authority.strip().lower()
    if text.startswith("["):
        return text[1:].split("]", 1)[0]
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


def _ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def request_refused(
    headers: Mapping[str, str], address: str | None, env: Mapping[str, str] | None = None
) -> str | None:
    """Why a page request is refused, or None: its Host must be a loopback name, the bound address,
    an IP address on a dashboard served beyond loopback on purpose, or a name the user listed (a
    foreign name is DNS rebinding: a web page reaching this server under its own name); its Origin,
    when sent, must be the same host and port (another site's page driving this one's buttons).

    Args:
        headers: The request's headers (case-insensitive names).
        address: The address the server is bound to (`server.address`).
        env: Where the switches are read (default: the process environment).
    """
    source = os.environ if env is None else env
    lower = {k.lower(): v for k, v in headers.items()}
    host = lower.get("host", "").strip()
    if not host:
        return None  # no browser request (an in-process test client)
    name = _host_name(host)
    listed = {h.strip().lower() for h in source.get(ALLOWED_HOSTS_ENV, "").split(",") if h.strip()}
    remote = source.get(ALLOW_REMOTE_ENV) == "1"
    bound = (address or "").strip().strip("[]").lower()
    if not (is_loopback(name) or name == bound or name in listed or (remote and _ip_literal(name))):
        return (
            f"this page was requested under the host name {name[:80]!r}, which is not this dashboard's "
            f"address (DNS rebinding?); open it at http://127.0.0.1, or list the name in {ALLOWED_HOSTS_ENV}"
        )
    origin = lower.get("origin", "").strip()
    if origin and urlsplit(origin).netloc.lower() != host.lower():  # "null" too: a sandboxed page
        return (
            f"this page was driven from another site ({origin[:80]!r}); open the dashboard at its own address"
        )
    return None
