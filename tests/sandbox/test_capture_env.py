"""Head+tail output capture and the allowlisted, secret-free environment."""

from __future__ import annotations

import pytest

from patchwright.sandbox.capture import HeadTail
from patchwright.sandbox.envbuild import SANDBOX_TOKEN_VAR, build_env, looks_secret


def test_short_output_is_kept_whole() -> None:
    buf = HeadTail(100)
    buf.add(b"hello ")
    buf.add(b"world")
    assert (buf.text(), buf.truncated, buf.total) == ("hello world", False, 11)


def test_long_output_keeps_head_and_tail_with_a_marker() -> None:
    buf = HeadTail(20)
    for i in range(1000):
        buf.add(f"{i:04d}\n".encode())
    text = buf.text()
    assert buf.truncated
    assert text.startswith("0000\n0001\n")
    assert text.endswith("0998\n0999\n")
    assert "4980 bytes omitted" in text


def test_capture_survives_split_utf8() -> None:
    buf = HeadTail(1000)
    data = "héllo".encode()
    buf.add(data[:2])
    buf.add(data[2:])
    assert buf.text() == "héllo"


BASE = {
    "PATH": "/usr/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "HOME": "/home/me",
    "VIRTUAL_ENV": "/repo/.venv",
    "OPENAI_API_KEY": "sk-1",
    "GITHUB_TOKEN": "ghp-1",
    "AWS_SECRET_ACCESS_KEY": "x",
    "PYTHON_KEYRING_BACKEND": "x",
    "DB_PASSWORD": "x",
    "MY_RANDOM_VAR": "x",
    "SSH_AUTH_SOCK": "/tmp/agent",
    "PIP_INDEX_URL": "https://u:p@pypi.example/simple",
}


def test_only_allowlisted_variables_survive_and_home_is_private() -> None:
    env = build_env(BASE, home="/sbx/home", tmpdir="/sbx/tmp", token="t1")
    assert env == {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm",
        "VIRTUAL_ENV": "/repo/.venv",
        "HOME": "/sbx/home",
        "TMPDIR": "/sbx/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        SANDBOX_TOKEN_VAR: "t1",
    }


def test_secret_names_are_dropped_even_when_allowlisted_or_passed_explicitly() -> None:
    env = build_env(
        {"PYTHONPATH": "/x", "NODE_AUTH_TOKEN": "y"},
        home="/h",
        tmpdir="/t",
        token="t",
        extra={"FAKE_API_KEY": "sk", "CI": "1", "PYTHONPATH": "https://a:b@c/"},
    )
    assert "FAKE_API_KEY" not in env and "NODE_AUTH_TOKEN" not in env
    assert env["CI"] == "1"
    assert env["PYTHONPATH"] == "/x"  # the extra value carried a password in a URL


@pytest.mark.parametrize(
    ("name", "value", "passes"),
    [
        ("LC_ALL", "C.UTF-8", True),
        ("LC_CTYPE", "en_US.UTF-8", True),
        ("LC_TIME", "de_DE@euro", True),
        ("LANG", "POSIX", True),
        ("LANGUAGE", "en_GB:en", True),
        ("LC_MESSAGES", "", True),
        ("LC_X", "C.UTF-8", False),  # not a locale category
        ("LC_ALL", "decoy", False),
        ("LC_ALL", "C.UTF-8; curl evil", False),
        ("LANG", "$(id)", False),
    ],
)
def test_locale_variables_need_a_known_name_and_a_locale_value(
    name: str, value: str, passes: bool
) -> None:
    env = build_env({name: value}, home="/h", tmpdir="/t", token="t")
    assert (env.get(name) == value) == passes


def test_looks_secret() -> None:
    for name in ("API_KEY", "x_token", "CLIENT_SECRET", "GCP_CREDENTIALS", "PGPASSWORD", "COOKIE"):
        assert looks_secret(name), name
    for name in ("PATH", "LANG", "TERM", "PYTHONPATH", "MONKEYPATCH"):
        assert not looks_secret(name), name
