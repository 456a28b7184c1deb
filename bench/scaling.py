"""Per-record cost against record size: is every step linear?

    python -m bench.scaling [--shapes ones,prose,...] [--max-kb 1000] [--max-claims 20000]
                            [--budget 20] [--repeat 3]

Two families, each measured through decode + the whole deterministic pipeline (checks,
redaction, scoring, the evaluation record and its serialisation), with the limits raised so
nothing is refused:

- answers of 10 KB to 1 MB in each hostile shape (the same trace otherwise): cost per KB;
- traces of 10 to 20,000 claims (each citing one of 50 sources): cost per claim, once with
  no judge (``--judge none``) and once with the offline judge (``lexical``).

The baseline of each row is its own smallest size, measured in the same run; the ratio is
the cost per unit at the largest size over the cost per unit at the smallest. A linear step
keeps it at or below 1 (fixed per-record costs weigh most on the smallest); the target is at
most 2. A row whose single measurement exceeds ``--budget`` seconds stops growing there and
says so. The stage whose cost per unit grew most is named, to say whose code it is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from collections.abc import Callable

from bench._traces import make_trace
from sidecar.assembly import build_pipeline
from sidecar.config import Settings, load_settings
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.runtime.guard import serialise_record

TARGET = 2.0
SIZES_KB = (10, 30, 100, 300, 1000)
CLAIM_COUNTS = (10, 100, 1000, 5000, 20000)


def _repeat(unit: str, size_bytes: int) -> str:
    return (unit * (size_bytes // len(unit) + 1))[:size_bytes]


SHAPES: dict[str, Callable[[int], str]] = {
    "ones": lambda n: _repeat("1 ", n),
    "prose": lambda n: _repeat("Refunds are available within 30 days of purchase. ", n),
    "markers": lambda n: _repeat("Fact [S1]. ", n),
    "brackets": lambda n: _repeat("[", n),
    "digits": lambda n: _repeat("4111111111111111 ", n),
    "emails": lambda n: _repeat("a.b@example.com ", n),
    "dashes": lambda n: _repeat("1-", n),
    "controls": lambda n: _repeat("a\u0000\u000b", n),
}


def _settings(judge: str) -> Settings:
    return load_settings(
        overrides={
            "judge.backend": judge,
            "sampling.rate": 1.0,
            "sampling.requests_per_minute": None,
            "sampling.tokens_per_minute": None,
            "checks.max_record_bytes": 64 * 1024 * 1024,
            "limits.max_text_chars": 16 * 1024 * 1024,
            "limits.max_claims": 1_000_000,
            "limits.max_sources": 1_000_000,
        }
    )


class Runner:
    """Decode + evaluate + serialise one payload, with the time of each stage."""

    def __init__(self, judge: str) -> None:
        self.settings = _settings(judge)
        self.stages: dict[str, float] = defaultdict(float)
        self.pipeline = build_pipeline(self.settings, on_stage=self._on_stage)
        self.limits = DecodeLimits.from_settings(self.settings)
        self.judge = judge

    def _on_stage(self, stage: str, seconds: float) -> None:
        self.stages[stage] += seconds

    def once(self, payload: bytes) -> tuple[float, dict[str, float]]:
        self.stages.clear()
        started = time.perf_counter()
        trace = decode_trace(payload, limits=self.limits)
        decoded = time.perf_counter()
        record = asyncio.run(self.pipeline.evaluate(trace))
        before = time.perf_counter()
        serialise_record(record)
        done = time.perf_counter()
        stages = dict(self.stages)
        stages["decode"] = decoded - started
        stages["serialise"] = done - before
        return done - started, stages

    def best(self, payload: bytes, repeat: int) -> tuple[float, dict[str, float]]:
        """The fastest of ``repeat`` runs; small payloads run more often (up to 0.5 s of
        runs), so machine noise weighs on every size alike."""
        best: tuple[float, dict[str, float]] | None = None
        spent, runs = 0.0, 0
        while runs < repeat or (spent < 0.5 and runs < 50):
            result = self.once(payload)
            runs += 1
            spent += result[0]
            if best is None or result[0] < best[0]:
                best = result
            if result[0] > 2.0:  # one long measurement is precise enough
                break
        assert best is not None
        return best


def _trace(**overrides: object) -> bytes:
    data = make_trace(0)
    data.update(overrides)
    return json.dumps(data).encode()


def _answer_payload(shape: str, kb: int) -> bytes:
    return _trace(answer=SHAPES[shape](kb * 1024))


def _claims_payload(count: int, sources_count: int = 50) -> bytes:
    n_sources = sources_count or count
    sources = [
        {"id": f"S{i}", "text": f"Policy {i}: refunds within {i + 1} days of purchase."}
        for i in range(n_sources)
    ]
    claims = [
        {
            "id": f"c{i}",
            "text": f"Refunds within {i % n_sources + 1} days of purchase.",
            "citation_ids": [f"S{i % n_sources}"],
            "importance": 1 + i % 3,
        }
        for i in range(count)
    ]
    answer = " ".join(f"{c['text'][:-1]} [{c['citation_ids'][0]}]." for c in claims)
    return _trace(sources=sources, claims=claims, answer=answer)


def _row(
    label: str, points: list[tuple[int, float, dict[str, float]]], stopped: bool, columns: int
) -> float:
    """Print one row; returns the ratio of the largest to the smallest cost per unit."""
    costs = [seconds / size for size, seconds, _ in points]
    # Largest size's cost per unit over the smallest's: fixed per-record costs only lower
    # it; anything growing faster than the record raises it.
    ratio = costs[-1] / costs[0]
    first, last = points[0], points[-1]
    growth = {
        stage: (last[2].get(stage, 0.0) / last[0]) / max(first[2].get(stage, 0.0) / first[0], 1e-9)
        for stage in last[2]
        if last[2][stage] > 0.05 * last[1]
    }
    worst = max(growth, key=lambda s: growth[s]) if growth else "-"
    cells = [f"{c * 1e6:>9.1f}" for c in costs] + [f"{'-':>9}"] * (columns - len(costs))
    verdict = ("MISSES" if ratio > TARGET else "ok") + (
        f" (stopped at {points[-1][0]}: over budget)" if stopped else ""
    )
    print(f"  {label:<16}{''.join(cells)}  {ratio:>7.2f}x  {worst:<10} {verdict}")
    return ratio


def _series(
    runner: Runner, sizes: tuple[int, ...], make: Callable[[int], bytes], budget: float, repeat: int
) -> tuple[list[tuple[int, float, dict[str, float]]], bool]:
    points = []
    for size in sizes:
        seconds, stages = runner.best(make(size), repeat)
        points.append((size, seconds, stages))
        if seconds > budget:
            return points, size != sizes[-1]
    return points, False


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--max-kb", type=int, default=max(SIZES_KB))
    parser.add_argument("--max-claims", type=int, default=max(CLAIM_COUNTS))
    parser.add_argument(
        "--budget",
        type=float,
        default=20.0,
        help="Seconds one measurement may take before the row stops growing.",
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    ratios: dict[str, float] = {}

    sizes = tuple(kb for kb in SIZES_KB if kb <= args.max_kb)
    runner = Runner("none")
    print(
        f"answers: microseconds per KB at {', '.join(f'{kb} KB' for kb in sizes)}; "
        f"ratio = largest / smallest (target <= {TARGET:g}x)"
    )
    print(
        f"  {'shape':<16}"
        + "".join(f"{str(kb) + 'KB':>9}" for kb in sizes)
        + "     ratio  grew most"
    )
    for shape in args.shapes.split(","):
        points, stopped = _series(
            runner, sizes, lambda kb, s=shape: _answer_payload(s, kb), args.budget, args.repeat
        )
        ratios[f"answer:{shape}"] = _row(shape, points, stopped, len(sizes))

    counts = tuple(n for n in CLAIM_COUNTS if n <= args.max_claims)
    print(f"\nclaims: microseconds per claim at {', '.join(map(str, counts))} claims")
    print(
        f"  {'--judge/sources':<16}" + "".join(f"{n:>9}" for n in counts) + "     ratio  grew most"
    )
    print("  (50 sources shared by all claims, then one source per claim: claims x passages)")
    for judge in ("none", "lexical"):
        for sources in (50, 0):
            judged = Runner(judge)
            points, stopped = _series(
                judged, counts, lambda n, k=sources: _claims_payload(n, k), args.budget, args.repeat
            )
            label = f"{judge}/{'50 src' if sources else 'n src'}"
            ratios[f"claims:{label}"] = _row(label, points, stopped, len(counts))
    worst = max(ratios, key=lambda k: ratios[k])
    print(
        f"\nworst: {worst} at {ratios[worst]:.2f}x; "
        f"{sum(r <= TARGET for r in ratios.values())}/{len(ratios)} rows within {TARGET:g}x"
    )
    return ratios


if __name__ == "__main__":
    main()
