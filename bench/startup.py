"""Start-up of the commands a person runs at a terminal, beside `python -c pass`.

    python -m bench.startup [--repeat 5]

Each command runs as its own process on one trace (or one line of text); the figure is the
child's CPU time (user + system, from the kernel's accounting of the finished child), the
median of ``--repeat`` runs, interleaved so that a burst of other load on a shared machine
falls on every command alike. The bare interpreter's start-up is measured in the same run:
the difference is what citewatch itself costs before it reads a line. Target: 0.5 s CPU for
`check --judge none` and `redact`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.factories import trace_dict

TARGET_SECONDS = 0.5


def _cpu_seconds(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        traces = Path(folder) / "one.jsonl"
        traces.write_text(json.dumps(trace_dict()) + "\n", encoding="utf-8")
        text = Path(folder) / "one.txt"
        text.write_text("Call Ana at +44 20 7946 0958 about card 4111 1111 1111 1111.\n")
        out = os.path.join(folder, "out.jsonl")
        cli = [sys.executable, "-m", "sidecar.cli"]
        check = [*cli, "check", str(traces), "--output", out]
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "check --judge none": [*check, "--judge", "none"],
            "check --judge lexical": [*check, "--judge", "lexical"],
            "redact": [*cli, "redact", str(text)],
            "--help": [*cli, "--help"],
        }
        runs: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, argv in commands.items():
                runs[name].append(_cpu_seconds(argv))
    base = statistics.median(runs["python -c pass"])
    print(f"{'command':<24}{'CPU s (median)':>16}{'minus python':>14}{'x python':>10}")
    for name, seconds in runs.items():
        median = statistics.median(seconds)
        mark = ""
        if name in ("check --judge none", "redact"):
            mark = "  ok" if median <= TARGET_SECONDS else f"  over {TARGET_SECONDS} s"
        print(f"{name:<24}{median:>16.3f}{median - base:>14.3f}{median / base:>10.1f}{mark}")


if __name__ == "__main__":
    main()
