"""`citewatch check --judge none` as a whole process: its marginal cost per trace.

    python -m bench.cli [--traces 1000] [--repeat 3]

The same synthetic traces as bench.checks go through the command twice, N and 2N of them,
each as its own process; the difference of the two children's CPU times (user + system),
divided by N, is what one more trace costs, start-up excluded. json.loads of the same bytes,
timed in this process in the same run, is the baseline. Target: <= 20x json.loads (the
median of the rounds). bench.checks gives the in-process path for the same traces.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench._traces import encoded_traces

TARGET = 20.0


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lines = encoded_traces(2 * args.traces)
    ratios = []
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for count in (args.traces, 2 * args.traces):
            path = Path(folder) / f"{count}.jsonl"
            path.write_bytes(b"\n".join(lines[:count]) + b"\n")
            files[count] = path
        out = str(Path(folder) / "out.jsonl")
        for round_ in range(args.repeat):
            cpu = {}
            for count, path in files.items():
                argv = [sys.executable, "-m", "sidecar.cli", "check", str(path)]
                cpu[count] = _child_cpu([*argv, "--judge", "none", "--output", out])
            loads = _loads_seconds(lines[: args.traces]) / args.traces
            marginal = (cpu[2 * args.traces] - cpu[args.traces]) / args.traces
            ratios.append(marginal / loads)
            print(
                f"round {round_ + 1}: marginal {marginal * 1e6:7.1f} us/trace, json.loads "
                f"{loads * 1e6:5.1f} us/trace: {marginal / loads:5.1f}x"
            )
    median = statistics.median(ratios)
    verdict = "meets" if median <= TARGET else "misses"
    print(f"CLI marginal cost {median:.1f}x json.loads (median): {verdict} the target <= {TARGET}x")


if __name__ == "__main__":
    main()
