"""A reproduction test written by the model from the issue alone (``--reproduce``, the fair
mode), as Agentless does: a pytest file that must fail before any change and pass once the
issue is fixed. It lives at the root of the checkout only while tests run (never while a
candidate is written or the agent works), and is kept only when some of its tests fail
before any change; the candidates must then make those tests pass."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from patchwright.agent.context import approx_tokens
from patchwright.agent.session import Session
from patchwright.envs import InstanceSandbox
from patchwright.llm import Message
from patchwright.modes.swebench.localise import Suspect
from patchwright.modes.swebench.propose import MAX_ISSUE_CHARS, Reader, excerpt

NAME = "test_patchwright_reproduction"
_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
SYSTEM = (
    "You write a pytest test file that reproduces a reported issue in a Python repository. "
    "The test must fail on the current code because of the issue, and pass once the issue "
    "is fixed. Import the code under test from the repository's package. Reply with one "
    "```python block holding the whole file and nothing else."
)


@dataclass(frozen=True)
class Reproduction:
    """The test file's path (relative to the checkout) and text."""

    path: str
    text: str

    def staged(self, env: InstanceSandbox) -> AbstractContextManager[None]:
        return _written(env, self.path, self.text)


@contextmanager
def _written(env: InstanceSandbox, path: str, text: str) -> Iterator[None]:
    target = env.repo / path
    target.write_text(text, encoding="utf-8")
    try:
        yield
    finally:
        target.unlink(missing_ok=True)


def free_path(paths: Sequence[str]) -> str:
    """A file name at the checkout's root that the repository does not use."""
    taken = set(paths)
    for n in range(100):
        path = f"{NAME}{n or ''}.py"
        if path not in taken:
            return path
    raise RuntimeError("no free name for the reproduction test")  # pragma: no cover


def messages(problem: str, suspects: Sequence[Suspect], reader: Reader) -> list[Message]:
    """The issue and the suspects' code (so the test calls what exists), within ~2k tokens."""
    shown: list[str] = []
    used = approx_tokens(problem[:MAX_ISSUE_CHARS])
    for suspect in suspects:
        code = excerpt(reader.text(suspect.path) or "", suspect)
        if shown and used + approx_tokens(code) > 2000:
            break
        used += approx_tokens(code)
        shown.append(f"{suspect.path} — {suspect.name}\n```python\n{code}\n```")
    task = (
        f"The issue:\n\n<issue>\n{problem[:MAX_ISSUE_CHARS]}\n</issue>\n\n"
        "Code of the repository that the issue is likely about (with line numbers):\n\n"
        + "\n\n".join(shown)
        + "\n\nWrite the test file. Keep it short: one or a few test functions."
    )
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]


def test_text(reply: str) -> str | None:
    """The Python file in a reply: its first fenced block (None when there is none)."""
    found = _BLOCK.search(reply)
    code = found.group(1).strip() if found else ""
    return code + "\n" if "def test" in code else None


def ask(
    session: Session, problem: str, suspects: Sequence[Suspect], reader: Reader,
    paths: Sequence[str],
) -> tuple[Reproduction | None, str]:  # fmt: skip
    """Ask the model for the test once; the test (None: no usable file) and the reply."""
    reply = session.model.complete(messages(problem, suspects, reader), max_tokens=1024,
                                   phase="reproduce")  # fmt: skip
    text = test_text(reply.text)
    return (Reproduction(free_path(paths), text) if text else None), reply.text
