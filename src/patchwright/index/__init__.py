"""patchwright.index: code intelligence for a repository.

Tree-sitter symbols (definitions, references) cached per file in SQLite, the symbol
ledger and ripple detection, a PageRank-ranked repo map, exact/regex/fuzzy/BM25/semantic
search and ``locate`` (which files and functions a task is about).

    idx = RepoIndex(Path("."))
    idx.update()
    idx.locate("crash in parse_config when the file is empty").files[0].path
    idx.repo_map(focus=["src/app/config.py"], tokens=1024)
"""

from __future__ import annotations

from patchwright.index.ledger import Ripple, cascade_queue
from patchwright.index.lexical import Hit
from patchwright.index.locate import Located, ScoredFile, ScoredSymbol, Weights
from patchwright.index.model import Definition, FileSymbols
from patchwright.index.repo import RepoIndex, SearchError
from patchwright.index.update import IndexStats

__all__ = [
    "Definition",
    "FileSymbols",
    "Hit",
    "IndexStats",
    "Located",
    "RepoIndex",
    "Ripple",
    "ScoredFile",
    "ScoredSymbol",
    "SearchError",
    "Weights",
    "cascade_queue",
]
