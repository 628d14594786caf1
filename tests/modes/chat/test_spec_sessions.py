"""Chat sessions on disk (``modes/chat/sessions.py``): a session's folder appears with its
first entry, its title is the first thing the user typed, the transcript survives a line cut
short by a crash, secrets never reach it, and ``--resume`` finds a session by id prefix or
the newest one that holds a conversation."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from patchwright.modes.chat.sessions import (
    SessionNotFound,
    SessionStore,
    list_sessions,
    new_session_id,
    sessions_dir,
)


def make_session(root: Path, session_id: str, *, title: str = "", age: float = 0.0) -> Path:
    """A session folder written as the store writes it, its transcript ``age`` seconds old."""
    folder = sessions_dir(root) / session_id
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"model": "m", "title": title}))
    transcript = folder / "transcript.jsonl"
    transcript.write_text(json.dumps({"kind": "user", "text": title}) + "\n")
    stamp = 1_700_000_000 - age
    os.utime(transcript, (stamp, stamp))
    return folder


def test_a_session_id_is_a_utc_timestamp_with_a_random_tail() -> None:
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{4}", new_session_id())


def test_a_new_session_leaves_nothing_on_disk_until_its_first_entry(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, model="scripted:x")
    store.write_meta(model="other")
    assert not sessions_dir(tmp_path).exists()
    assert list(store.entries()) == []
    store.append("user", text="fix the parser")
    assert store.dir == sessions_dir(tmp_path) / store.id
    meta = store.meta()
    assert meta["model"] == "other"  # the meta written before the folder existed is kept
    assert meta["title"] == "fix the parser" and "created" in meta


def test_entries_come_back_in_order_with_their_kind_and_time(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, model="m")
    store.append("user", text="q")
    store.append("assistant", text="a", first_token_s=0.25)
    entries = list(store.entries())
    assert [(e["kind"], e["text"]) for e in entries] == [("user", "q"), ("assistant", "a")]
    assert entries[1]["first_token_s"] == 0.25
    assert all(isinstance(e["ts"], float) for e in entries)


def test_the_title_is_the_first_user_line_cut_to_80_characters_and_then_kept(
    tmp_path: Path,
) -> None:
    store = SessionStore.create(tmp_path, model="m")
    store.append("context", files=["a.py"])
    assert store.meta()["title"] == ""
    store.append("user", text="x" * 100)
    store.append("user", text="a later question")
    assert store.meta()["title"] == "x" * 80


def test_a_line_cut_short_or_not_an_entry_is_skipped(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, model="m")
    store.append("user", text="first")
    with store.transcript.open("a") as handle:
        handle.write('{"kind": "assistant", "te\n')  # a crash mid-line
        handle.write('["not", "an", "entry"]\n{"no_kind": 1}\n')
    store.append("user", text="after the crash")
    assert [e["text"] for e in store.entries()] == ["first", "after the crash"]


def test_secrets_are_redacted_before_they_reach_the_transcript(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, model="m")
    key = "sk-proj-" + "A1b2C3d4" * 4
    store.append("command", label="/exec env", output=f"OPENAI_API_KEY={key}\nok")
    assert key not in store.transcript.read_text()
    assert "[REDACTED]" in next(store.entries())["output"]


def test_meta_that_is_not_a_json_object_reads_as_empty(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, model="m")
    store.append("user", text="q")
    (store.dir / "meta.json").write_text("[1, 2]")
    assert store.meta() == {}
    (store.dir / "meta.json").write_text("{broken")
    assert store.meta() == {}
    store.write_meta(model="again")  # rewrites it whole
    assert store.meta() == {"model": "again"}


def test_sessions_are_listed_newest_first_with_their_titles(tmp_path: Path) -> None:
    make_session(tmp_path, "20240101-000000-aaaa", title="old one", age=100)
    make_session(tmp_path, "20240102-000000-bbbb", title="new one", age=1)
    (sessions_dir(tmp_path) / "stray-file").write_text("")
    empty = sessions_dir(tmp_path) / "20240103-000000-cccc"
    empty.mkdir()
    os.utime(empty, (1_600_000_000, 1_600_000_000))
    found = list_sessions(tmp_path)
    assert [s.id for s in found] == ["20240102-000000-bbbb", "20240101-000000-aaaa",
                                     "20240103-000000-cccc"]  # fmt: skip
    assert [s.title for s in found] == ["new one", "old one", "(empty)"]
    assert found[0].model == "m"


def test_no_sessions_folder_lists_nothing(tmp_path: Path) -> None:
    assert list_sessions(tmp_path) == []


def test_resume_finds_a_session_by_a_unique_prefix_of_its_id(tmp_path: Path) -> None:
    make_session(tmp_path, "20240101-000000-aaaa")
    make_session(tmp_path, "20240102-000000-bbbb")
    assert SessionStore.open(tmp_path, "20240102").id == "20240102-000000-bbbb"
    with pytest.raises(SessionNotFound, match="matches several sessions"):
        SessionStore.open(tmp_path, "2024")
    with pytest.raises(SessionNotFound, match="no record of session '1999'"):
        SessionStore.open(tmp_path, "1999")


def test_resume_without_an_id_takes_the_newest_session_that_holds_a_conversation(
    tmp_path: Path,
) -> None:
    make_session(tmp_path, "20240101-000000-aaaa", age=50)
    newer_but_empty = sessions_dir(tmp_path) / "20240105-000000-eeee"
    newer_but_empty.mkdir()
    (newer_but_empty / "meta.json").write_text("{}")
    assert SessionStore.open(tmp_path, None).id == "20240101-000000-aaaa"
    assert SessionStore.open(tmp_path, "").id == "20240101-000000-aaaa"


def test_resume_with_no_session_at_all_says_how_to_start_one(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound, match=r"no record of any session.*patchwright chat"):
        SessionStore.open(tmp_path, None)


def test_a_reopened_session_appends_to_the_same_transcript(tmp_path: Path) -> None:
    first = SessionStore.create(tmp_path, model="m")
    first.append("user", text="one")
    again = SessionStore.open(tmp_path, first.id)
    again.append("assistant", text="two")
    assert [e["text"] for e in first.entries()] == ["one", "two"]
