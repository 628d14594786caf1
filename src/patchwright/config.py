"""Layered settings: built-in defaults < ~/.config/patchwright/config.toml <
<repo>/.patchwright/config.toml < PATCHWRIGHT_* environment variables < command-line flags.

Leaf packages never read this module; front ends and modes read it and pass plain
values down.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class ConfigError(Exception):
    """A configuration file or value is invalid; the message says which and why."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelSettings(_Section):
    name: str = "local:qwen2.5-coder-1.5b"
    fallback: list[str] = Field(default_factory=list)
    max_cost: float | None = None
    max_tokens: int | None = None
    max_calls: int | None = None
    timeout: float = 600.0
    cooldown_seconds: float = 1200.0
    keys: dict[str, list[str]] = Field(default_factory=dict)
    catalog: dict[str, dict[str, Any]] = Field(default_factory=dict)


class FilesSettings(_Section):
    max_file_bytes: int = 512 * 1024
    max_total_bytes: int = 8 * 1024 * 1024


class SandboxSettings(_Section):
    allow_net: bool = False
    timeout: float = 300.0
    disk_budget_mb: int = 2048  # space one command's files may take (Limits.disk_bytes)


class RunSettings(_Section):
    max_iter: int = 4
    edit_format: str = "auto"
    test_cmd: str | None = None
    branch: bool = False
    commit: bool = True


class GitSettings(_Section):
    run_hooks: bool = False  # run the user's own pre-commit hook on patchwright's commits


class McpServerSettings(_Section):
    """One MCP server: a stdio ``command`` (with ``args``, ``env``) or a streamable-HTTP ``url``."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    roles: list[str] = Field(default_factory=lambda: ["coder"])
    timeout: float = 60.0


class McpSettings(_Section):
    servers: dict[str, McpServerSettings] = Field(default_factory=dict)


class AgentSettings(_Section):
    strategy: str = "auto"  # auto | pipeline | agent
    plan: bool = True
    max_rejections: int = 2


class Settings(_Section):
    model: ModelSettings = Field(default_factory=ModelSettings)
    files: FilesSettings = Field(default_factory=FilesSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    run: RunSettings = Field(default_factory=RunSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    git: GitSettings = Field(default_factory=GitSettings)


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "patchwright" / "config.toml"


def project_config_path(repo: Path) -> Path:
    return repo / ".patchwright" / "config.toml"


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from exc


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


_ENV_KEYS = {
    "PATCHWRIGHT_MODEL": ("model", "name"),
    "PATCHWRIGHT_MAX_COST": ("model", "max_cost"),
    "PATCHWRIGHT_TEST_CMD": ("run", "test_cmd"),
    "PATCHWRIGHT_GIT_RUN_HOOKS": ("git", "run_hooks"),
}
# Settings that make patchwright run programs the repository chooses (hooks, MCP servers): a
# cloned repository's own .patchwright/config.toml may not set them, only the user's config.
_USER_ONLY = {("git", "run_hooks"), ("mcp", "servers")}


def _project_layer(repo: Path) -> dict[str, Any]:
    data = _read_toml(project_config_path(repo))
    for section, key in _USER_ONLY:
        part = data.get(section)
        if isinstance(part, dict):
            part.pop(key, None)
    return data


def load_settings(repo: Path | None = None, overrides: dict[str, Any] | None = None) -> Settings:
    """Read every layer and validate the result; raises :class:`ConfigError` on bad input."""
    data = _read_toml(user_config_path())
    if repo is not None:
        data = _merge(data, _project_layer(repo))
    for env, (section, key) in _ENV_KEYS.items():
        if env in os.environ:
            data = _merge(data, {section: {key: os.environ[env]}})
    data = _merge(data, overrides or {})
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {exc}") from exc
