"""`rerunlens proxy` as another shell uses it: the exports it prints work, a request without them is
refused, SIGTERM stops it with the journal closed; `--keep-bodies` keeps bodies, scrubbed."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
from fake_keys import FAKE_KEY

from analyzer.proxy.server import ProxyConfig, RecordingProxy
from analyzer.runner.transport import KeyRing
from analyzer.simulator import Simulator

ROOT = Path(__file__).resolve().parents[2]
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hello"}]}


def test_the_printed_exports_reach_the_route_and_nothing_else_does(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    journal = tmp_path / "p.proxy.jsonl"
    server = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", "proxy", "--journal", str(journal)],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": FAKE_KEY},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(6)]
        exports = dict(re.findall(r"^export (\w+)=(\S+)$", "".join(lines), flags=re.M))
        assert set(exports) >= {
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
        }
        assert exports["OPENAI_BASE_URL"].startswith("http://127.0.0.1:")
        assert FAKE_KEY not in "".join(lines)
        url = f"{exports['OPENAI_BASE_URL']}/chat/completions"
        ok = httpx2.post(url, json=BODY, headers={"Authorization": f"Bearer {exports['OPENAI_API_KEY']}"})
        refused = httpx2.post(url, json=BODY, headers={"Authorization": f"Bearer {FAKE_KEY}"})
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            out, err = server.communicate(timeout=20)
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
    assert ok.status_code == 200 and refused.status_code == 401  # the real key is no pass either
    assert server.returncode == 0, err
    kinds = [json.loads(line)["kind"] for line in journal.read_text().splitlines()]
    assert kinds == ["start", "attempt", "end"]
    assert FAKE_KEY not in journal.read_text() + out + err


def test_bodies_are_kept_only_when_asked_and_then_scrubbed(tmp_path: Path) -> None:
    ring = KeyRing([FAKE_KEY])
    echo = {"model": "m", "messages": [{"role": "user", "content": f"my key is {FAKE_KEY}"}]}
    with Simulator() as sim:
        config = ProxyConfig(sim.base_url, ring, str(tmp_path / "k.proxy.jsonl"), keep_bodies=True)
        with RecordingProxy(config) as proxy:
            reply = httpx2.post(
                f"{proxy.base_url}/chat/completions",
                json=echo,
                headers={"Authorization": f"Bearer {proxy.token}"},
            )
    assert reply.status_code == 200
    (attempt,) = [json.loads(x) for x in (tmp_path / "k.proxy.jsonl").read_text().splitlines()][1:2]
    assert "my key is" in attempt["request_body"] and "chat.completion" in attempt["response_body"]
    assert FAKE_KEY not in (tmp_path / "k.proxy.jsonl").read_text()


def test_shell_lines_quote_each_value_for_the_shell() -> None:
    """A value with shell characters reads back unchanged when the lines are run by bash."""
    import subprocess
    from types import SimpleNamespace

    from analyzer.proxy.session import shell_lines

    odd = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "a b;$(echo x)'\""}
    proxy = SimpleNamespace(client_env=lambda: odd)
    script = "\n".join([*shell_lines(proxy), 'printf "%s\\n" "$OPENAI_BASE_URL" "$OPENAI_API_KEY"'])  # type: ignore[arg-type]
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == list(odd.values())
