"""The recording proxy's cost: what it adds to a request, beside direct calls measured in the same run.

    python scripts/bench_proxy.py [--requests 2000] [--memory-requests 20000]
        [--baseline-root TREE [--variant-root TREE] [--bare-root TREE] [--rounds 8] [--baseline-only]]

The simulator (`rerunlens simulate`, no added latency) and the proxy (`rerunlens proxy` in front of
it) each run in their own process, as with a real harness; this process is the client (httpx2, kept
alive connections). Direct and proxied batches alternate, so both see the same machine load.

- added latency: median proxied minus median direct, at concurrency 1 and 50;
- first streamed byte: a small SSE upstream (in this process's sibling) that sends its first event at
  once and the rest 20 ms later, direct and through the proxy;
- requests/s at concurrency 50, direct and proxied;
- the proxy's resident memory (with its counting process) after a warm-up and every quarter of
  `--memory-requests`;
- with `--baseline-root`: the proxies of other source trees (`git archive` of an earlier commit)
  beside this one's, all in front of the same simulator, in alternating rounds: a short request, an
  8,000-token one resent, one new each time (one at a time and 4 at a time); then each one's memory.

Targets (docs: BENCHMARKS.md): <= 2 ms added at the median, <= 5 ms to the first streamed byte,
>= 500 requests/s, memory flat. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parent.parent
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "What is 2+2?"}]}
KEY = "sim-bench-key"


def _start(
    args: list[str], env: dict[str, str], root: Path = ROOT
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """A `rerunlens` server process (from the source tree `root`) and the `export` lines it printed."""
    env = env | {"PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "analyzer.cli", *args], cwd=root, env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    exports: dict[str, str] = {}
    deadline = time.time() + 30
    while time.time() < deadline and "OPENAI_API_KEY" not in exports:
        line = proc.stdout.readline()
        exports |= dict(re.findall(r"export (\w+)=(\S+)", line))
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its pipe drained
    return proc, exports


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _sequential(url: str, token: str, n: int, body: Any = BODY) -> list[float]:
    """Latency (ms) of n requests one after another on one kept-alive connection (`body` a dict, or a
    function of the request's number giving one)."""
    out = []
    with httpx2.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        for i in range(n):
            sent = body(i) if callable(body) else body
            t0 = time.perf_counter()
            client.post(url, json=sent).raise_for_status()
            out.append((time.perf_counter() - t0) * 1000)
    return out


async def _concurrent(
    url: str, token: str, n: int, concurrency: int, body: Any = BODY
) -> tuple[list[float], float]:
    """Latencies (ms) and requests/s of n requests, `concurrency` at a time (`body` as `_sequential`)."""
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    headers = {"Authorization": f"Bearer {token}"}
    latencies: list[float] = []
    async with httpx2.AsyncClient(headers=headers, timeout=60, limits=limits) as client:
        queue = iter(range(n))

        async def worker() -> None:
            for i in queue:
                sent = body(i) if callable(body) else body
                t0 = time.perf_counter()
                (await client.post(url, json=sent)).raise_for_status()
                latencies.append((time.perf_counter() - t0) * 1000)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
    return latencies, n / wall


class _Stream(BaseHTTPRequestHandler):
    """An SSE upstream: the first event at once, the rest 20 ms later."""

    protocol_version = "HTTP/1.0"

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        event = {"model": "m", "choices": [{"delta": {"content": "hi"}}]}
        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.flush()
        time.sleep(0.02)
        self.wfile.write(b"data: [DONE]\n\n")

    def log_message(self, *_args: object) -> None:
        pass


def _first_byte(url: str, token: str, n: int) -> list[float]:
    out = []
    with httpx2.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            with client.stream("POST", url, json={**BODY, "stream": True}) as response:
                for i, _chunk in enumerate(response.iter_raw()):
                    if i == 0:
                        out.append((time.perf_counter() - t0) * 1000)
    return out


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used (from /proc, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_with_children(pid: int) -> float:
    """Resident memory (MiB) of a process and its children (the proxy's counting process)."""
    return _rss_mib(pid) + sum(_rss_mib(c) for c in _children(pid))


def _children(pid: int) -> list[int]:
    """Children made by any of its threads (the proxy's counting process comes from its server thread)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:  # a thread that just ended
            continue
    return found


def _rss_shown(pid: int) -> str:
    """A proxy's resident memory, with its counting process's apart when it has one."""
    own, children = _rss_mib(pid), [_rss_mib(c) for c in _children(pid)]
    parts = f" (proxy {own:.1f} + counting {sum(children):.1f})" if children else ""
    return f"{own + sum(children):.1f}{parts}"


def _cpu_parts(pid: int | None) -> tuple[float, float]:
    """CPU seconds of a process and of its living children (0 for none)."""
    if pid is None:
        return 0.0, 0.0
    return _cpu_s(pid), sum(_cpu_s(c) for c in _children(pid))


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _row(name: str, direct: float, proxied: float, unit: str = "ms") -> None:
    added = proxied - direct
    print(f"  {name:<34} direct {direct:8.2f} {unit}   proxied {proxied:8.2f} {unit}   added {added:+7.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per measurement (default 2000)")
    parser.add_argument("--memory-requests", type=int, default=20000, help="requests for the memory check")
    parser.add_argument(
        "--baseline-root",
        type=Path,
        help="another source tree (e.g. `git archive` of an earlier commit): its proxy is measured "
        "beside this one's, alternating, on a short and an 8,000-token request",
    )
    parser.add_argument(
        "--bare-root",
        type=Path,
        help="with --baseline-root: a source tree whose proxy counts nothing (e.g. `git archive 2fc70a9`), "
        "its resident memory shown beside the others'",
    )
    parser.add_argument(
        "--variant-root",
        type=Path,
        help="with --baseline-root: a third source tree measured in the same rounds (`variant`)",
    )
    parser.add_argument("--rounds", type=int, default=8, help="rounds the routes alternate in (default 8)")
    parser.add_argument(
        "--baseline-only", action="store_true", help="only the figures against --baseline-root"
    )
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ALTK_"))}
    env |= {"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": KEY}
    work = Path(tempfile.mkdtemp(prefix="bench-proxy-"))
    (work / "scenario.json").write_text(json.dumps({"latency_ms": [0, 0]}))
    stream_server = ThreadingHTTPServer(("127.0.0.1", 0), _Stream)
    threading.Thread(target=stream_server.serve_forever, daemon=True).start()
    stream_url = f"http://127.0.0.1:{stream_server.server_address[1]}/v1"
    sim, sim_env = _start(["simulate", "--port", "0", "--scenario", str(work / "scenario.json")], env)
    servers = [sim]
    try:
        sim_url = sim_env["OPENAI_BASE_URL"]
        proxy, pe = _start(["proxy", "--base-url", sim_url, "--journal", str(work / "b.proxy.jsonl")], env)
        servers.append(proxy)
        stream_journal = str(work / "s.proxy.jsonl")
        sproxy, se = _start(["proxy", "--base-url", stream_url, "--journal", stream_journal], env)
        servers.append(sproxy)
        if args.baseline_root is not None:
            extra = {"variant": args.variant_root, "bare": args.bare_root}
            trees = {"before": args.baseline_root, "after": ROOT} | {k: v for k, v in extra.items() if v}
            routes, pids = {"direct": (sim_url, KEY)}, {}
            for name, tree in trees.items():
                journal = str(work / f"{name}.proxy.jsonl")
                started, exports = (
                    (proxy, pe)
                    if tree == ROOT
                    else _start(["proxy", "--base-url", sim_url, "--journal", journal], env, tree.resolve())
                )
                servers += [started] if started is not proxy else []
                routes[name], pids[name] = _route(exports), started.pid
            _against_baseline(args.requests, routes, pids, args.rounds)
            if args.baseline_only:
                return
        _measure(args, (sim_url, KEY), _route(pe), (sim.pid, proxy.pid))
        n = max(50, args.requests // 10)
        direct_fb = _first_byte(f"{stream_url}/chat/completions", KEY, n)
        proxied_fb = _first_byte(f"{se['OPENAI_BASE_URL']}/chat/completions", se["OPENAI_API_KEY"], n)
        _row(f"first streamed byte, median of {n}", _median(direct_fb), _median(proxied_fb))
    finally:
        for proc in servers:
            _stop(proc)
        stream_server.shutdown()
    print(f"  journals and scenario in {work}")


def _route(exports: dict[str, str]) -> tuple[str, str]:
    return exports["OPENAI_BASE_URL"], exports["OPENAI_API_KEY"]


LONG_BODY: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "messages": [
        {"role": "system", "content": "You answer questions about the inventory below."},
        {
            "role": "user",
            "content": " ".join(f"item {i} is {('red', 'blue', 'green')[i % 3]}" for i in range(1600)),
        },
    ],
}
"""About 8,000 prompt tokens: the size at which the proxy's counting costs most per request here."""


def _fresh(i: int) -> dict[str, Any]:
    """`LONG_BODY` made new for each request (nothing counted before can be reused)."""
    user = {"role": "user", "content": f"{time.perf_counter_ns()} {i} " + LONG_BODY["messages"][1]["content"]}
    return {**LONG_BODY, "messages": [LONG_BODY["messages"][0], user]}


def _against_baseline(n: int, routes: dict[str, tuple[str, str]], pids: dict[str, int], rounds: int) -> None:
    """Direct, the baseline tree's proxy and this tree's, alternating in rounds: a short request, an
    8,000-token one resent (as an agent resends its conversation each turn) and an 8,000-token one
    new each time, one at a time; the new one also 4 at a time. Then each proxy's memory (with its
    counting process) after it all; a `bare` route (a proxy counting nothing) only serves the warm-up."""
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {n} requests per figure")
    cases = (
        ("short request", BODY, 1),
        ("8,000-token request, resent", LONG_BODY, 1),
        ("8,000-token, new", _fresh, 1),
        ("8,000-token, new, 4 at a time", _fresh, 4),
    )
    timed = [k for k in routes if k != "bare"]
    for name, body, concurrency in cases:
        times: dict[str, list[float]] = {k: [] for k in timed}
        own, counting = dict.fromkeys(pids, 0.0), dict.fromkeys(pids, 0.0)
        for url, token in routes.values():
            _sequential(f"{url}/chat/completions", token, 50, body)  # warm up
        for _ in range(rounds):
            for k in timed:
                url, token = f"{routes[k][0]}/chat/completions", routes[k][1]
                cpu0 = _cpu_parts(pids.get(k))
                if concurrency == 1:
                    times[k] += _sequential(url, token, n // rounds, body)
                else:
                    times[k] += asyncio.run(_concurrent(url, token, n // rounds, concurrency, body))[0]
                cpu1 = _cpu_parts(pids.get(k))
                if k in pids:
                    own[k], counting[k] = own[k] + cpu1[0] - cpu0[0], counting[k] + cpu1[1] - cpu0[1]
        m = {k: _median(v) for k, v in times.items()}
        added = ", ".join(f"{k} {m[k] - m['direct']:+.2f} ms" for k in timed if k != "direct")
        print(f"  {name}, median of {n}: direct {m['direct']:.2f} ms; added by the proxy {added}")
        per = 1000 / (n // rounds * rounds)
        shown = ", ".join(f"{k} {own[k] * per:.2f} + {counting[k] * per:.2f}" for k in pids if k in timed)
        print(f"    CPU ms per request, proxy + its counting process: {shown}")
    memory = ", ".join(f"{k} {_rss_shown(pid)}" for k, pid in pids.items())
    print(f"  proxy RSS MiB with its counting process: {memory}; load average {os.getloadavg()[0]:.2f}")


def _measure(
    args: argparse.Namespace, direct: tuple[str, str], proxied: tuple[str, str], pids: tuple[int, int]
) -> None:
    d_url, p_url = f"{direct[0]}/chat/completions", f"{proxied[0]}/chat/completions"
    n = args.requests
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {n} requests per figure")
    _sequential(d_url, direct[1], 100), _sequential(p_url, proxied[1], 100)  # warm up both
    d1, p1 = [], []
    for _ in range(4):  # alternate, so both see the same load
        d1 += _sequential(d_url, direct[1], n // 4)
        p1 += _sequential(p_url, proxied[1], n // 4)
    _row("median latency, concurrency 1", _median(d1), _median(p1))
    sim_pid, pid = pids
    sim0 = _cpu_s(sim_pid)
    d50, d_rate = asyncio.run(_concurrent(d_url, direct[1], n, 50))
    sim_cpu = (_cpu_s(sim_pid) - sim0) / n * 1000
    cpu0, sim0 = _cpu_s(pid), _cpu_s(sim_pid)
    p50, p_rate = asyncio.run(_concurrent(p_url, proxied[1], n, 50))
    proxy_cpu, sim_cpu_p = (_cpu_s(pid) - cpu0) / n * 1000, (_cpu_s(sim_pid) - sim0) / n * 1000
    _row("median latency, concurrency 50", _median(d50), _median(p50))
    _row("requests/s, concurrency 50", d_rate, p_rate, unit="/s")
    print(
        f"  CPU per request at concurrency 50: simulator {sim_cpu:.2f} ms (direct), {sim_cpu_p:.2f} ms "
        f"(proxied); proxy {proxy_cpu:.2f} ms, so at most {1000 / max(proxy_cpu, 1e-9):.0f} requests/s "
        "on one free core"
    )
    rss = [_rss_with_children(pid)]
    for _ in range(4):
        asyncio.run(_concurrent(p_url, proxied[1], args.memory_requests // 4, 50))
        rss.append(_rss_with_children(pid))
    shown = " -> ".join(f"{r:.1f}" for r in rss)
    print(f"  proxy RSS MiB after warm-up and each {args.memory_requests // 4} requests: {shown}")


if __name__ == "__main__":
    main()
