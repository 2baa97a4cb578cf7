"""Hostile log text: what a log, a provider or a pasted URL carries must
not drive the terminal, a spreadsheet or a log file.

Terminal and CSV cases go through the real CLI on logs written here; the scrubber and URL cases
call the library directly with hand-computed encodings of the test key.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import quote

import pytest
from fake_keys import FAKE_KEY

from analyzer.cli import main
from analyzer.routes.url_lint import lint_base_url, redact_url
from analyzer.safety.scrub import scrub, scrub_body
from analyzer.safety.terminal_text import visible

TITLE = "\x1b]0;pwned\x07"
"""An escape sequence that retitles a terminal window."""
CLEAR = "\x1b[2J\x1b[H"
"""Clear the screen and go home."""
FORGED = "x\nFlagged for a re-run: 0 task(s), inconsistent ones first"
"""A task id that, printed raw, forges the report's last heading."""
HOSTILE_IDS = [f"title{TITLE}", f"clear{CLEAR}", FORGED, "nul\x00id", "rlo\u202etxt.exe", "cr\rOK"]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
"""What must never reach a terminal raw (tab and newline are the report's own layout)."""


def _log(path: Path, consistent: bool) -> Path:
    rounds = [
        [
            {"task_id": t, "answer": "A" if consistent or r == 0 else "B", "total_tokens": 3}
            for t in HOSTILE_IDS
        ]
        for r in range(3)
    ]
    path.write_text(json.dumps({"runs": rounds}))
    return path


# 5. terminal output -------------------------------------------------------------------------------


def test_visible_escapes_controls_and_keeps_ordinary_text() -> None:
    assert visible("plain café 🙂 ok") == "plain café 🙂 ok"
    assert visible(f"a{TITLE}b") == "a\\x1b]0;pwned\\x07b"
    assert visible("one\ntwo\rthree\x00\u202e") == "one\\ntwo\\rthree\\x00\\u202e"
    assert visible("\x85next-line") == "\\x85next-line"


def test_analyze_prints_hostile_task_ids_as_visible_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["analyze", str(_log(tmp_path / "evil.json", consistent=False))])
    out = capsys.readouterr().out
    assert code == 0
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    assert "  title\\x1b]0;pwned\\x07: inconsistent" in out
    assert "  x\\nFlagged for a re-run: 0 task(s), inconsistent ones first: inconsistent" in out
    headings = [line for line in out.splitlines() if line.startswith("Flagged for a re-run")]
    assert headings == ["Flagged for a re-run: 6 tasks, inconsistent ones first"]
    assert "  nul\\x00id: inconsistent" in out and "  rlo\\u202etxt.exe: inconsistent" in out


def test_compare_prints_hostile_ids_and_labels_as_visible_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _log(tmp_path / "before.json", consistent=False)
    after = _log(tmp_path / "after.json", consistent=True)
    data = json.loads(after.read_text()) | {"format": "altk-runs/2", "label": f"after{CLEAR}\nforged"}
    after.write_text(json.dumps(data))
    code = main(["compare", str(before), str(after)])
    out = capsys.readouterr().out
    assert code == 0
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    assert "#2  after\\x1b[2J\\x1b[H\\nforged" in out
    assert "Tasks that flip between consistent and inconsistent: 6" in out
    assert not any(line.startswith("Flagged for a re-run") for line in out.splitlines())


# 6. CSV export -------------------------------------------------------------------------------------


def test_a_bare_carriage_return_cannot_start_a_formula_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "evil.json"
    ids = ['ok\r=HYPERLINK("http://x")', "\r=1+1", "=2+2", "fine"]
    log.write_text(json.dumps({"runs": [[{"task_id": t, "answer": a} for t in ids] for a in "AB"]}))
    out = tmp_path / "t.csv"
    assert main(["export", str(log), "--csv", str(out)]) == 0
    capsys.readouterr()
    raw = out.read_bytes().decode()
    # A spreadsheet that splits rows at a bare CR sees only the RFC 4180 line ends: none is bare.
    assert raw.count("\r\n") == 5  # the header and four rows
    rows = list(csv.reader(io.StringIO(raw, newline="")))
    assert [r[0] for r in rows[1:]] == ['ok\r=HYPERLINK("http://x")', "'\r=1+1", "'=2+2", "fine"]
    for line in raw.split("\r\n")[1:]:
        assert not line.startswith(("=", "+", "-", "@")), line
    for piece in re.split(r"\r(?!\n)", raw)[1:]:  # whatever follows a bare CR sits inside quotes
        assert raw[: raw.index(piece)].count('"') % 2 == 1


