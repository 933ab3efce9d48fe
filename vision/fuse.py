"""Fusion of the text recogniser's letter probabilities (vision.recognizer) with the classifier's.

The classifier (vision.classify.TileReader) decides what a square holds: empty, blank tile or
a letter. Only the split of its letter mass among the letters is changed here: within the
letters, log q(k) = (1 - w) log p_cls(k) + w log p_ocr(k) + const (a log-linear pool; w = 0.5
ranks as the plain product), then q is scaled to the classifier's total letter probability, so
P(empty) and P(blank) are the classifier's own and the count caps and lone-tile rule that follow
(``TileReader.finish``) see the same occupancy as without the recogniser.

Letters that the recogniser's charset lacks carry a neutral score (their base letter's, or the
square's best; see vision.recognizer), so between those the classifier decides alone.

The weight is chosen on synthetic boards in looks the classifier never saw (tests/bench/bench_ocr.py),
never on the English photos.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["DEFAULT_WEIGHT", "fuse_letter_probs", "pool_letters"]

# chosen by tests/bench/bench_ocr.py on synthetic held-out looks (docs/results/ocr.json "fusion_choice")
DEFAULT_WEIGHT = 0.2


def pool_letters(p_cls: np.ndarray, p_ocr: np.ndarray, weight: float = DEFAULT_WEIGHT,
                 eps: float = 1e-6) -> np.ndarray:
    """(N, L) log-linear pool of two (N, L) letter distributions; rows sum to 1."""
    logq = (1.0 - weight) * np.log(p_cls + eps) + weight * np.log(p_ocr + eps)
    logq -= logq.max(axis=1, keepdims=True)
    q = np.exp(logq)
    return q / q.sum(axis=1, keepdims=True)


def fuse_letter_probs(probs: np.ndarray, classes: Sequence[str], p_ocr: np.ndarray,
                      alphabet: Sequence[str], weight: float = DEFAULT_WEIGHT,
                      rows: np.ndarray | None = None) -> np.ndarray:
    """The classifier's (N, K) class probabilities with the letters re-split by the recogniser.

    ``p_ocr`` (M, L) over ``alphabet`` for the squares ``rows`` (indices into N; all N if None),
    e.g. only the squares the classifier thinks hold a tile. Classes not in ``alphabet`` (".",
    "?") keep their probability; so does each square's total letter probability.
    """
    out = np.array(probs, np.float64, copy=True)
    rows = np.arange(out.shape[0]) if rows is None else np.asarray(rows)
    if rows.size == 0:
        return out.astype(probs.dtype)
    cls_idx = [list(classes).index(a) for a in alphabet if a in classes]
    ocr_idx = [i for i, a in enumerate(alphabet) if a in classes]
    sub = out[np.ix_(rows, cls_idx)]
    mass = sub.sum(axis=1, keepdims=True)
    p_cls = sub / np.maximum(mass, 1e-12)
    q = pool_letters(p_cls, np.asarray(p_ocr, np.float64)[:, ocr_idx], weight)
    out[np.ix_(rows, cls_idx)] = q * mass
    return out.astype(probs.dtype)
