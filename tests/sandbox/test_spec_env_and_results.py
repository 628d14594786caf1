"""Specification of the sandbox's pure rules: the environment a command gets, the limits
it may be given, the verdicts and results it reports, and the programs a line runs.

The environment is rebuilt, never inherited: only allowlisted names pass, secrets are
dropped by name or by value (even from the caller's own additions), and ``HOME``,
``TMPDIR`` and the run's token are always the sandbox's, whatever anyone passes.
"""

from __future__ import annotations

import json

import pytest

from patchwright.sandbox import ExecResult, Limits, Verdict, build_env
from patchwright.sandbox.envbuild import (
    ALLOWED_NAMES,
    SANDBOX_TOKEN_VAR,
    is_allowed,
    looks_like_locale,
    looks_secret,
)
from patchwright.sandbox.policy import program_names
from patchwright.sandbox.verdict import SAFE, ask, forbid, worst


def env_of(base: dict[str, str], **extra: str) -> dict[str, str]:
    return build_env(base, home="/sbx/home", tmpdir="/sbx/tmp", token="tok", extra=extra)


# -- the environment -------------------------------------------------------------------------------


def test_nothing_is_inherited_but_a_default_path_and_locale_and_the_sandbox_variables() -> None:
    assert env_of({}) == {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": "/sbx/home",
        "TMPDIR": "/sbx/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        SANDBOX_TOKEN_VAR: "tok",
    }


def test_the_users_path_and_lang_replace_the_defaults() -> None:
    env = env_of({"PATH": "/opt/bin:/usr/bin", "LANG": "de_DE.UTF-8"})
    assert (env["PATH"], env["LANG"]) == ("/opt/bin:/usr/bin", "de_DE.UTF-8")


def test_home_tmpdir_and_the_token_cannot_be_overridden() -> None:
    env = env_of(
        {"HOME": "/root", "TMPDIR": "/tmp"},
        HOME="/home/me",
        TMPDIR="/var/tmp",
        **{SANDBOX_TOKEN_VAR: "forged"},
    )
    assert (env["HOME"], env["TMPDIR"], env[SANDBOX_TOKEN_VAR]) == ("/sbx/home", "/sbx/tmp", "tok")


@pytest.mark.parametrize(
    "name",
    ["SSH_AUTH_SOCK", "AWS_PROFILE", "DOCKER_HOST", "KUBECONFIG", "LD_PRELOAD", "PYTHONSTARTUP"],
)
def test_host_plumbing_outside_the_allowlist_is_dropped(name: str) -> None:
    assert name not in env_of({name: "/somewhere"})


def test_pytest_loads_the_plugins_it_loads_in_the_users_shell_but_runs_every_test() -> None:
    env = env_of({"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_PLUGINS": "pytest_asyncio",
                  "PYTEST_ADDOPTS": "-x -k fast"})  # fmt: skip
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"
    assert env["PYTEST_PLUGINS"] == "pytest_asyncio"
    assert "PYTEST_ADDOPTS" not in env  # -x or -k would hide per-test outcomes


def test_an_allowlisted_variable_carrying_a_password_in_a_url_is_dropped() -> None:
    env = env_of({"GOPROXY": "https://user:hunter2@proxy.corp/", "GOPATH": "/go"})
    assert "GOPROXY" not in env and env["GOPATH"] == "/go"
    assert env_of({"GOPROXY": "https://proxy.golang.org,direct"})["GOPROXY"].startswith("https")


def test_the_callers_additions_pass_unless_they_look_secret() -> None:
    env = env_of({}, MY_FLAG="1", DATABASE_URL="postgres://app:pw@db/app", SESSION_ID="s")
    assert env["MY_FLAG"] == "1"
    assert "DATABASE_URL" not in env and "SESSION_ID" not in env


def test_the_allowlist_is_by_name_and_knows_nothing_else() -> None:
    for name in ALLOWED_NAMES:
        assert is_allowed(name, "/some/value"), name
    assert not is_allowed("RANDOM_NAME", "x")
    assert not is_allowed("path", "/usr/bin"), "names are case-sensitive"


def test_every_allowlisted_variable_reaches_the_command_with_an_ordinary_value() -> None:
    base = {name: "example.com/corp/*" for name in ALLOWED_NAMES}
    env = env_of(base)
    assert sorted(set(ALLOWED_NAMES) - set(env)) == []


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("MY_APIKEY", True),  # a weak word at the end of a part
        ("SESSION_ID", True),
        ("BASIC_AUTH", True),
        ("GPG_PASSPHRASE", True),
        ("browser_cookie", True),  # case does not matter
        ("KEYBOARD_LAYOUT", False),  # a weak word at the start of a part is not enough
        ("AUTHOR_NAME", False),
        ("HTTP_PROXY", False),
    ],
)
def test_secret_names_are_told_by_strong_words_anywhere_and_weak_words_at_a_parts_end(
    name: str, secret: bool
) -> None:
    assert looks_secret(name) is secret


