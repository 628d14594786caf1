"""Toolchains as users install them work inside the sandbox; secrets stay hidden.

Before: every command got a private HOME and the real one was an empty tmpfs, so rustup's
``cargo`` said "rustup could not choose a version of cargo to run", and a Go or Rust project
with a dependency in the module or registry cache could not build offline. Now the sandbox
points ``RUSTUP_HOME``, ``CARGO_HOME``, ``GOPATH``/``GOMODCACHE`` at what it shows read-only
(``sandbox.toolchains``), and every path of the deny list stays unreadable — also when a
folder holding it is shown (``~/.cargo`` with its ``credentials.toml``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from patchwright.sandbox import Sandbox
from patchwright.sandbox.toolchains import (
    SECRET_HOME_PATHS,
    sanitized_cargo_config,
    toolchain_view,
)

DECOY = "decoy-secret-material"
REAL_HOME = Path(os.path.expanduser("~"))


def _bwrap(repo: Path) -> Sandbox:
    box = Sandbox(repo, isolation="bwrap")
    if box.layer.mode != "bwrap":
        box.close()
        pytest.skip(f"bubblewrap is not available here: {box.isolation}")
    return box


def test_the_view_leads_each_toolchain_to_its_real_installation(tmp_path: Path) -> None:
    home, private = tmp_path / "home", tmp_path / "private"
    for sub in (".rustup/toolchains", ".cargo/bin", ".cargo/registry/cache", "go/pkg/mod", ".nvm"):
        (home / sub).mkdir(parents=True)
    (home / ".cargo" / "config.toml").write_text(
        '[source.local]\ndirectory = "/usr/share/cargo/registry"\n'
        '[registry]\ntoken = "cio-token"\n[http]\nproxy = "http://me:pw@proxy:3128"\n'
    )
    (home / ".cargo" / "credentials.toml").write_text('[registry]\ntoken = "cio-token"\n')
    view = toolchain_view(home, {"PATH": "/usr/bin"}, private, allow_net=False)
    env = view.env
    assert env["RUSTUP_HOME"] == str(home / ".rustup")
    cargo_home = Path(env["CARGO_HOME"])
    assert cargo_home == private / "cargo-home"  # a scratch home: cargo may write its locks
    assert (cargo_home / "bin").resolve() == (home / ".cargo" / "bin").resolve()
    assert (cargo_home / "registry").resolve() == (home / ".cargo" / "registry").resolve()
    assert not (cargo_home / "credentials.toml").exists()
    copied = (cargo_home / "config.toml").read_text()
    assert "cio-token" not in copied and "me:pw" not in copied and "[source.local]" in copied
    assert env["GOPATH"] == str(home / "go") and env["GOMODCACHE"] == str(home / "go/pkg/mod")
    assert env["GOCACHE"] == str(private / "go-build")  # writable, in the private directory
    assert env["GOPROXY"] == "off" and env["CARGO_NET_OFFLINE"] == "true"
    if shutil.which("go", path="/usr/bin"):  # a go that stamps binaries is told not to
        assert env["GOFLAGS"] == "-buildvcs=false"
    for shown in (".rustup", ".cargo/bin", ".cargo/registry", "go", ".nvm"):
        assert home / shown in view.shown, shown
    assert home / ".cargo" not in view.shown and home / ".cargo/credentials.toml" in view.secrets
    online = toolchain_view(home, {"GOFLAGS": "-mod=vendor"}, private, allow_net=True).env
    assert "GOPROXY" not in online and "CARGO_NET_OFFLINE" not in online
    assert "GOFLAGS" not in online  # the user's own GOFLAGS stay as they are


def test_a_cargo_config_loses_only_its_credential_lines() -> None:
    text = (
        "[build]\njobs = 2\n[registries.corp]\nindex = 'sparse+https://corp/index/'\n"
        "token = 'abc'\ncredential-provider = 'cargo:token'\n"
        "[net]\ngit-fetch-with-cli = true\n"
    )
    clean = sanitized_cargo_config(text)
    assert "abc" not in clean and "credential-provider" not in clean
    assert "jobs = 2" in clean and "index = 'sparse+https://corp/index/'" in clean


def test_every_secret_of_the_deny_list_is_unreadable_even_inside_a_shown_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    for rel in SECRET_HOME_PATHS:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel in (".ssh", ".aws", ".gnupg", ".docker", ".kube", ".config", ".azure"):
            path.mkdir()
            path = path / "key"
        path.write_text(DECOY)
    (home / ".nvm" / "versions").mkdir(parents=True)
    (home / ".nvm" / "versions" / "tool.txt").write_text("visible toolchain\n")
    monkeypatch.setenv("HOME", str(home))
    # PATH entries that show folders holding secrets whole: ~/.cargo, ~/.local, ~/.gem, ~/.m2
    shown = [home / ".cargo", home / ".local", home / ".gem", home / ".m2", home / ".gradle"]
    monkeypatch.setenv("PATH", os.pathsep.join([*map(str, shown), os.environ["PATH"]]))
    repo = tmp_path / "repo"
    repo.mkdir()
    box = _bwrap(repo)
    try:
        for rel in SECRET_HOME_PATHS:
            target = home / rel
            cmd = f"cat {target} {target}/key 2>&1; ls -a {target.parent}"
            result = box.run(cmd, timeout=30)
            assert DECOY not in result.stdout + result.stderr, rel
        # the folders shown stay readable; what they hold of the deny list does not
        listing = box.run(f"ls -a {home}/.cargo {home}/.local/share", timeout=30)
        assert "credentials.toml" in listing.stdout  # its name, covered
        denied = box.run(f"cat {home}/.cargo/credentials.toml", timeout=30)
        assert denied.exit_code != 0 and denied.blocked_by == "hidden-path"
        ok = box.run(f"cat {home}/.nvm/versions/tool.txt", timeout=30)
        assert ok.exit_code == 0 and "visible toolchain" in ok.stdout
    finally:
        box.close()


# --- real toolchains, offline ---------------------------------------------------------------

CARGO_TOML = (
    '[package]\nname = "proj"\nversion = "0.1.0"\nedition = "2021"\n\n'
    '[dependencies]\ngreet = "0.1"\n'
)
LIB_RS = (
    'pub fn hello() -> String { format!("{} there", greet::hi()) }\n\n'
    "#[cfg(test)]\nmod tests {\n"
    '    #[test]\n    fn hello_uses_greet() { assert_eq!(super::hello(), "hi there"); }\n}\n'
)


def _real_rustup() -> tuple[Path, Path]:
    rustup, cargo_bin = REAL_HOME / ".rustup", REAL_HOME / ".cargo" / "bin"
    if not (rustup / "toolchains").is_dir() or not (cargo_bin / "cargo").exists():
        pytest.skip("rustup is not installed in this user's HOME (~/.rustup, ~/.cargo/bin)")
    return rustup, cargo_bin


def _exec(repo: Path, home: Path, path: str, command: str) -> dict[str, object]:
    """``patchwright exec --json`` as a user with ``home`` as HOME runs it."""
    env = {**os.environ, "HOME": str(home), "PATH": path}
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "exec", "--repo", str(repo), "--json",
         "--timeout", "240", "--", command],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    payload: dict[str, object] = json.loads(proc.stdout)
    return payload


def test_rustup_cargo_runs_in_the_sandbox_with_the_real_home(tmp_path: Path) -> None:
    _real_rustup()
    box = _bwrap(tmp_path)
    try:
        result = box.run("cargo --version && rustc --version", timeout=60)
    finally:
        box.close()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("cargo ")


def test_cargo_test_builds_a_registry_dependency_offline_and_secrets_stay_hidden(
    tmp_path: Path,
) -> None:
    rustup, cargo_bin = _real_rustup()
    home = tmp_path / "home"
    (home / ".cargo").mkdir(parents=True)
    (home / ".rustup").symlink_to(rustup)  # rustup as users install it: in HOME
    (home / ".cargo" / "bin").symlink_to(cargo_bin)
    crates = tmp_path / "crates"  # a directory source, as `cargo vendor` or Debian make
    (crates / "greet" / "src").mkdir(parents=True)
    (crates / "greet" / "Cargo.toml").write_text(
        '[package]\nname = "greet"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (crates / "greet" / "src" / "lib.rs").write_text('pub fn hi() -> &\'static str { "hi" }\n')
    (crates / "greet" / ".cargo-checksum.json").write_text('{"files":{},"package":null}')
    (home / ".cargo" / "config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "local"\n[source.local]\ndirectory = "{crates}"\n'
        f'[registry]\ntoken = "{DECOY}"\n'
    )
    (home / ".cargo" / "credentials.toml").write_text(f'[registry]\ntoken = "{DECOY}"\n')
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text(DECOY)
    repo = tmp_path / "proj"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text(CARGO_TOML)
    (repo / "src" / "lib.rs").write_text(LIB_RS)
    path = f"{home / '.cargo' / 'bin'}:/usr/local/bin:/usr/bin:/bin"

    tested = _exec(repo, home, path, "cargo test 2>&1")
    assert tested["exit_code"] == 0, tested
    assert "test tests::hello_uses_greet ... ok" in str(tested["stdout"])
    snoop = (
        f"cat $CARGO_HOME/config.toml; cat $CARGO_HOME/credentials.toml; "
        f"cat ~/.cargo/credentials.toml; cat {home}/.cargo/credentials.toml {home}/.ssh/id_ed25519"
    )
    peeked = _exec(repo, home, path, snoop)
    assert DECOY not in str(peeked["stdout"]) + str(peeked["stderr"])
    assert "No such file" in str(peeked["stderr"]) and peeked["blocked_by"] == "hidden-path"


GO_TEST = (
    'package calc\n\nimport "testing"\n\n'
    'func TestGreet(t *testing.T) {\n\tif Greet() != "hi there" {\n\t\tt.Fatal(Greet())\n\t}\n}\n'
)


def _go_module_cache(tmp_path: Path, gopath: Path, repo: Path) -> None:
    """Fill ``gopath``'s module cache with example.com/greet from a file proxy (offline)."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("go is not installed (scripts/setup.sh installs Debian's golang-go)")
    proxy = tmp_path / "proxy" / "example.com" / "greet" / "@v"
    proxy.mkdir(parents=True)
    mod = "module example.com/greet\n\ngo 1.19\n"
    with zipfile.ZipFile(proxy / "v1.0.0.zip", "w") as archive:
        archive.writestr("example.com/greet@v1.0.0/go.mod", mod)
        archive.writestr(
            "example.com/greet@v1.0.0/greet.go",
            'package greet\n\nfunc Hi() string { return "hi" }\n',
        )
    (proxy / "v1.0.0.mod").write_text(mod)
    (proxy / "v1.0.0.info").write_text('{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}')
    (proxy / "list").write_text("v1.0.0\n")
    env = {**os.environ, "GOPATH": str(gopath), "GOPROXY": f"file://{tmp_path / 'proxy'}",
           "GOSUMDB": "off", "GOFLAGS": "-mod=mod", "GOCACHE": str(tmp_path / "gocache")}  # fmt: skip
    subprocess.run([go, "mod", "tidy"], cwd=repo, env=env, check=True, capture_output=True)
    assert (gopath / "pkg" / "mod" / "example.com" / "greet@v1.0.0" / "greet.go").is_file()


