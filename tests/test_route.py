"""Route profiles: defaults, environment variables, profile files, flags, fingerprints."""

from __future__ import annotations

import re

import pytest

from analyzer.errors import RouteError
from analyzer.route import RouteProfile, build_profile, key_fingerprint, key_problem, resolve_keys


def test_defaults_are_reproducibility_first() -> None:
    p = build_profile(env={})
    assert (p.temperature, p.top_p, p.seed, p.rounds, p.max_retries, p.timeout_s, p.concurrency) == (
        0.0,
        1.0,
        42,
        5,
        1,
        120.0,
        1,
    )
    assert p.base_url is None and p.uses_simulator
    assert p.key_env == "OPENAI_API_KEY"


def test_environment_variables_are_read() -> None:
    env = {
        "OPENAI_BASE_URL": "https://api.example.com/v1",
        "ALTK_MODEL": "m1",
        "ALTK_TEMPERATURE": "0.7",
        "ALTK_TOP_P": "0.9",
        "ALTK_SEED": "7",
        "ALTK_REPEAT": "3",
        "ALTK_MAX_RETRIES": "0",
        "ALTK_TIMEOUT": "30",
        "ALTK_CONCURRENCY": "4",
    }
    p = build_profile(env=env)
    assert p.base_url == "https://api.example.com/v1"
    assert (p.model, p.temperature, p.top_p, p.seed, p.rounds) == ("m1", 0.7, 0.9, 7, 3)
    assert (p.max_retries, p.timeout_s, p.concurrency) == (0, 30.0, 4)


@pytest.mark.parametrize(
    ("name", "value"),
    [("ALTK_TEMPERATURE", "abc"), ("ALTK_SEED", "4.5"), ("ALTK_CONCURRENCY", "0"), ("ALTK_TEMPERATURE", "9")],
)
def test_bad_environment_value_names_the_variable(name: str, value: str) -> None:
    with pytest.raises(RouteError) as err:
        build_profile(env={name: value})
    assert name in str(err.value)
    assert "\n" not in str(err.value)


def test_profile_file_toml_and_json_and_flags_win(tmp_path) -> None:
    toml = tmp_path / "p.toml"
    toml.write_text('[route]\nmodel = "from-file"\nconcurrency = 2\nseed = 9\n')
    p = build_profile(file=toml, env={"ALTK_MODEL": "from-env", "ALTK_SEED": "1"}, overrides={"seed": 5})
    assert (p.model, p.concurrency, p.seed) == ("from-file", 2, 5)
    js = tmp_path / "p.json"
    js.write_text('{"temperature": 0.3, "key_env": "MY_KEY"}')
    p = build_profile(file=js, env={})
    assert (p.temperature, p.key_env) == (0.3, "MY_KEY")


def test_profile_file_refuses_keys_and_unknown_settings(tmp_path) -> None:
    f = tmp_path / "p.json"
    f.write_text('{"api_key": "sk-abc"}')
    with pytest.raises(RouteError, match="environment"):
        build_profile(file=f, env={})
    f.write_text('{"modle": "x"}')
    with pytest.raises(RouteError, match="modle"):
        build_profile(file=f, env={})
    f.write_text("{not json")
    with pytest.raises(RouteError, match="not valid JSON"):
        build_profile(file=f, env={})


def test_fingerprint_is_one_way_and_short() -> None:
    fp = key_fingerprint("sk-test-DO-NOT-LEAK-1234567890abcdef")
    assert re.fullmatch(r"sha256:[0-9a-f]{12}", fp or "")
    assert "DO-NOT-LEAK" not in (fp or "")
    assert key_fingerprint("") is None
    assert key_fingerprint("a") != key_fingerprint("b")


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("", "empty"),
        (None, "empty"),
        ("your-api-key-here", "placeholder"),
        ("sk-xxxxxxxx", "placeholder"),
        (" sk-real-123456 ", "whitespace"),
        ("sk-proj-9f8e7d6c5b4a", None),
    ],
)
def test_key_problem(key: str | None, problem: str | None) -> None:
    assert key_problem(key) == problem


def test_keys_are_read_at_call_time_and_never_stored() -> None:
    p = RouteProfile(key_env="MY_KEY", key_rotation=["KEY_2"])
    assert resolve_keys(p, {"MY_KEY": "k1", "KEY_2": "k2"}) == ["k1", "k2"]
    assert resolve_keys(p, {}, override="session") == ["session"]
    dumped = p.model_dump_json() + repr(p)
    assert "k1" not in dumped
    route = p.to_route(fingerprints=[key_fingerprint("k1") or "", key_fingerprint("k2") or ""])
    assert route.key_fingerprint == key_fingerprint("k1")
    assert 'k1"' not in route.model_dump_json()
