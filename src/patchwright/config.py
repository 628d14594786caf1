"""Layered settings: built-in defaults < ~/.config/patchwright/config.toml <
<repo>/.patchwright/config.toml < PATCHWRIGHT_* environment variables < command-line flags.

A repository's own config is untrusted input: unless the user trusts it
(:mod:`patchwright.trust`), only the keys in :data:`SAFE_PROJECT_KEYS` are taken from it and
the rest are named in :attr:`Settings.ignored`. Leaf packages never read this module; front
ends and modes read it and pass plain values down.
"""

from __future__ import annotations

import os
import shlex
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from patchwright import trust


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
    # first attempts: greedy unless set; retries and extra candidates sample (docs/models.md)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    # the embedded model guesses copied tokens from the prompt (llm/speculate.py)
    prompt_lookup: bool = True
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
    max_iter: int = 4  # pipeline: iterations; agent: coder rounds
    edit_format: str = "auto"
    test_cmd: str | None = None
    test_timeout: float = 180.0  # seconds one run of the tests may take
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

    _ignored: tuple[str, ...] = PrivateAttr(default=())
    _project_sha256: str | None = PrivateAttr(default=None)

    @property
    def ignored(self) -> tuple[str, ...]:
        """Keys (``section.key``) the repository's own config set but, untrusted, may not."""
        return self._ignored

    @property
    def project_sha256(self) -> str | None:
        """SHA-256 of the repository config these settings read (None: none read)."""
        return self._project_sha256


# What a repository's own .patchwright/config.toml may set without the user's trust: how the
# agent works inside the repository. Not what runs ([sandbox], [mcp], [git], run.test_cmd, which
# also decides what "done" means), not where prompts and keys go or what a run may spend
# ([model], caps and prices included). An allowlist: a setting added later is untrusted until
# it is listed here.
SAFE_PROJECT_KEYS: dict[str, frozenset[str]] = {
    "files": frozenset({"max_file_bytes", "max_total_bytes"}),
    "run": frozenset({"max_iter", "edit_format", "branch", "commit"}),
    "agent": frozenset({"strategy", "plan", "max_rejections"}),
}


def user_config_path() -> Path:
    return trust.user_config_dir() / "config.toml"


def project_config_path(repo: Path) -> Path:
    return repo / trust.PROJECT_CONFIG


def _parse(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}); fix or remove the file") from exc


def _read_toml(path: Path) -> dict[str, Any]:
    return _parse(path, path.read_bytes()) if path.is_file() else {}


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
    "PATCHWRIGHT_TEMPERATURE": ("model", "temperature"),
    "PATCHWRIGHT_PROMPT_LOOKUP": ("model", "prompt_lookup"),
    "PATCHWRIGHT_TEST_CMD": ("run", "test_cmd"),
    "PATCHWRIGHT_GIT_RUN_HOOKS": ("git", "run_hooks"),
}


def split_untrusted(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The part of a repository config that :data:`SAFE_PROJECT_KEYS` allows, and the
    ``section.key`` names of everything else in it."""
    safe: dict[str, Any] = {}
    ignored: list[str] = []
    for section, value in data.items():
        allowed = SAFE_PROJECT_KEYS.get(section, frozenset())
        if not isinstance(value, dict):
            ignored.append(section)
            continue
        kept = {key: item for key, item in value.items() if key in allowed}
        ignored += [f"{section}.{key}" for key in value if key not in allowed]
        if kept:
            safe[section] = kept
    return safe, ignored


def _project_layer(repo: Path) -> tuple[dict[str, Any], list[str], str | None]:
    """The repository config's layer, the keys left out of it and its digest. It is
    validated whole first, so a typo is an error even in a key that would be ignored; its
    trust is checked against the very bytes parsed."""
    path = project_config_path(repo)
    if not path.is_file():
        return {}, [], None
    raw = path.read_bytes()
    data = _parse(path, raw)
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{path}: invalid settings: {exc}") from exc
    digest = trust.digest_of(raw)
    if trust.is_trusted(repo, digest):
        return data, [], digest
    safe, ignored = split_untrusted(data)
    return safe, ignored, digest


def load_settings(repo: Path | None = None, overrides: dict[str, Any] | None = None) -> Settings:
    """Read every layer and validate the result; raises :class:`ConfigError` on bad input.

    What an untrusted repository config set outside the safe list is left out and named in
    the result's :attr:`Settings.ignored`; front ends say so (:mod:`patchwright.trust_notice`).
    """
    data = _read_toml(user_config_path())
    ignored: list[str] = []
    digest: str | None = None
    if repo is not None:
        layer, ignored, digest = _project_layer(repo)
        data = _merge(data, layer)
    for env, (section, key) in _ENV_KEYS.items():
        if env in os.environ:
            data = _merge(data, {section: {key: os.environ[env]}})
    data = _merge(data, overrides or {})
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {exc}") from exc
    settings._ignored = tuple(ignored)
    settings._project_sha256 = digest
    return settings


def ignored_notice(settings: Settings, repo: Path | None = None) -> str | None:
    """The one warning line naming the untrusted settings left out, or None when none were.
    ``repo`` (when not the working directory) is named in the suggested command."""
    if not settings.ignored:
        return None
    where = ""
    if repo is not None and repo.expanduser().resolve() != Path.cwd().resolve():
        where = " " + shlex.quote(str(repo.expanduser().resolve()))
    return (
        f"patchwright: ignored untrusted settings from {trust.PROJECT_CONFIG}: "
        f"{', '.join(settings.ignored)} — run 'patchwright trust{where}' to allow them"
    )