def test_a_url_carries_a_secret_only_with_a_password() -> None:
    assert looks_secret("ANY", "redis://:s3cret@cache:6379/0")
    assert not looks_secret("ANY", "https://user@host/path")
    assert not looks_secret("ANY", "https://host:8443/path")


@pytest.mark.parametrize(
    ("value", "locale"),
    [
        ("C", True),
        ("sr_RS.UTF-8@latin", True),
        ("en_US.UTF-8:en_GB:en", True),
        ("en_US.UTF-8:$(id)", False),
        ("en US", False),
        ("x" * 40, False),
    ],
)
def test_a_locale_value_is_a_locale_or_a_colon_list_of_them(value: str, locale: bool) -> None:
    assert looks_like_locale(value) is locale


# -- limits --------------------------------------------------------------------------------------


def test_the_default_limits_are_finite_for_every_resource() -> None:
    limits = Limits()
    for name in ("cpu_seconds", "address_space_bytes", "file_size_bytes", "processes"):
        value = getattr(limits, name)
        assert value is not None and value > 0, name
    assert limits.disk_bytes is not None and limits.file_size_bytes <= limits.disk_bytes


def test_none_means_unlimited_and_is_accepted_everywhere_it_may_be() -> None:
    limits = Limits(
        cpu_seconds=None,
        address_space_bytes=None,
        file_size_bytes=None,
        processes=None,
        open_files=None,
        disk_bytes=None,
    )
    assert limits.cpu_seconds is None and limits.disk_bytes is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("cpu_seconds", 0, "cpu_seconds must be positive"),
        ("disk_bytes", -1, "disk_bytes must be positive"),
        ("open_files", 15, "open_files must be at least 16"),
        ("output_bytes", 63, "output_bytes must be at least 64"),
        ("kill_grace", -0.1, "kill_grace must not be negative"),
    ],
)
def test_a_limit_that_could_not_work_is_refused_with_its_name(
    field: str, value: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Limits(**{field: value})  # type: ignore[arg-type]


# -- verdicts and results ------------------------------------------------------------------------


def test_the_worst_verdict_wins_and_the_first_of_a_level_is_kept() -> None:
    first_ask, second_ask = ask("a1", "first"), ask("a2", "second")
    assert worst([]) == SAFE
    assert worst([SAFE, first_ask, second_ask]) is first_ask
    hard = forbid("f", "never")
    assert worst([first_ask, hard, SAFE]) is hard


def test_only_a_forbidden_verdict_is_not_allowed() -> None:
    assert SAFE.allowed and ask("r", "why").allowed
    assert not forbid("r", "why").allowed
    assert Verdict("forbidden").allowed is False


def test_a_result_is_ok_only_when_it_ran_to_the_end_and_exited_zero() -> None:
    assert ExecResult(0, "", "").ok
    assert not ExecResult(1, "", "").ok
    assert not ExecResult(None, "", "", blocked_by="policy:sudo").ok
    assert not ExecResult(0, "", "", timed_out=True).ok


def test_the_files_a_stopped_command_wrote_stay_out_of_the_json() -> None:
    result = ExecResult(
        None,
        "",
        "stopped",
        blocked_by="disk-limit",
        seconds=0.0004,
        killed_by="disk-limit",
        written=("big.bin",),
        removed=("big.bin",),
    )
    data = json.loads(result.to_json())
    assert set(data) == {
        "exit_code",
        "stdout",
        "stderr",
        "timed_out",
        "blocked_by",
        "truncated",
        "seconds",
    }
    assert data["seconds"] == 0.0 and data["blocked_by"] == "disk-limit"
    assert result.to_dict()["written"] == ("big.bin",)


# -- program names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("FOO=1 timeout 5 pytest -q && npm test", ["pytest", "npm"]),
        ("env -i X=1 nice -n 5 cargo test", ["cargo"]),
        ("python -m pytest | tee log", ["python", "tee"]),
        ("/usr/bin/make -j4", ["make"]),
        ('broken "quote', []),
    ],
)
def test_the_programs_a_line_runs_are_named_without_their_wrappers(
    line: str, names: list[str]
) -> None:
    assert program_names(line) == names


def test_an_argv_is_named_by_its_program_too() -> None:
    assert program_names(["/usr/bin/timeout", "3", "/usr/bin/python3", "-V"]) == ["python3"]
    assert program_names([]) == []
