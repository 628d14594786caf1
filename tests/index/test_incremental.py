"""The symbol cache: content-hash keyed, incremental, rebuilt on request."""

from __future__ import annotations

from pathlib import Path

from index_repo import SHOP, make_repo, write_files

from patchwright.index import RepoIndex


def test_first_update_parses_everything_and_caches_under_patchwright(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        stats = index.update()
    assert stats.files == len(SHOP)
    assert stats.parsed == len(SHOP)
    assert stats.languages == {"python": 6}
    assert (repo / ".patchwright" / "cache" / "symbols.sqlite").is_file()


def test_second_update_reparses_nothing_even_in_a_new_process_object(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        index.update()
    with RepoIndex(repo) as again:
        stats = again.update()
        assert stats.parsed == 0
        assert stats.unchanged == len(SHOP)
        # the cached symbols are complete without reparsing
        assert "apply_discount" in {d.name for d in again.definitions("shop/pricing.py")}


def test_editing_one_file_reparses_only_that_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        index.update()
        new_money = (
            SHOP["shop/money.py"] + "\n\ndef parse_money(text: str) -> float:\n    return 0.0\n"
        )
        write_files(repo, {"shop/money.py": new_money}, age_seconds=30)
        stats = index.update()
        assert stats.parsed_paths == ["shop/money.py"]
        assert "parse_money" in {d.name for d in index.definitions("shop/money.py")}


def test_touching_a_file_without_changing_it_does_not_reparse(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        index.update()
        write_files(repo, {"shop/cart.py": SHOP["shop/cart.py"]}, age_seconds=10)
        stats = index.update()
    assert stats.parsed == 0


def test_new_and_deleted_files_are_picked_up(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        index.update()
        (repo / "shop" / "inventory.py").unlink()
        write_files(repo, {"shop/orders.py": "def place_order():\n    pass\n"})
        stats = index.update()
        assert stats.removed == 1
        assert stats.parsed_paths == ["shop/orders.py"]
        assert "shop/inventory.py" not in index.symbols


def test_rebuild_reparses_everything(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        index.update()
        assert index.update(rebuild=True).parsed == len(SHOP)


def test_gitignored_and_oversized_files_are_not_indexed(tmp_path: Path) -> None:
    files = {**SHOP, ".gitignore": "generated/\n", "generated/big.py": "x = 1\n"}
    repo = make_repo(tmp_path / "repo", files)
    write_files(repo, {"huge.py": "x = 1\n" * 200})
    with RepoIndex(repo, max_file_bytes=1000) as index:
        index.update()
        assert "generated/big.py" not in index.symbols
        assert "huge.py" not in index.symbols
        assert "shop/cart.py" in index.symbols


def test_progress_reports_done_and_total(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    seen: list[tuple[int, int]] = []
    with RepoIndex(repo) as index:
        index.update(progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (len(SHOP), len(SHOP))


def test_a_folder_that_is_not_a_git_repo_is_walked(tmp_path: Path) -> None:
    write_files(tmp_path, {"lib/a.py": "def f():\n    return 1\n", "node_modules/x.js": "var a;"})
    with RepoIndex(tmp_path) as index:
        index.update()
        assert set(index.symbols) == {"lib/a.py"}
