"""Deterministic path cost against a bare json.loads of the same bytes.

    python -m bench.checks [--traces 2000] [--repeat 5]

Prints traces per second for (a) json.loads alone (the baseline), (b) decode + validate +
all checks + scoring, (c) the same plus building the evaluation record, and the ratios of the
per-trace times. Target: (b) costs no more than 10x (a).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable

from bench._traces import encoded_traces
from sidecar.checks import MarkerParser, analyse, default_checks
from sidecar.config import Settings
from sidecar.decode import decode_trace
from sidecar.pipeline import Pipeline
from sidecar.scoring import score


def _best_of(repeat: int, func: Callable[[], None]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    payloads = encoded_traces(args.traces)
    mean_size = statistics.mean(len(p) for p in payloads)
    settings = Settings()
    marker_parser = MarkerParser()
    checks = default_checks()
    pipeline = Pipeline(settings)

    def baseline() -> None:
        for payload in payloads:
            json.loads(payload)

    def deterministic() -> None:
        for payload in payloads:
            trace = decode_trace(payload)
            analysis = analyse(trace, marker_parser)
            for check in checks:
                check.run(analysis)
            score(analysis, None, settings.scoring)

    async def records() -> None:
        # Without a judge, evaluate() never suspends: the loop adds one run per batch.
        for payload in payloads:
            await pipeline.evaluate(decode_trace(payload))

    def with_record() -> None:
        asyncio.run(records())

    # Interleave the three so machine noise hits them alike; keep the best of each.
    results = {"json.loads": [], "checks+scoring": [], "with record": []}
    for _ in range(args.repeat):
        results["json.loads"].append(_best_of(1, baseline))
        results["checks+scoring"].append(_best_of(1, deterministic))
        results["with record"].append(_best_of(1, with_record))
    best = {name: min(times) for name, times in results.items()}

    print(f"{args.traces} traces, mean {mean_size / 1024:.1f} KB, best of {args.repeat}")
    for name, seconds in best.items():
        ratio = seconds / best["json.loads"]
        print(f"  {name:<16} {args.traces / seconds:>10.0f} traces/s  "
              f"{seconds / args.traces * 1e6:>8.1f} us/trace  {ratio:5.2f}x json.loads")
    verdict = "meets" if best["checks+scoring"] / best["json.loads"] <= 10 else "misses"
    print(f"target <= 10x json.loads: {verdict}")


if __name__ == "__main__":
    main()
