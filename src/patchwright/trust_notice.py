"""Repository trust as the front ends show it: one warning line, or in a terminal a question.

Every command that reads a repository's settings loads them through :func:`settings_for`
once, so an untrusted ``.patchwright/config.toml`` whose settings are left out is named
once per command on stderr — never on stdout, where ``--json`` output goes. In a terminal
(stdin and stderr both ttys, no ``--json``) the user may trust the config there and then.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from patchwright import trust
from patchwright.config import Settings, ignored_notice, load_settings


def settings_for(
    repo: Path | None, overrides: dict[str, Any] | None = None, *, as_json: bool = False
) -> Settings:
    """:func:`load_settings` for a front end: names the ignored untrusted settings on stderr,
    or, in a terminal, asks whether to trust the config and reloads with its answer."""
    settings = load_settings(repo, overrides)
    if repo is None or not settings.ignored:
        return settings
    if not as_json and _terminal() and _ask(settings):
        try:
            trust.record(repo, settings.project_sha256)
            return load_settings(repo, overrides)
        except trust.TrustError as exc:
            _say(f"patchwright: {exc}")
    _say(ignored_notice(settings, repo) or "")
    return settings


def _terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def _ask(settings: Settings) -> bool:
    """One line on stderr; yes only for an explicit y/yes (end of input is no)."""
    sys.stderr.write(
        f"patchwright: this repository's {trust.PROJECT_CONFIG} sets "
        f"{', '.join(settings.ignored)}, which only a trusted repository may. "
        "Trust this repository's config? [y/N] "
    )
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
