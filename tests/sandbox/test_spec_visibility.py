"""Specification of what a sandboxed command can see, as a pure function of the host.

The bubblewrap command line (:func:`bwrap_argv`) is built without launching anything, so
the view can be checked exactly: the real HOME is hidden and only its toolchains come back
(read-only); the deny list (``~/.ssh``, ``~/.aws``, ``~/.config``, registry tokens, shell
histories) is never shown, not even through a ``PATH`` entry; a secret inside a folder
that *is* shown is covered; the repository is writable but its git and state folders are
not; the command runs in its own pid namespace with no capabilities, and without network
unless allowed.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from patchwright.sandbox.bwrap import MASK_FILE, Wrapped, bwrap_argv
from patchwright.sandbox.toolchains import (
    SECRET_HOME_ENTRIES,
    SECRET_HOME_PATHS,
    ToolchainView,
    is_secret,
    sanitized_cargo_config,
    secret_paths,
)


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with secrets, toolchains and a project, standing in for the user's."""
    home = tmp_path / "home"
    for sub in (".ssh", ".aws", ".config/tool/bin", ".rustup", ".cargo/bin", "bin", "proj"):
        (home / sub).mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("fake key\n")
    (home / ".bash_history").write_text("export TOKEN=x\n")
    monkeypatch.setenv("HOME", str(home))
    return home


def view(home: Path, tmp_path: Path, **kw: object) -> Wrapped:
    private = tmp_path / "private"
    private.mkdir(exist_ok=True)
    root = home / "proj"
    kw.setdefault("allow_net", False)
    return bwrap_argv(["make", "test"], root=root, private=private, cwd=root, **kw)  # type: ignore[arg-type]


def pairs(argv: list[str], flag: str) -> list[str]:
    """The first operand of every ``flag`` in ``argv``."""
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


# -- HOME and its secrets -----------------------------------------------------------------------


def test_the_real_home_is_hidden_and_its_secrets_with_it(home: Path, tmp_path: Path) -> None:
    plan = view(home, tmp_path)
    assert str(home) in pairs(plan.argv, "--tmpfs")
    for secret in (".ssh/id_ed25519", ".aws/credentials", ".bash_history", ".config/gh/hosts"):
        assert plan.is_hidden(home / secret), secret


def test_toolchains_under_home_come_back_read_only(home: Path, tmp_path: Path) -> None:
    plan = view(home, tmp_path)
    shown = pairs(plan.argv, "--ro-bind-try")
    assert str(home / ".rustup") in shown and str(home / ".cargo" / "bin") in shown
    assert not plan.is_hidden(home / ".rustup" / "toolchains" / "x")
    assert str(home / ".rustup") not in pairs(plan.argv, "--bind"), "never writable"


def test_a_path_entry_under_home_is_shown_unless_it_lies_in_a_secret(
    home: Path, tmp_path: Path
) -> None:
    path = f"{home / 'bin'}:{home / '.config' / 'tool' / 'bin'}:{home / '.ssh'}:/usr/bin"
    plan = view(home, tmp_path, env={"PATH": path})
    assert not plan.is_hidden(home / "bin" / "mytool")
    assert plan.is_hidden(home / ".config" / "tool" / "bin" / "x")
    assert plan.is_hidden(home / ".ssh" / "id_ed25519")
    everything = " ".join(plan.argv)
    assert ".ssh" not in everything and ".config" not in everything


def test_the_project_under_home_is_writable_but_its_state_folders_are_not(
    home: Path, tmp_path: Path
) -> None:
    root = home / "proj"
    plan = view(home, tmp_path)
    assert not plan.is_hidden(root / "src" / "a.py")
    assert str(root) in pairs(plan.argv, "--bind")
    read_only = pairs(plan.argv, "--ro-bind")
    assert str(root / ".patchwright") in read_only
    assert plan.argv.index(str(root / ".patchwright")) > plan.argv.index(str(root))


def test_a_secret_inside_a_shown_folder_is_covered_by_an_unreadable_file(
    home: Path, tmp_path: Path
) -> None:
    cargo = tmp_path / "opt-cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "credentials.toml").write_text('[registry]\ntoken = "x"\n')
    toolchains = ToolchainView(shown=(cargo,), secrets=tuple(secret_paths(home, cargo)))
    plan = view(home, tmp_path, toolchains=toolchains)
    assert not plan.is_hidden(cargo / "bin" / "cargo")
    assert plan.is_hidden(cargo / "credentials.toml")
    mask = tmp_path / "private" / MASK_FILE
    i = plan.argv.index(str(cargo / "credentials.toml"))
    assert plan.argv[i - 2 : i] == ["--ro-bind", str(mask)]
    assert stat.S_IMODE(mask.stat().st_mode) == 0, "the cover is readable by no one"
    assert mask.stat().st_size == 0, "and holds nothing"


