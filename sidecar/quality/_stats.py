"""Small statistics shared by calibration, the gate and the weekly report.

Implemented here rather than imported so the service needs no numerical dependencies;
the tests check each function against scikit-learn and scipy on fixed data.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Estimate",
    "Z95",
    "cohen_kappa",
    "mean_interval",
    "wilson_interval",
]

Z95 = 1.959963984540054
"""Two-sided 95% standard normal quantile."""

_BOOTSTRAP_MAX_N = 400
_BOOTSTRAP_RESAMPLES = 1000


@dataclass(frozen=True, slots=True)
class Estimate:
    """A figure with its 95% interval and the count behind it.

    ``value``, ``low`` and ``high`` are None when ``n`` is 0. ``successes`` is set for
    proportions (Wilson intervals); ``method`` names how the interval was computed.
    """

    value: float | None
    low: float | None
    high: float | None
    n: int
    successes: int | None = None
    method: str = "wilson"

    def as_dict(self) -> dict[str, float | int | str | None]:
        """A JSON-ready mapping."""
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "successes": self.successes,
            "method": self.method,
        }


def wilson_interval(successes: int, n: int, *, z: float = Z95) -> Estimate:
    """The proportion ``successes / n`` with its Wilson score interval.

    Raises ValueError when ``successes`` is outside ``0..n``.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Estimate(None, None, None, 0, 0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n, successes)


def mean_interval(values: Sequence[float], *, seed: int = 0) -> Estimate:
    """The mean of 0..1 ``values`` with a 95% interval.

    Percentile bootstrap (fixed seed, so reports are reproducible) up to a few hundred
    values; beyond that the normal approximation, which is then as good and much cheaper.
    """
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0, method="none")
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(mean, mean, mean, 1, method="single")
    if n <= _BOOTSTRAP_MAX_N:
        rng = random.Random(seed)
        means = sorted(math.fsum(rng.choices(values, k=n)) / n for _ in range(_BOOTSTRAP_RESAMPLES))
        low = means[int(0.025 * (_BOOTSTRAP_RESAMPLES - 1))]
        high = means[int(math.ceil(0.975 * (_BOOTSTRAP_RESAMPLES - 1)))]
        return Estimate(mean, low, high, n, method="bootstrap")
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = Z95 * math.sqrt(variance / n)
    return Estimate(mean, max(0.0, mean - half), min(1.0, mean + half), n, method="normal")


def cohen_kappa(matrix: Sequence[Sequence[int]], *, weights: str | None = None) -> float | None:
    """Cohen's kappa of a square confusion matrix (rows: rater A, columns: rater B).

    ``weights`` is None (unweighted), ``"linear"`` or ``"quadratic"``; the categories are
    taken in the matrix's order. Returns None when kappa is undefined (no items, or both
    raters used a single identical category, so chance agreement is 1).
    """
    k = len(matrix)
    if any(len(row) != k for row in matrix):
        raise ValueError("confusion matrix must be square")
    total = sum(sum(row) for row in matrix)
    if total == 0:
        return None
    rows = [sum(row) for row in matrix]
    cols = [sum(matrix[i][j] for i in range(k)) for j in range(k)]

    def weight(i: int, j: int) -> float:
        if weights is None:
            return 0.0 if i == j else 1.0
        if weights == "linear":
            return abs(i - j) / (k - 1)
        if weights == "quadratic":
            return ((i - j) / (k - 1)) ** 2
        raise ValueError(f"unknown weights {weights!r}")

    observed = math.fsum(weight(i, j) * matrix[i][j] for i in range(k) for j in range(k))
    expected = math.fsum(
        weight(i, j) * rows[i] * cols[j] / total for i in range(k) for j in range(k)
    )
    if expected == 0:
        return None
    return 1.0 - observed / expected
