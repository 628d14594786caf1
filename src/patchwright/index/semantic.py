"""Semantic search: MiniLM vectors of code chunks stored in LanceDB under the cache dir.

Optional and lazy: nothing here is imported until semantic search is asked for, and when
the model package or LanceDB is missing ``SemanticIndex.available()`` says why. Vectors are
keyed by a hash of the chunk's text, so an update embeds only chunks that are new.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from patchwright.index.lexical import Chunk

TABLE = "chunks"
CARD_CHARS = 600  # the encoder reads at most 128 word pieces of it anyway


@dataclass(frozen=True)
class SemanticHit:
    """A chunk and its cosine similarity to the query."""

    chunk: Chunk
    score: float


def unavailable_reason() -> str | None:
    """None when semantic search can run here, else why not (and what to install)."""
    try:
        import lancedb  # noqa: F401

        from patchwright.index.embed import model_dir

        model_dir()
    except ImportError as exc:
        return f"semantic search needs lancedb: {exc}"
    except RuntimeError as exc:
        return str(exc)
    return None


def card(chunk: Chunk, text: str) -> str:
    """The text embedded for a chunk: where it is, what it defines, then its code."""
    head = f"{chunk.path} {chunk.name}".strip()
    return f"{head}\n{text}"[:CARD_CHARS]


class SemanticIndex:
    """Chunk vectors in a LanceDB table; ``update`` embeds only unseen chunk texts."""

    def __init__(self, cache_dir: Path, encode: Callable[[list[str]], np.ndarray] | None = None):
        os.environ.setdefault("LANCE_LOG", "error")
        import lancedb

        cache_dir.mkdir(parents=True, exist_ok=True)
        self.db: Any = lancedb.connect(str(cache_dir / "vectors.lance"))
        self._encode = encode
        self.chunks: list[Chunk] = []
        self.embedded = 0

    def _encoder(self) -> Callable[[list[str]], np.ndarray]:
        if self._encode is None:
            from patchwright.index.embed import shared_model

            self._encode = shared_model().encode
        return self._encode

    def _existing(self) -> dict[str, np.ndarray]:
        if TABLE not in self.db.list_tables().tables:
            return {}
        table = self.db.open_table(TABLE).to_arrow()
        keys = table.column("key").to_pylist()
        vectors = table.column("vector").combine_chunks().flatten().to_numpy()
        vectors = vectors.reshape(len(keys), -1) if keys else vectors
        return dict(zip(keys, vectors, strict=True))

    def update(self, chunks: Sequence[Chunk], cards: Sequence[str]) -> int:
        """Make the table hold exactly ``chunks``; return how many texts were embedded."""
        import pyarrow as pa

        keys = [hashlib.blake2b(c.encode(), digest_size=12).hexdigest() for c in cards]
        existing = self._existing()
        self.chunks = list(chunks)
        missing = sorted({k: i for i, k in enumerate(keys) if k not in existing}.items())
        if not missing and len(existing) == len(set(keys)):
            return 0
        if missing:
            fresh = self._encoder()([cards[i] for _, i in missing])
            existing.update({k: fresh[n] for n, (k, _) in enumerate(missing)})
        vectors = np.stack([existing[k] for k in keys]).astype(np.float32)
        table = pa.table(
            {
                "key": keys,
                "path": [c.path for c in chunks],
                "start": [c.start for c in chunks],
                "end": [c.end for c in chunks],
                "name": [c.name for c in chunks],
                "line": [c.line for c in chunks],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 384),
            }
        )
        self.db.create_table(TABLE, table, mode="overwrite")
        self.embedded = len(missing)
        return len(missing)

    def search(self, query: str, k: int = 20) -> list[SemanticHit]:
        """The ``k`` chunks nearest to ``query`` by cosine similarity."""
        if TABLE not in self.db.list_tables().tables:
            return []
        vector = self._encoder()([query])[0]
        rows = (
            self.db.open_table(TABLE).search(vector).metric("cosine").limit(k).to_arrow()
        ).to_pylist()
        return [
            SemanticHit(
                Chunk(r["path"], r["start"], r["end"], r["name"], r["line"]),
                1.0 - float(r["_distance"]),
            )
            for r in rows
        ]
