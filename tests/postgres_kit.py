"""A throwaway PostgreSQL server for the history's store tests: initdb in a temporary folder, started on
a free 127.0.0.1 port, stopped and removed at the end.

initdb refuses to run as root, so under root the server runs as the `postgres` system user (`runuser`)
in a folder it owns. Where no server can be started the tests that need one skip, except in CI
(CI=true), where they fail: scripts/test.sh installs Debian's postgresql.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

BIN_DIRS = sorted(
    glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(Path(d).parent.name), reverse=True
)
"""Debian's PostgreSQL binaries, newest version first (they are not on PATH there)."""
USER = "rerunlens"
PASSWORD = "pg-Secr3t-for-tests"


@dataclass(frozen=True)
class Server:
    port: int
    folder: Path

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL (one per test)."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _bin(name: str) -> str | None:
    for folder in BIN_DIRS:
        if Path(folder, name).is_file():
            return str(Path(folder, name))
    return shutil.which(name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}")
    pytest.skip(f"PostgreSQL not available here: {reason}")


def start_server() -> Iterator[Server]:
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        _unavailable("initdb and pg_ctl not found (apt-get install postgresql)")
        return
    folder = Path(tempfile.mkdtemp(prefix="rerunlens-pg-"))
    if os.geteuid() == 0:
        server_user = pwd.getpwnam("postgres")
        os.chown(folder, server_user.pw_uid, server_user.pw_gid)
    data, port = folder / "data", _free_port()
    pwfile = folder / "pw"
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        os.chown(pwfile, pwd.getpwnam("postgres").pw_uid, -1)
    init = [initdb, "-D", str(data), "-U", USER, f"--pwfile={pwfile}", "--auth-host=scram-sha-256"]
    init += ["--auth-local=trust", "-E", "UTF8", "--no-sync"]
    start = [pg_ctl, "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "60", "start", "-o"]
    start.append(f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off")
    for command in (init, start):
        done = subprocess.run(
            _as_server_user(command), capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            _unavailable(f"{Path(command[0]).name} failed: {(done.stderr or done.stdout).strip()[:300]}")
            return
    try:
        yield Server(port, folder)
    finally:
        stop = [pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]
        subprocess.run(_as_server_user(stop), capture_output=True, timeout=60, check=False)
        shutil.rmtree(folder, ignore_errors=True)