def test_a_secret_folder_shown_by_a_toolchain_is_covered_by_an_empty_read_only_tmpfs(
    home: Path, tmp_path: Path
) -> None:
    tool = tmp_path / "tool"
    (tool / ".ssh").mkdir(parents=True)
    toolchains = ToolchainView(shown=(tool,), secrets=(tool / ".ssh",))
    plan = view(home, tmp_path, toolchains=toolchains)
    assert str(tool / ".ssh") in pairs(plan.argv, "--tmpfs")
    assert str(tool / ".ssh") in pairs(plan.argv, "--remount-ro")
    assert plan.is_hidden(tool / ".ssh" / "id_rsa")


def test_a_secret_that_does_not_exist_needs_no_cover(home: Path, tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.mkdir()
    plan = view(
        home, tmp_path, toolchains=ToolchainView(shown=(tool,), secrets=(tool / "absent.toml",))
    )
    assert plan.masked == []
    assert not (tmp_path / "private" / MASK_FILE).exists()


# -- scratch areas, processes, network ------------------------------------------------------------


def test_host_scratch_areas_are_empty_and_read_only(home: Path, tmp_path: Path) -> None:
    plan = view(home, tmp_path)
    for area in ("/tmp", "/run"):
        assert area in pairs(plan.argv, "--tmpfs")
        assert area in pairs(plan.argv, "--remount-ro")
    assert plan.is_hidden(Path("/run/docker.sock"))
    assert plan.is_hidden(Path("/tmp/.X11-unix/X0"))


def test_the_command_gets_its_own_pids_no_capabilities_and_its_cwd(
    home: Path, tmp_path: Path
) -> None:
    argv = view(home, tmp_path).argv
    cap = argv.index("--cap-drop")
    assert argv[cap + 1] == "ALL"
    for flag in ("--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--chdir") + 1] == str(home / "proj")
    separator = argv.index("--")
    assert argv[separator + 1 :] == ["make", "test"]
    assert all(not a.startswith("--unshare") for a in argv[separator:])


def test_the_network_is_cut_unless_allowed(home: Path, tmp_path: Path) -> None:
    assert "--unshare-net" in view(home, tmp_path).argv
    assert "--unshare-net" not in view(home, tmp_path, allow_net=True).argv


def test_the_argv_is_passed_through_untouched_after_the_separator(
    home: Path, tmp_path: Path
) -> None:
    private = tmp_path / "private"
    private.mkdir()
    odd = ["sh", "-c", "echo $HOME; rm -rf --no-preserve-root /", "--", "--tmpfs"]
    argv = bwrap_argv(odd, root=home / "proj", private=private, cwd=home, allow_net=False).argv
    assert argv[argv.index("--") + 1 :] == odd


# -- the deny list ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        ".ssh/id_rsa",
        ".aws/credentials",
        ".config/gcloud/credentials.db",
        ".kube/config",
        ".docker/config.json",
        ".gnupg/private-keys-v1.d/x.key",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".cargo/credentials.toml",
        ".local/share/keyrings/login.keyring",
        ".bash_history",
        ".python_history",
    ],
)
def test_credentials_keys_and_histories_are_secrets(tmp_path: Path, rel: str) -> None:
    assert is_secret(tmp_path / rel, tmp_path)


@pytest.mark.parametrize(
    "rel", [".cargo/bin/cargo", ".rustup/toolchains", "go/pkg/mod", ".local/bin/ruff", "proj/.env"]
)
def test_toolchains_and_projects_are_not_secrets(tmp_path: Path, rel: str) -> None:
    assert not is_secret(tmp_path / rel, tmp_path)


def test_a_path_outside_home_is_not_judged_by_the_home_deny_list(tmp_path: Path) -> None:
    assert not is_secret(Path("/etc/ssh/ssh_config"), tmp_path / "home")


def test_every_top_level_secret_entry_is_on_the_deny_list() -> None:
    listed = {Path(rel).parts[0] for rel in SECRET_HOME_PATHS}
    assert listed >= SECRET_HOME_ENTRIES


def test_secret_paths_add_the_credentials_of_a_cargo_home_outside_home(tmp_path: Path) -> None:
    home, cargo = tmp_path / "home", tmp_path / "cargo"
    paths = secret_paths(home, cargo)
    assert home / ".ssh" in paths
    assert cargo / "credentials.toml" in paths and cargo / "credentials" in paths
    assert len(paths) == len(set(paths))


def test_a_cargo_config_loses_tokens_and_urls_with_passwords_and_nothing_else() -> None:
    text = (
        '[registries.corp]\nindex = "https://user:hunter2@corp.example/index"\n'
        '[http]\nproxy = "http://proxy.local:3128"\n'
        '"auth-token" = "x"\nsecret_key = "y"\n'
    )
    clean = sanitized_cargo_config(text)
    assert clean == '[registries.corp]\n[http]\nproxy = "http://proxy.local:3128"\n'
    assert sanitized_cargo_config("") == ""