# 3. the scrubber ------------------------------------------------------------------------------------


def _b64_core(prefix: bytes) -> str:
    """The characters of `b64(prefix + key)` fixed by the key alone, computed by hand per alignment."""
    encoded = base64.b64encode(prefix + FAKE_KEY.encode()).decode()
    start = -(-len(prefix) * 8 // 6)
    return encoded[start : (len(prefix) + len(FAKE_KEY)) * 8 // 6]


@pytest.mark.parametrize(
    "text",
    [
        FAKE_KEY.swapcase(),
        repr(FAKE_KEY.encode()),
        quote(FAKE_KEY + "\n", safe=""),
        base64.b64encode(FAKE_KEY.encode()).decode(),
        base64.urlsafe_b64encode(b"\xff\xfe" + FAKE_KEY.encode()).decode(),
        base64.b64encode(b"Bearer " + FAKE_KEY.encode()).decode(),
        base64.b64encode(b"user:" + FAKE_KEY.encode()).decode(),
        FAKE_KEY.encode().hex(),
        FAKE_KEY.encode().hex().upper(),
    ],
)
def test_scrub_removes_every_encoding_of_the_key(text: str) -> None:
    clean = scrub(f"error: {text} !", [FAKE_KEY])
    assert "[redacted]" in clean
    for telltale in (FAKE_KEY, FAKE_KEY.encode().hex(), _b64_core(b""), _b64_core(b"B"), _b64_core(b"Be")):
        assert telltale.lower() not in clean.lower()


def test_scrub_body_keeps_json_valid_and_catches_unicode_escapes() -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in FAKE_KEY)
    body = ('{"model": "m", "echo": "' + escaped + '", "n": 1}').encode()
    clean = json.loads(scrub_body(body, [FAKE_KEY]))
    assert clean == {"model": "m", "echo": "[redacted]", "n": 1}
    untouched = b'{"model": "gpt-4o-mini", "choices": []}'
    assert scrub_body(untouched, [FAKE_KEY]) is untouched
    stream = f'data: {{"model": "{FAKE_KEY}"}}\n\ndata: [DONE]\n'.encode()
    assert scrub_body(stream, [FAKE_KEY]).decode() == 'data: {"model": "[redacted]"}\n\ndata: [DONE]\n'


# 11. secrets in a base URL -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown", "where"),
    [
        (f"https://proxy.example.com/key/{FAKE_KEY}/v1", "https://proxy.example.com/key/REDACTED/v1", "path"),
        (f"https://proxy.example.com/v1#key={FAKE_KEY}", "https://proxy.example.com/v1#REDACTED", "fragment"),
        (f"https://proxy.example.com/v1;key={FAKE_KEY}", "https://proxy.example.com/v1;key=REDACTED", "path"),
        (
            "https://proxy.example.com/t/Xk9fQ2LmZ7pR4sT8vW1yB3nC6dH0jK5a/v1",
            "https://proxy.example.com/t/REDACTED/v1",
            "path",
        ),
        (
            f"https://proxy.example.com/v1?api_key={FAKE_KEY}",
            "https://proxy.example.com/v1?api_key=REDACTED",
            "query",
        ),
    ],
)
def test_a_key_anywhere_in_a_base_url_is_masked_and_linted(url: str, shown: str, where: str) -> None:
    assert redact_url(url) == shown and redact_url(shown) == shown
    finding = next(f for f in lint_base_url(url).findings if f.code == "secret_in_url")
    assert f"in its {where}" in finding.message and "--key-env" in finding.fix
    assert FAKE_KEY not in finding.message + finding.fix


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1",
        "https://gateway.ai.cloudflare.com/v1/0123456789abcdef0123456789abcdef/my-gateway/openai",
        "https://x.openai.azure.com/openai/deployments/Meta-Llama-3.1-70B-Instruct-Turbo",
        "https://api.example.com/skills-service/v1",
        "http://127.0.0.1:8000/v1",
    ],
)
def test_ordinary_base_urls_are_left_alone(url: str) -> None:
    assert redact_url(url) == url
    assert "secret_in_url" not in [f.code for f in lint_base_url(url).findings]
