"""Start-up of the commands a person runs at a terminal, beside `python -c pass`.

    python -m bench.startup [--repeat 5]

Each command runs as its own process on one trace (or one line of text); the figure is the
child's CPU time (user + system, from the kernel's accounting of the finished child), the
median of ``--repeat`` runs, interleaved so that a burst of other load on a shared machine
falls on every command alike. The bare interpreter's start-up is measured in the same run:
the difference is what citewatch itself costs before it reads a line. Target: 0.5 s CPU for
`check --judge none` and `redact`, as installed.

Each command is timed twice over: as installed, with the bytecode of every module it imports
(a wheel's install compiles it, and an editable install's first run writes it; here a warm-up
run writes it under a temporary ``PYTHONPYCACHEPREFIX``, so the tree is left alone), and as
this environment runs it. Where ``PYTHONDONTWRITEBYTECODE`` is set and the tree holds no
bytecode, the second figure includes compiling citewatch's modules from source on every run.
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


def _cpu_seconds(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
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
        # As installed: bytecode written by a first run, read by the timed ones.
        installed = {
            key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
        }
        installed["PYTHONPYCACHEPREFIX"] = os.path.join(folder, "bytecode")
        for argv in commands.values():
            _cpu_seconds(argv, installed)
        settings = {"installed": installed, "this environment": dict(os.environ)}
        runs: dict[tuple[str, str], list[float]] = {
            (name, how): [] for how in settings for name in commands
        }
        for _ in range(args.repeat):
            for name, argv in commands.items():
                for how, env in settings.items():
                    runs[name, how].append(_cpu_seconds(argv, env))
    medians = {key: statistics.median(seconds) for key, seconds in runs.items()}
    print(
        f"{'CPU s (median)':<24}{'installed':>10}{'minus python':>14}{'x python':>10}"
        f"{'this environment':>18}"
    )
    base = medians["python -c pass", "installed"]
    for name in commands:
        median = medians[name, "installed"]
        mark = ""
        if name in ("check --judge none", "redact"):
            mark = "  ok" if median <= TARGET_SECONDS else f"  over {TARGET_SECONDS} s"
        print(
            f"{name:<24}{median:>10.3f}{median - base:>14.3f}{median / base:>10.1f}"
            f"{medians[name, 'this environment']:>18.3f}{mark}"
        )
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print(
            "PYTHONDONTWRITEBYTECODE is set here: where the tree holds no bytecode, this "
            "environment compiles citewatch's modules on every run"
        )


if __name__ == "__main__":
    main()
