"""Before and after in one run: the citation pass (bench/_citation_pass.py) on this tree and
on a git revision's tree, each in a subprocess of its own (a fresh interpreter for both: the
same code timed in this process and in a child differed by 10-20%), on the same traces,
round by round; the verdict per answer shape is the median of the rounds' ratios
after/before."""

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

from bench._citation_pass import REFERENCE, SHAPES, trace_dicts

_ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "cc26a1e"
"""The last revision before markers could open their sentence and name sources by position."""
TARGET = 1.2
"""The most an answer shape may cost after, against before."""
_TIMINGS = 5
"""How many times each child times each shape (its best counts)."""


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
    # Each child times every shape several times over, interleaved, and its best time per
    # shape counts (a run of a few tens of milliseconds is at the mercy of one scheduler
    # tick on a shared machine; the best of several is steadier than any one).
    spec = json.dumps({"what": what, "shapes": shapes, "rounds": _TIMINGS, "loops": loops})
    before: dict[str, list[float]] = {name: [] for name in shapes}
    after: dict[str, list[float]] = {name: [] for name in shapes}
    script = str(_ROOT / "bench" / "_citation_pass.py")

    def child(tree: str) -> dict[str, list[float]]:
        done = subprocess.run(
            [sys.executable, script],
            input=spec,
            env={**os.environ, "PYTHONPATH": tree},
            check=True,
            capture_output=True,
            text=True,
        )
        result: dict[str, list[float]] = json.loads(done.stdout)
        return result

    with tempfile.TemporaryDirectory() as directory:
        _tree(rev, Path(directory))
        for _ in range(rounds):  # interleaved, so a busy machine weighs on both alike
            for name, values in child(directory).items():
                before[name].append(min(values))
            for name, values in child(str(_ROOT)).items():
                after[name].append(min(values))
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
