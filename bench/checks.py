"""The whole deterministic path against a bare json.loads of the same bytes.

    python -m bench.checks [--traces 2000] [--repeat 5] [--profile]

Per trace, in the order `citewatch run` does it: decode + validate (``decode_trace``),
analysis + checks (``Pipeline.analyse``), redaction (the redactor the default settings
build), scoring (``score`` and the evaluation record) and the record's JSON (what the
evaluations topic receives). Prints traces per second and the ratio to json.loads of the
same bytes (the baseline, measured in the same run) for the whole path, for the whole path
without the redaction stage (the same loop, the record built from the unredacted trace), and
for checks + scoring alone, then each stage's share of the whole. Target: the whole path,
redaction included, <= 15x json.loads, judged by the median of the rounds' ratios (each
round times every loop once, the baseline over several passes so that its run lasts about as
long as the others; a round's ratio compares runs taken at the same moment). Times are this
process's CPU time (best and median of the runs, interleaved), so other load on a shared
machine counts less; on a loaded machine compare ratios of the same run, and repeat. The
stages are timed in a separate run of the same loop with a clock read between stages (the
reads would add about 4 us a trace to the whole path's figure).

Before and after in one run with ``--before REV``: each round times the baseline and the
whole path here, then the same two loops in a child process on the Python packages of git
revision REV (the compiled redaction engine is this tree's, in both); it prints each tree's
median ratio and the median of the rounds' after/before ratios of the whole path.

Profile the same loop with ``--profile`` (cProfile, top functions by own time), or sample it
from outside with py-spy (``pip install py-spy``)::

    py-spy record -o profile.svg -- python -m bench.checks --traces 2000 --repeat 20
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench._traces import encoded_traces
from sidecar.config import Settings
from sidecar.decode import decode_trace
from sidecar.pipeline import JudgeOutcome, Pipeline, build_record
from sidecar.redaction import build_redactor
from sidecar.runtime.guard import serialise_record
from sidecar.scoring import score

STAGES = ("decode/validate", "analysis+checks", "redaction", "scoring+record", "record JSON")
TARGET = 15.0
BASELINE_PASSES = 8


def _timed(func: Callable[[], None]) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile the whole path with cProfile and print the top 25",
    )
    parser.add_argument(
        "--before",
        metavar="REV",
        help="compare with git revision REV's tree, round by round, in the same run",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.before:
        _compare(args.before, args.traces, args.repeat)
        return

    payloads = encoded_traces(args.traces)
    mean_size = statistics.mean(len(p) for p in payloads)
    settings = Settings()
    pipeline = Pipeline(settings)
    redactor = build_redactor(settings.redaction)
    no_judge = JudgeOutcome(skip_reason="no_judge")
    stage_seconds = dict.fromkeys(STAGES, 0.0)

    def baseline() -> None:
        # Several passes, so that the baseline's run lasts about as long as the others
        # (a 30 ms run is at the mercy of one scheduler tick); its time is per pass.
        for _ in range(BASELINE_PASSES):
            for payload in payloads:
                json.loads(payload)

    def checks_scoring() -> None:
        # The figure earlier versions of this benchmark printed: no redaction, no record.
        for payload in payloads:
            analysis, _ = pipeline.analyse(decode_trace(payload))
            score(analysis, None, settings.scoring)

    def without_redaction() -> None:
        for payload in payloads:
            trace = decode_trace(payload)
            analysis, findings = pipeline.analyse(trace)
            result = score(analysis, None, settings.scoring)
            record = build_record(trace, analysis, findings, result, no_judge, {})
            serialise_record(record)

    def whole_path() -> None:
        for payload in payloads:
            trace = decode_trace(payload)
            analysis, findings = pipeline.analyse(trace)
            redacted, redactions = redactor.redact(trace)
            result = score(analysis, None, settings.scoring)
            record = build_record(redacted, analysis, findings, result, no_judge, redactions)
            serialise_record(record)

    def by_stage() -> None:
        # The same loop with a clock read between stages (about 0.7 us a read, six a
        # trace): its total is not the whole path's figure, only its shares are.
        clock = time.process_time
        totals = dict.fromkeys(STAGES, 0.0)
        for payload in payloads:
            t0 = clock()
            trace = decode_trace(payload)
            t1 = clock()
            analysis, findings = pipeline.analyse(trace)
            t2 = clock()
            redacted, redactions = redactor.redact(trace)
            t3 = clock()
            result = score(analysis, None, settings.scoring)
            record = build_record(redacted, analysis, findings, result, no_judge, redactions)
            t4 = clock()
            serialise_record(record)
            t5 = clock()
            for stage, seconds in zip(
                STAGES, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True
            ):
                totals[stage] += seconds
        if sum(totals.values()) < sum(stage_seconds.values()) or not any(stage_seconds.values()):
            stage_seconds.update(totals)

    if args.child:  # one round of --before: this process runs the revision's tree
        whole_path()  # what is compiled or remembered on first use
        print(json.dumps([_timed(baseline) / BASELINE_PASSES, _timed(whole_path)]))
        return
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(whole_path)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return

    # Interleave them so machine noise hits all alike; keep the best of each.
    loops = {
        "json.loads": baseline,
        "checks+scoring": checks_scoring,
        "no redaction": without_redaction,
        "whole path": whole_path,
    }
    runs: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.repeat):
        for name, loop in loops.items():
            runs[name].append(_timed(loop))
        runs["json.loads"][-1] /= BASELINE_PASSES
        by_stage()
    best = {name: min(times) for name, times in runs.items()}
    median = {name: statistics.median(times) for name, times in runs.items()}

    print(
        f"{args.traces} traces, mean {mean_size / 1024:.1f} KB, {args.repeat} runs: best (median)"
    )
    for name, seconds in best.items():
        ratio = seconds / best["json.loads"]
        median_ratio = median[name] / median["json.loads"]
        print(
            f"  {name:<16} {args.traces / seconds:>10.0f} traces/s  "
            f"{seconds / args.traces * 1e6:>8.1f} us/trace  {ratio:5.2f}x "
            f"({median_ratio:5.2f}x) json.loads"
        )
    whole = sum(stage_seconds.values())
    print("whole path by stage (the best run of the loop with a clock between stages):")
    for stage, seconds in stage_seconds.items():
        print(f"  {stage:<16} {seconds / args.traces * 1e6:>8.1f} us/trace  {seconds / whole:6.1%}")
    own = best["no redaction"] / best["json.loads"]
    print(f"without redaction {own:.1f}x json.loads (best run)")
    # Each round's whole path against the same round's baseline: the pairs share the
    # machine's state of the moment, so their median is the steadiest figure.
    paired = sorted(w / j for w, j in zip(runs["whole path"], runs["json.loads"], strict=True))
    ratio = statistics.median(paired)
    verdict = "meets" if ratio <= TARGET else "misses"
    print(
        f"whole path {ratio:.1f}x json.loads (median of the rounds' ratios; rounds "
        f"{paired[0]:.1f}x to {paired[-1]:.1f}x): {verdict} the target <= {TARGET:g}x"
    )


def _compare(rev: str, traces: int, rounds: int) -> None:
    """The whole path's ratio to json.loads on this tree and on ``rev``'s, interleaved."""
    root = Path(__file__).resolve().parent.parent
    argv = [sys.executable, "-m", "bench.checks", "--traces", str(traces), "--child"]
    ratios: dict[str, list[float]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as folder:
        _extract(root, rev, Path(folder))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join((folder, str(root)))}
        for _ in range(rounds):
            for tree, environ in (
                ("before", env),
                ("after", {**os.environ, "PYTHONPATH": str(root)}),
            ):
                done = subprocess.run(
                    argv, env=environ, cwd=root, check=True, capture_output=True, text=True
                )
                loads, whole = json.loads(done.stdout)
                ratios[tree].append(whole / loads)
    before, after = ratios["before"], ratios["after"]
    paired = sorted(a / b for a, b in zip(after, before, strict=True))
    print(f"{traces} traces, {rounds} rounds, each tree in its own process, interleaved")
    for tree, values in ratios.items():
        print(
            f"  {tree:<6} whole path {statistics.median(values):5.1f}x json.loads (median; "
            f"rounds {min(values):.1f}x to {max(values):.1f}x)"
        )
    print(
        f"  after/before {statistics.median(paired):.3f} (median of the rounds; "
        f"{paired[0]:.3f} to {paired[-1]:.3f}); before = {rev}, after = this tree"
    )


def _extract(root: Path, rev: str, into: Path) -> None:
    """The Python packages of ``rev`` in ``into``, with this tree's compiled engine."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "schemas", "sidecar", "exporters"],
        cwd=root,
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for engine in (root / "sidecar" / "redaction").glob("_native*.so"):
        (into / "sidecar" / "redaction" / engine.name).write_bytes(engine.read_bytes())


if __name__ == "__main__":
    main()
