"""Route profiles: defaults, environment variables, profile files, flags, fingerprints."""

from __future__ import annotations

import re

import pytest
from fake_keys import FAKE_KEY

from analyzer.errors import RouteError
from analyzer.routes.profile import RouteProfile, build_profile
from analyzer.safety.keys import key_fingerprint, key_problem, read_keys


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
    fp = key_fingerprint(FAKE_KEY)
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
    keys = read_keys(p.key_envs(), env={"MY_KEY": "k1", "KEY_2": "k2"})
    assert list(keys.keys) == ["k1", "k2"] and keys.source == "env:MY_KEY"
    session = read_keys(p.key_envs(), session_key="session", env={})
    assert list(session.keys) == ["session"] and session.source == "session"
    assert "k1" not in repr(keys) and key_fingerprint("k1") in repr(keys.fingerprints)
    dumped = p.model_dump_json() + repr(p)
    assert "k1" not in dumped
    route = p.to_route(fingerprints=[key_fingerprint("k1") or "", key_fingerprint("k2") or ""])
    assert route.key_fingerprint == key_fingerprint("k1")
    assert 'k1"' not in route.model_dump_json()


@pytest.mark.parametrize(
    "key", ["sk-a\nb-1234567", "sk-abc\t123456", "sk-abc\x1b123456", "sk-abc\u200b123456"]
)
def test_key_problem_sees_inner_white_space_and_control_characters(key: str) -> None:
    assert key_problem(key) == "whitespace"


@pytest.mark.parametrize("raw", ["99999999999999999999999", "-9223372036854775809"])
def test_seed_is_a_signed_64_bit_integer(raw: str) -> None:
    with pytest.raises(RouteError, match=f"^ALTK_SEED='{raw}'"):
        build_profile(env={"ALTK_SEED": raw})
    with pytest.raises(RouteError, match="^--seed="):
        build_profile(env={}, overrides={"seed": int(raw)})
    assert build_profile(env={"ALTK_SEED": str(2**63 - 1)}).seed == 2**63 - 1


@pytest.mark.parametrize("value", ["inf", "nan", "1e308", "3601"])
def test_timeout_is_finite_and_at_most_an_hour(value: str, tmp_path) -> None:
    with pytest.raises(RouteError, match="^ALTK_TIMEOUT="):
        build_profile(env={"ALTK_TIMEOUT": value})
    with pytest.raises(RouteError, match="^--timeout="):
        build_profile(env={}, overrides={"timeout_s": float(value)})
    f = tmp_path / "p.toml"
    f.write_text(f"timeout_s = {value if value != '3601' else '3601.0'}\n")
    with pytest.raises(RouteError, match="timeout_s"):
        build_profile(file=f, env={})
    assert build_profile(env={"ALTK_TIMEOUT": "3600"}).timeout_s == 3600


def test_errors_name_the_flag_the_user_typed() -> None:
    with pytest.raises(RouteError, match="^--repeat='0'"):
        build_profile(env={}, overrides={"rounds": 0})
    with pytest.raises(RouteError, match="^ALTK_REPEAT='0'"):
        build_profile(env={"ALTK_REPEAT": "0"})


def test_base_layer_sits_between_defaults_and_the_environment() -> None:
    base = {"model": "parent-model", "temperature": 0.7}
    p = build_profile(env={}, base=base)
    assert (p.model, p.temperature) == ("parent-model", 0.7)
    p = build_profile(env={"ALTK_MODEL": "env-model"}, base=base, overrides={"temperature": 0.2})
    assert (p.model, p.temperature) == ("env-model", 0.2)


def test_to_route_keeps_a_redacted_base_url_readable() -> None:
    p = RouteProfile(base_url="http://u:secret@127.0.0.1:9/v1")
    route = p.to_route(base_url=p.public_dump()["base_url"])
    assert route.base_url == "http://u:REDACTED@127.0.0.1:9/v1"
    assert p.to_route().base_url == route.base_url


def test_max_tokens_is_bounded() -> None:
    with pytest.raises(RouteError, match="^--max-tokens="):
        build_profile(env={}, overrides={"max_tokens": 10**20})
    assert build_profile(env={}, overrides={"max_tokens": 10_000_000}).max_tokens == 10_000_000
