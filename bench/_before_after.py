"""Before and after in one run: the citation pass (bench/_citation_pass.py) on this tree, in
this process, and on a git revision's tree, in a subprocess, on the same traces, round by
round; the verdict per answer shape is the median of the rounds' ratios after/before."""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench._citation_pass import REFERENCE, SHAPES, timed, trace_dicts

_ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "cc26a1e"
"""The last revision before markers could open their sentence and name sources by position."""
TARGET = 1.2
"""The most an answer shape may cost after, against before."""


def _tree(rev: str, into: Path) -> None:
    """The Python packages of ``rev`` extracted into ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "schemas", "sidecar", "exporters"],
        cwd=_ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def compare(what: str, *, rev: str, traces: int, sentences: int, rounds: int, loops: int) -> None:
    """Print microseconds per trace before and after, and the ratio, per answer shape."""
    shapes = {name: trace_dicts(name, traces, sentences) for name in SHAPES}
    spec = json.dumps({"what": what, "shapes": shapes, "rounds": 1, "loops": loops})
    before: dict[str, list[float]] = {name: [] for name in shapes}
    after: dict[str, list[float]] = {name: [] for name in shapes}
    with tempfile.TemporaryDirectory() as directory:
        _tree(rev, Path(directory))
        env = {**os.environ, "PYTHONPATH": directory}
        script = str(_ROOT / "bench" / "_citation_pass.py")
        for _ in range(rounds):  # interleaved, so a busy machine weighs on both alike
            done = subprocess.run(
                [sys.executable, script],
                input=spec,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            for name, values in json.loads(done.stdout).items():
                before[name] += values
            for name, values in timed(what, shapes, 1, loops).items():
                after[name] += values
    print(
        f"{what}: {traces} traces per shape, {sentences} sentences each, {rounds} rounds "
        f"(CPU time); before = {rev}, after = this tree"
    )
    print(
        f"  {'shape':<22} {'before us':>10} {'after us':>9} {'after/before':>13} "
        f"{'vs same claims before':>22}"
    )
    worst = 0.0
    for name in shapes:
        ratio = statistics.median(a / b for a, b in zip(after[name], before[name], strict=True))
        reference = REFERENCE.get(name, name)
        same = statistics.median(a / b for a, b in zip(after[name], before[reference], strict=True))
        worst = max(worst, same)
        print(
            f"  {name:<22} {min(before[name]) * 1e6:>10.1f} {min(after[name]) * 1e6:>9.1f} "
            f"{ratio:>13.2f} {same:>15.2f} ({reference})"
        )
    verdict = "meets" if worst <= TARGET else "misses"
    print(
        f"  worst shape {worst:.2f} against the pass before on the answer that derives the "
        f"same claims: {verdict} the target <= {TARGET:g}"
    )
