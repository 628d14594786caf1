"""Layered settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.config import ConfigError, load_settings


def test_project_config_overrides_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / ".patchwright").mkdir()
    (tmp_path / ".patchwright" / "config.toml").write_text("[run]\nmax_iter = 7\n")
    settings = load_settings(tmp_path, {"model": {"name": "scripted:x.jsonl"}})
    assert settings.run.max_iter == 7
    assert settings.model.name == "scripted:x.jsonl"


def test_bad_toml_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / ".patchwright").mkdir()
    bad = tmp_path / ".patchwright" / "config.toml"
    bad.write_text("[run\n")
    with pytest.raises(ConfigError, match=r"config\.toml"):
        load_settings(tmp_path)


def test_unknown_key_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with pytest.raises(ConfigError):
        load_settings(tmp_path, {"run": {"max_iterations": 3}})


def test_a_repositorys_own_config_cannot_turn_on_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.delenv("PATCHWRIGHT_GIT_RUN_HOOKS", raising=False)
    (tmp_path / ".patchwright").mkdir()
    (tmp_path / ".patchwright" / "config.toml").write_text("[git]\nrun_hooks = true\n")
    assert load_settings(tmp_path).git.run_hooks is False
    (xdg / "patchwright").mkdir(parents=True)
    (xdg / "patchwright" / "config.toml").write_text("[git]\nrun_hooks = true\n")
    assert load_settings(tmp_path).git.run_hooks is True
    (xdg / "patchwright" / "config.toml").unlink()
    monkeypatch.setenv("PATCHWRIGHT_GIT_RUN_HOOKS", "true")
    assert load_settings(tmp_path).git.run_hooks is True


def test_prompt_lookup_is_on_unless_the_user_turns_it_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PATCHWRIGHT_PROMPT_LOOKUP", raising=False)
    assert load_settings(tmp_path).model.prompt_lookup is True
    monkeypatch.setenv("PATCHWRIGHT_PROMPT_LOOKUP", "false")
    assert load_settings(tmp_path).model.prompt_lookup is False
