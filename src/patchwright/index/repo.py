"""``RepoIndex``: the code index of one repository, the package's main entry point."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from patchwright.index import graph, lexical, locate, mentions, repomap
from patchwright.index.ledger import Ripple, ledger, ripples, write_ledger
from patchwright.index.lexical import BM25Index, Chunk, Hit
from patchwright.index.model import Definition, FileSymbols
from patchwright.index.store import SymbolStore
from patchwright.index.update import IndexStats, Progress, update_store

CACHE_DIR = Path(".patchwright") / "cache"
MODES = ("exact", "regex", "fuzzy", "bm25", "semantic", "auto")


class SearchError(ValueError):
    """A search that cannot run: bad mode, bad regex, semantic search unavailable."""


class RepoIndex:
    """Symbols, repo map, search and localisation for the repository at ``root``.

    Everything is cached under ``<root>/.patchwright/cache/`` (or ``cache_dir``). Queries
    bring the index up to date first if ``update`` has not run in this instance.
    ``semantic``: True always embeds, False never, None (default) only when its vectors
    were built before (``patchwright index --semantic``), since a first embedding of a
    large repository takes minutes on a CPU.
    """

    def __init__(
        self,
        root: Path,
        *,
        cache_dir: Path | None = None,
        max_file_bytes: int = 512 * 1024,
        semantic: bool | None = None,
        weights: locate.Weights | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise FileNotFoundError(f"repository folder not found: {self.root}")
        self.cache_dir = cache_dir or self.root / CACHE_DIR
        self.max_file_bytes = max_file_bytes
        self.semantic_mode = semantic
        self.weights = weights or locate.Weights()
        self._store = SymbolStore(self.cache_dir / "symbols.sqlite")
        self._symbols: dict[str, FileSymbols] | None = None
        self._bm25: BM25Index | None = None
        self._bm25_files: BM25Index | None = None
        self._semantic: object | None = None
        self.semantic_note: str | None = None

    # -- building -------------------------------------------------------------------------
    def update(self, progress: Progress | None = None, *, rebuild: bool = False) -> IndexStats:
        """Reparse files that changed since the last update (all of them with ``rebuild``)."""
        if rebuild:
            self._store.clear()
        stats = update_store(self.root, self._store, progress, max_file_bytes=self.max_file_bytes)
        if self._symbols is None or rebuild:
            self._symbols = {fs.path: fs for fs in self._store.symbols()}
            self._bm25 = self._bm25_files = None
        elif stats.parsed or stats.removed:
            # only the changed files are reloaded: a 10k-file repo stays fast to refresh
            for path in stats.removed_paths:
                self._symbols.pop(path, None)
            for fs in self._store.symbols_of(stats.parsed_paths):
                self._symbols[fs.path] = fs
            self._symbols = dict(sorted(self._symbols.items()))
            self._bm25 = self._bm25_files = None
        return stats

    @property
    def symbols(self) -> dict[str, FileSymbols]:
        """Symbols of every indexed file by path (updating the index on first use)."""
        if self._symbols is None:
            self.update()
        assert self._symbols is not None
        return self._symbols

    def definitions(self, path: str | None = None) -> list[Definition]:
        """Definitions of one file, or of the whole repository, in path and line order."""
        if path is not None:
            fs = self.symbols.get(path)
            return list(fs.definitions) if fs else []
        return [d for p in sorted(self.symbols) for d in self.symbols[p].definitions]

    def _digest(self) -> str:
        h = hashlib.blake2b(digest_size=16)
        for path, row in sorted(self._store.rows().items()):
            h.update(f"{path}\0{row.sha}\n".encode())
        return h.hexdigest()

    # -- repo map ---------------------------------------------------------------------------
    def repo_map(
        self,
        focus: Sequence[str] = (),
        tokens: int = 1024,
        *,
        count_tokens: repomap.TokenCounter = repomap.approx_tokens,
    ) -> str:
        """Outline of the definitions most relevant to ``focus`` (paths or identifiers),
        within ``tokens`` (by ``count_tokens``). Cached by file contents, budget and focus."""
        symbols = self.symbols
        files, idents = self._split_focus(focus)
        custom = count_tokens is not repomap.approx_tokens
        key = f"map:{self._digest()}:{tokens}:{sorted(files)}:{sorted(idents)}"
        if not custom:
            cached = self._store.memo_get(key)
            if cached is not None:
                return cached
        ranking = graph.rank(symbols, focus_files=files, mentioned=idents)
        ordered = repomap.ordered_definitions(symbols, ranking, set(files), set(idents))
        text = repomap.fit(ordered, tokens, count_tokens, symbols)
        if not custom:
            self._store.memo_put(key, text)
        return text

    def _split_focus(self, focus: Sequence[str]) -> tuple[list[str], list[str]]:
        files, idents = [], []
        for item in focus:
            norm = item.replace("\\", "/").lstrip("./")
            if norm in self.symbols:
                files.append(norm)
                continue
            matches = [p for p in self.symbols if p.endswith("/" + norm)]
            if matches:
                files.extend(matches)
            else:
                idents.append(item)
        return files, idents

    # -- search ------------------------------------------------------------------------------
    def bm25(self) -> BM25Index:
        """The BM25 index over code chunks (built on first use after a change)."""
        if self._bm25 is None:
            self._bm25, self._bm25_files = BM25Index.build(self.root, self.symbols)
        return self._bm25

    def bm25_files(self) -> BM25Index:
        """The BM25 index over whole code files (built with the chunk index)."""
        self.bm25()
        assert self._bm25_files is not None
        return self._bm25_files

    def search(self, query: str, *, mode: str = "auto", k: int = 20) -> list[Hit]:
        """Search by ``mode``: exact, regex, fuzzy (paths), bm25, semantic, or auto
        (exact matches when the query occurs literally, else BM25)."""
        if mode not in MODES:
            raise SearchError(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
        paths = sorted(p for p, fs in self.symbols.items() if fs.language != "binary")
        if mode in ("exact", "regex", "auto"):
            try:
                hits = lexical.grep(self.root, paths, query, regex=mode == "regex", limit=k)
            except Exception as exc:  # re.error
                raise SearchError(f"invalid regular expression {query!r}: {exc}") from exc
            if mode != "auto" or hits:
                return hits
        if mode == "fuzzy":
            return lexical.fuzzy_files(paths, query, k)
        if mode == "semantic":
            index = self.semantic_index(force=True)
            if index is None:
                raise SearchError(f"semantic search unavailable: {self.semantic_note}")
            return [
                Hit(h.chunk.path, h.chunk.line, round(h.score, 4), name=h.chunk.name)
                for h in index.search(query, k)  # type: ignore[attr-defined]
            ]
        return [
            Hit(c.path, c.line, round(s, 4), name=c.name)
            for c, s in self.bm25().chunk_scores(query)[:k]
        ]

    def semantic_index(self, *, force: bool = False) -> object | None:
        """The up-to-date semantic index, or None (reason in ``semantic_note``)."""
        from patchwright.index import semantic

        if self.semantic_mode is False:
            self.semantic_note = "semantic search disabled"
            return None
        bm25 = self.bm25()
        vectors = self.cache_dir / "vectors.lance"
        if not force and self.semantic_mode is None and not vectors.exists():
            self.semantic_note = (
                f"not built: run `patchwright index --semantic` once to embed the "
                f"{len(bm25.chunks)} code chunks (about 0.1 s each on a CPU); "
                "later updates embed only changed chunks"
            )
            return None  # decided before importing lancedb: it is slow to import
        reason = semantic.unavailable_reason()
        if reason is not None:
            self.semantic_note = reason
            return None
        if self._semantic is None:
            self._semantic = semantic.SemanticIndex(self.cache_dir)
        index: semantic.SemanticIndex = self._semantic  # type: ignore[assignment]
        # test files are left out: they halve the embedding cost and rarely hold the answer
        wanted = [c for c in bm25.chunks if not locate.is_test_path(c.path)]
        if index.chunks != wanted:
            index.update(wanted, self._cards(wanted))
        return index

    def _cards(self, chunks: Sequence[Chunk]) -> list[str]:
        from patchwright.index.semantic import card

        lines_of: dict[str, list[str]] = {}
        cards = []
        for chunk in chunks:
            if chunk.path not in lines_of:
                text = (self.root / chunk.path).read_text("utf-8", "replace")
                lines_of[chunk.path] = text.split("\n")
            body = "\n".join(lines_of[chunk.path][chunk.start - 1 : chunk.end])
            cards.append(card(chunk, body))
        return cards

    # -- localisation --------------------------------------------------------------------------
    def method_rankings(
        self, text: str
    ) -> tuple[dict[str, list[tuple[str, float]]], list[tuple[Chunk, float]]]:
        """Each method's scored file ranking for ``text`` (for fusion and the benchmark)."""
        symbols = self.symbols
        found = mentions.find_mentions(text, symbols)
        chunk_hits = self.bm25().chunk_scores(text)
        bm25_files: dict[str, float] = {}
        for chunk, score in chunk_hits:
            bm25_files.setdefault(chunk.path, score)
        whole = {c.path: s for c, s in self.bm25_files().chunk_scores(text)}
        phrases = mentions.literal_phrases(text)
        literal = mentions.literal_file_scores(phrases, self._code_texts()) if phrases else {}
        idents = mentions.identifier_file_scores(found.identifiers, symbols)
        rankings = {
            "bm25": locate.scored(bm25_files),
            "bm25_file": locate.scored(whole),
            "mentions": locate.scored(found.files),
            "identifiers": locate.scored(idents),
            "stems": locate.scored(mentions.stem_file_scores(text, symbols)),
            "literals": locate.scored(literal),
        }
        if found.files or found.identifiers:
            ranking = graph.rank(symbols, focus_files=found.files, mentioned=found.identifiers)
            rankings["pagerank"] = locate.scored(ranking.files)[:200]
        index = self.semantic_index() if self.weights.semantic > 0 else None
        if index is not None:
            sem: dict[str, float] = {}
            for hit in index.search(text, 200):  # type: ignore[attr-defined]
                sem.setdefault(hit.chunk.path, hit.score)
            rankings["semantic"] = locate.scored(sem)
        return rankings, chunk_hits

    def _code_texts(self) -> dict[str, str]:
        """Text of every code file (read on demand, not kept between updates)."""
        out = {}
        for path, fs in self.symbols.items():
            if fs.language not in ("text", "binary"):
                try:
                    out[path] = (self.root / path).read_text("utf-8", "replace")
                except OSError:
                    continue
        return out

    def locate(self, text: str, k: int = 10) -> locate.Located:
        """Files and functions ``text`` is most likely about, best first."""
        rankings, chunk_hits = self.method_rankings(text)
        fused = locate.fuse(rankings, self.weights)
        order = locate.ranked(fused)
        named = mentions.code_identifiers(text)
        symbols = locate.rank_symbols(chunk_hits, fused, named, k)
        return locate.Located(
            files=[locate.ScoredFile(p, fused[p]) for p in order[:k]],
            symbols=symbols,
            methods={m: [p for p, _ in r[:k]] for m, r in rankings.items()},
        )

    # -- ledger ------------------------------------------------------------------------------------
    def ledger(self) -> dict[str, dict[str, object]]:
        """PyOB's SYMBOLS.json content."""
        return ledger(self.symbols)

    def write_ledger(self, target: Path | None = None) -> Path:
        """Write SYMBOLS.json (default: at the repository root)."""
        return write_ledger(self.symbols, target or self.root / "SYMBOLS.json")

    def ripples(self, path: str, old_text: str, new_text: str) -> list[Ripple]:
        """Definitions of ``path`` the edit removed or re-signed, with the files using them."""
        return ripples(path, old_text, new_text, self.symbols)

    def close(self) -> None:
        """Release the cache database."""
        self._store.close()

    def __enter__(self) -> RepoIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
