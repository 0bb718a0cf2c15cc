"""Synthetic chunk vectors that spread like the real ones, for the 100k and 1M benches.

Earlier versions copied a random real vector and added noise (then mixed in a second one):
at 1M chunks each real vector had ~180 near-copies, clusters whose members were all each
other's nearest neighbours, and HNSW recall measured those clusters, not the index.

Here the real vectors are grouped by k-means (cosine) and each synthetic vector is drawn
from the Gaussian of one group: its centre plus a random combination of the group's members'
offsets, so its spread is that group's covariance. Groups are picked in proportion to their
size. No two synthetic vectors share a source vector, and topics stay as frequent as in the
real handbooks.
"""

from __future__ import annotations

import numpy as np

CLUSTERS = 64
MIN_MEMBERS = 8  # a group this small would make near-copies of its few members
ITERATIONS = 12
BLOCK = 50_000  # vectors drawn at once


class Mixture:
    def __init__(self, real: np.ndarray, rng: np.random.Generator, clusters: int = CLUSTERS) -> None:
        real = real / np.linalg.norm(real, axis=1, keepdims=True)
        centres = real[rng.choice(len(real), min(clusters, len(real)), replace=False)]
        labels = np.zeros(len(real), dtype=int)
        for _ in range(ITERATIONS):
            labels = np.argmax(real @ centres.T, axis=1)
            centres = np.stack(
                [real[labels == j].mean(axis=0) if (labels == j).any() else centres[j] for j in range(len(centres))]
            )
        self.centres: list[np.ndarray] = []
        self.offsets: list[np.ndarray] = []  # each group's members minus its centre
        sizes = []
        for j in range(len(centres)):
            members = real[labels == j]
            if len(members) >= MIN_MEMBERS:
                self.centres.append(centres[j])
                self.offsets.append(members - centres[j])
                sizes.append(len(members))
        self.weights = np.asarray(sizes, dtype=float) / sum(sizes)
        self.rng = rng
        self._pool = np.empty((0, real.shape[1]), dtype=np.float32)

    def _draw(self, count: int) -> np.ndarray:
        groups = self.rng.choice(len(self.centres), count, p=self.weights)
        out = np.empty((count, self.centres[0].shape[0]), dtype=np.float32)
        for j in np.unique(groups):
            rows = np.flatnonzero(groups == j)
            offsets = self.offsets[j]
            # Gaussian weights over the members, scaled so the draw has the group's covariance.
            weights = self.rng.standard_normal((len(rows), len(offsets))) / np.sqrt(len(offsets) - 1)
            out[rows] = self.centres[j] + weights @ offsets
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def take(self, count: int) -> np.ndarray:
        """The next ``count`` vectors (drawn in blocks: one matrix product per group and block)."""
        while len(self._pool) < count:
            self._pool = np.concatenate([self._pool, self._draw(max(BLOCK, count))])
        taken, self._pool = self._pool[:count], self._pool[count:]
        return taken