def test_go_test_builds_a_module_from_the_cache_offline_and_secrets_stay_hidden(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(DECOY)
    repo = tmp_path / "proj"
    repo.mkdir()
    (repo / "go.mod").write_text(
        "module example.com/proj\n\ngo 1.19\n\nrequire example.com/greet v1.0.0\n"
    )
    (repo / "calc.go").write_text(
        'package calc\n\nimport "example.com/greet"\n\n'
        'func Greet() string { return greet.Hi() + " there" }\n'
    )
    (repo / "calc_test.go").write_text(GO_TEST)
    _go_module_cache(tmp_path, home / "go", repo)
    path = os.environ["PATH"]

    tested = _exec(repo, home, path, "go test ./... 2>&1")
    assert tested["exit_code"] == 0, tested
    assert "ok  \texample.com/proj" in str(tested["stdout"])
    peeked = _exec(repo, home, path, f"go env GOMODCACHE GOPROXY; cat {home}/.ssh/id_rsa")
    assert DECOY not in str(peeked["stdout"]) + str(peeked["stderr"])
    assert peeked["blocked_by"] == "hidden-path"
    assert str(peeked["stdout"]).split() == [str(home / "go" / "pkg" / "mod"), "off"]


def test_webassembly_loads_under_the_address_space_limit(tmp_path: Path) -> None:
    """V8 reserves ~10 GiB of address space per wasm memory; under the sandbox's 8 GiB
    ``RLIMIT_AS`` vitest died with "Cannot allocate Wasm memory" until the trap handler was
    turned off (node's own ``--disable-wasm-trap-handler``)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    wasm = "new WebAssembly.Memory({initial: 1}); console.log('wasm ok')"
    box = Sandbox(tmp_path)
    try:
        ran = box.run([node, "-e", wasm], timeout=30)
        kept = box.run([node, "-e", wasm], extra_env={"NODE_OPTIONS": "--no-warnings"}, timeout=30)
    finally:
        box.close()
    if (
        "--disable-wasm-trap-handler"
        not in subprocess.run([node, "--help"], capture_output=True, text=True, check=False).stdout
    ):
        pytest.skip("this node has no --disable-wasm-trap-handler (before 20.15)")
    assert ran.exit_code == 0 and "wasm ok" in ran.stdout, ran.stderr
    assert kept.exit_code == 0 and "wasm ok" in kept.stdout, kept.stderr
