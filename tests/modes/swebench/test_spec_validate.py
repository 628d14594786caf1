"""Specification of the validators a candidate diff meets before any test runs: its shape
(a unified diff with files and hunks), the allowlist (only the suspects' files or files the
issue names), the caps (changed lines, files) and the API guard (no public function's
signature changes or disappears unless the issue names that function)."""

from __future__ import annotations

import pytest

from patchwright.modes.swebench.validate import Caps, Validation, api_changes, churn, validate

OLD = """def parse(text, strict=False):
    return text


def _helper(x):
    return x


class Reader:
    def read(self, path):
        return path

    def _cache(self):
        return None
"""

DEFAULT_CAPS = Caps()


def diff_for(path: str, removed: int, added: int) -> str:
    body = "".join(f"-old {n}\n" for n in range(removed)) + "".join(
        f"+new {n}\n" for n in range(added)
    )
    return f"--- a/{path}\n+++ b/{path}\n@@ -1,{removed} +1,{added} @@\n{body}"


def check(
    diff: str, changes: dict[str, bytes | None], *, allowed: set[str] | None = None,
    task: str = "", caps: Caps = DEFAULT_CAPS,
) -> list[str]:  # fmt: skip
    return validate(diff, changes, allowed=allowed if allowed is not None else set(changes),
                    old_text={"pkg/m.py": OLD}.get, task=task, caps=caps).reasons  # fmt: skip


SMALL = diff_for("pkg/m.py", 1, 1)


def test_a_small_change_to_an_allowed_file_that_keeps_the_api_passes() -> None:
    new = OLD.replace("return text", "return text.strip()").encode()
    result = validate(SMALL, {"pkg/m.py": new}, allowed={"pkg/m.py"},
                      old_text={"pkg/m.py": OLD}.get, task="")  # fmt: skip
    assert result.ok and result.reasons == []
    assert not Validation(["x"]).ok


@pytest.mark.parametrize(
    "diff",
    [
        "I changed parse() to strip the text.",
        "--- a/pkg/m.py\n+++ b/pkg/m.py\n-old\n+new\n",  # no hunk header
        "@@ -1 +1 @@\n-old\n+new\n",  # no file names
        "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",  # only /dev/null
    ],
)
def test_anything_but_a_unified_diff_with_files_and_hunks_is_refused_for_shape_alone(
    diff: str,
) -> None:
    changes = {"elsewhere.py": b"", "b.py": b"", "c.py": b"", "d.py": b""}  # would break caps
    assert check(diff, changes, allowed=set()) == ["shape: not a unified diff with files and hunks"]


def test_a_candidate_with_no_changes_is_refused_for_shape() -> None:
    assert check(SMALL, {}) == ["shape: not a unified diff with files and hunks"]


def test_a_new_file_diff_from_dev_null_has_a_valid_shape() -> None:
    diff = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert check(diff, {"pkg/new.py": b"x = 1\n"}) == []  # no old text: no API to guard


def test_files_outside_the_allowlist_are_named_in_order() -> None:
    changes = {"z.py": b"", "pkg/m.py": OLD.encode(), "a.txt": b""}
    reasons = check(SMALL, changes, allowed={"pkg/m.py"}, caps=Caps(max_files=5))
    assert reasons == ["allowlist: changes files outside the suspects: a.txt, z.py"]


def test_the_caps_allow_exactly_their_limits_and_refuse_one_more() -> None:
    changes = {"pkg/m.py": OLD.encode()}
    caps = Caps(max_lines=6, max_files=1)
    assert check(diff_for("pkg/m.py", 3, 3), changes, caps=caps) == []
    assert check(diff_for("pkg/m.py", 3, 4), changes, caps=caps) == [
        "size: 7 changed lines (cap 6)"
    ]
    two = {"pkg/m.py": OLD.encode(), "pkg/n.py": b""}
    assert check(SMALL, two, caps=caps) == ["size: 2 files (cap 1)"]


def test_the_default_caps_are_sixty_lines_and_three_files() -> None:
    assert Caps() == Caps(max_lines=60, max_files=3)


def test_churn_counts_content_lines_but_not_file_headers() -> None:
    diff = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,3 @@\n ctx\n-a\n+b\n+c\n"
    assert churn(diff) == (2, 1)
    assert churn("") == (0, 0)


def test_a_changed_public_signature_is_refused_with_before_and_after() -> None:
    new = OLD.replace("def parse(text, strict=False)", "def parse(text, strict=True)")
    assert api_changes(OLD, new, "") == ["parse(text, strict=False) → parse(text, strict=True)"]


def test_a_removed_public_method_is_refused_but_private_ones_may_go() -> None:
    new = OLD.replace("    def read(self, path):\n        return path\n\n", "")
    new = new.replace("    def _cache(self):\n        return None\n", "    pass\n")
    new = new.replace("def _helper(x):", "def _helper(x, y):")
    assert api_changes(OLD, new, "") == ["Reader.read(self, path) → removed"]


def test_an_issue_that_names_the_function_allows_its_signature_to_change() -> None:
    new = OLD.replace("def read(self, path)", "def read(self, path, mode='r')")
    assert api_changes(OLD, new, "Reader.read should take a mode") == []
    assert api_changes(OLD, new, "modes are ignored") != []


def test_bodies_decorators_and_new_functions_are_not_api_changes() -> None:
    new = ("import functools\n\n\n@functools.cache\n" + OLD.replace("return text", "return 1")
           + "\n\ndef added(a):\n    return a\n")  # fmt: skip
    assert api_changes(OLD, new, "") == []


def test_deleting_a_python_file_removes_every_public_function_in_it() -> None:
    reasons = check(SMALL, {"pkg/m.py": None})
    assert reasons == [
        "api: pkg/m.py: parse(text, strict=False) → removed",
        "api: pkg/m.py: Reader.read(self, path) → removed",
    ]


def test_only_python_files_are_api_guarded() -> None:
    diff = diff_for("pkg/m.txt", 1, 1)
    validation = validate(diff, {"pkg/m.txt": b""}, allowed={"pkg/m.txt"},
                          old_text=lambda _p: OLD, task="")  # fmt: skip
    assert validation.ok


def test_every_refusal_is_listed_not_just_the_first() -> None:
    changes = {"pkg/m.py": None, "x.py": b"", "y.py": b"", "z.py": b""}
    reasons = check(diff_for("pkg/m.py", 30, 31), changes, allowed={"pkg/m.py"})
    kinds = [r.split(":")[0] for r in reasons]
    assert kinds == ["allowlist", "size", "size", "api", "api"]


def test_a_function_is_named_by_the_issue_only_as_a_word_not_inside_another_word() -> None:
    old = "def add(a, b):\n    return a + b\n"
    new = "def add(a, b, c=0):\n    return a + b + c\n"
    assert api_changes(old, new, "mean() of floats is wrong; I added a test for it") == [
        "add(a, b) → add(a, b, c=0)"
    ]
