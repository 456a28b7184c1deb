"""`citewatch check --judge none` as a whole process: its marginal cost per trace.

    python -m bench.cli [--traces 1000] [--repeat 3]

The same synthetic traces as bench.checks go through the command, N and 2N of them, each
as its own process, three times each in turn; the difference of the two children's least
CPU times (user + system), divided by N, is what one more trace costs, start-up excluded.
json.loads of the same bytes, timed in this process in the same run, is the baseline.
Target: <= 20x json.loads (the median of the rounds).

Each round also times the in-process path in this process: the same N traces through
``evaluate_raw`` (decode, the pipeline the command builds, the record's JSON), one after the
other, nothing written. The CLI's ratio to it is what the command adds around the pipeline
(reading, the ordered loop, writing, the summary); bench.checks breaks the pipeline down.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._traces import encoded_traces
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from sidecar.decode import DecodeLimits
from sidecar.runtime.guard import evaluate_raw

TARGET = 20.0
CHILD_RUNS = 3
"""Runs of each child per round; the least CPU time counts."""


def _child_cpu(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _loads_seconds(lines: list[bytes]) -> float:
    start = time.process_time()
    for _ in range(5):
        for line in lines:
            json.loads(line)
    return (time.process_time() - start) / 5


def _in_process_seconds(lines: list[bytes]) -> float:
    """CPU seconds of ``lines`` through what the command does per trace, in this process."""
    settings = Settings(judge={"backend": "none"})
    pipeline = build_pipeline(settings)
    limits = DecodeLimits.from_settings(settings)

    async def run() -> None:
        for line in lines:
            await evaluate_raw(pipeline, line, limits)

    asyncio.run(run())  # the first pass compiles what is compiled on first use
    start = time.process_time()
    asyncio.run(run())
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = encoded_traces(2 * args.traces)
    ratios: list[float] = []
    in_process: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for count in (args.traces, 2 * args.traces):
            path = Path(folder) / f"{count}.jsonl"
            path.write_bytes(b"\n".join(lines[:count]) + b"\n")
            files[count] = path
        out = str(Path(folder) / "out.jsonl")
        for round_ in range(args.repeat):
            # Each child several times, N and 2N in turn, and the least CPU of each: one
            # run's start-up varies by more than a thousand traces cost (a round's
            # difference of single runs came out negative on a shared machine).
            runs: dict[int, list[float]] = {count: [] for count in files}
            for _ in range(CHILD_RUNS):
                for count, path in files.items():
                    argv = [sys.executable, "-m", "sidecar.cli", "check", str(path)]
                    runs[count].append(_child_cpu([*argv, "--judge", "none", "--output", out]))
            cpu = {count: min(times) for count, times in runs.items()}
            loads = _loads_seconds(lines[: args.traces]) / args.traces
            inside = _in_process_seconds(lines[: args.traces]) / args.traces
            marginal = (cpu[2 * args.traces] - cpu[args.traces]) / args.traces
            ratios.append(marginal / loads)
            in_process.append(inside / loads)
            print(
                f"round {round_ + 1}: marginal {marginal * 1e6:7.1f} us/trace, in-process "
                f"{inside * 1e6:7.1f} us/trace, json.loads {loads * 1e6:5.1f} us/trace: "
                f"CLI {marginal / loads:5.1f}x, in-process {inside / loads:5.1f}x, "
                f"CLI/in-process {marginal / inside:4.2f}"
            )
    median = statistics.median(ratios)
    verdict = "meets" if median <= TARGET else "misses"
    print(f"CLI marginal cost {median:.1f}x json.loads (median): {verdict} the target <= {TARGET}x")
    print(
        f"in-process path {statistics.median(in_process):.1f}x json.loads (median): the CLI "
        f"adds {statistics.median(ratios) - statistics.median(in_process):+.1f}x around it"
    )


if __name__ == "__main__":
    main()
