"""Publishing a committed change: ``git push`` and a pull request through ``gh`` when it is
installed, else GitHub's REST API with ``GITHUB_TOKEN``; without either, say so and keep the
local commit."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from patchwright.workspace.gitsafe import git_env, run_git  # hooks, fsmonitor, filters off


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_git(root, *args, timeout=120)


def push(root: Path, branch: str) -> tuple[bool, str]:
    proc = _git(root, "push", "--set-upstream", "origin", branch)
    if proc.returncode != 0:
        return False, f"git push failed: {proc.stderr.strip() or proc.stdout.strip()}"
    return True, f"pushed {branch} to origin"


def _github_slug(root: Path) -> str | None:
    url = _git(root, "remote", "get-url", "origin").stdout.strip()
    match = re.search(r"github\.com[:/]([^/]+/[^/]+?)(?:\.git)?$", url)
    return match.group(1) if match else None


def open_pr(root: Path, branch: str, base: str, title: str, body: str) -> tuple[bool, str]:
    if shutil.which("gh"):
        proc = subprocess.run(
            [
                "gh",
                "pr",
                "create",
                "--head",
                branch,
                "--base",
                base,
                "--title",
                title,
                "--body",
                body,
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env=git_env(root),  # gh runs git itself: with the repository's programs off
        )
        if proc.returncode == 0:
            return True, proc.stdout.strip()
        return False, f"gh pr create failed: {proc.stderr.strip()}"
    token = os.environ.get("GITHUB_TOKEN")
    slug = _github_slug(root)
    if not token or not slug:
        return False, (
            "no pull request opened: install the GitHub CLI (gh) or set GITHUB_TOKEN with an "
            "origin on github.com; the commit is kept locally"
        )
    data = json.dumps({"title": title, "head": branch, "base": base, "body": body}).encode()
    request = urllib.request.Request(
        f"https://api.github.com/repos/{slug}/pulls",
        data=data,
        headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return True, str(json.loads(response.read()).get("html_url", "pull request opened"))
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        return False, f"opening the pull request failed: {exc}; the commit is kept locally"
