"""The marker pass against the marker pass before declared IDs, Unicode forms and code spans.

    python -m bench.markers [--traces 2000] [--repeat 7] [--baseline REV]
    python -m bench.markers --before REV [--repeat 7]

The marker pass is what the analysis does with the answer before any check runs: find the
markers and resolve their IDs against the trace's sources. The baseline is the marker
module of git revision ``REV`` (the last one before IDs were resolved by form and case and
declared IDs found by an automaton), loaded from git into a module of its own in this
process, with the analysis' resolution of that time (a set lookup). Both run on the same
bench traces (bench/_traces.py: ASCII answers with ``[S1]`` markers); the verdict is the
median of the rounds' ratios new/old by CPU time (target: <= 1.0, the pass costs no more
than before). Then, for information, the new pass alone on answers the old one could not
read: CJK brackets, decomposed IDs, declared IDs of any shape, code and URLs.

With ``--before REV``: the marker pass as the pipeline runs it now (the parse and the
numbering) per answer shape, on this tree and on revision REV's tree (the parse alone) in
one run (bench/_before_after.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._before_after import BEFORE_REV, compare
from bench._traces import make_trace
from sidecar.checks.markers import IdResolver, MarkerParser

BASELINE_REV = "33e8ab2335042c8fcf3a7703bb793a723c51537f"
TARGET = 1.0
_ROOT = Path(__file__).resolve().parent.parent


def _baseline_module(rev: str) -> Any:
    """``sidecar/checks/markers.py`` as it was at ``rev``, as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:sidecar/checks/markers.py"],
        cwd=_ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    module = types.ModuleType("_markers_baseline")
    exec(compile(source, f"{rev[:12]}:sidecar/checks/markers.py", "exec"), module.__dict__)
    return module


def _timed(func: Callable[[], None]) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


_OTHER_FORMS = {
    "CJK brackets": ("退款期限为30天［S1］。客服每天开放【2】，见〔S3〕。" * 4, ["S1", "2", "S3"]),
    "NFD IDs": (
        "Refunds take 30 days [cafe\u03011]. Support [cafe\u03012]. " * 4,
        ["caf\u00e91", "caf\u00e92"],
    ),
    "declared IDs": (
        "Refunds take 30 days [policy 7]. See the [handbook] and [doc-a.b]. " * 4,
        ["policy 7", "handbook", "doc-a.b"],
    ),
    "code and URLs": ("Use `a[0]` and https://example.com/x[1] then [S1]. " * 4, ["S1"]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--baseline", default=BASELINE_REV, help="git revision whose marker module is the baseline"
    )
    parser.add_argument(
        "--before",
        metavar="REV",
        help="instead: the marker pass (with numbering) per answer shape on this tree "
        f"against git revision REV (for example {BEFORE_REV})",
    )
    args = parser.parse_args()
    if args.before:
        compare("markers", rev=args.before, traces=200, sentences=10, rounds=args.repeat, loops=5)
        return

    traces = [make_trace(i) for i in range(args.traces)]
    work: list[tuple[str, frozenset[str]]] = [
        (str(t["answer"]), frozenset(s["id"] for s in t["sources"]))  # type: ignore[attr-defined]
        for t in traces
    ]
    old_parser = _baseline_module(args.baseline).MarkerParser()
    new_parser = MarkerParser()

    def old() -> None:
        for answer, source_ids in work:
            markers = old_parser.markers(answer)
            seen = dict.fromkeys([i for marker in markers for i in marker.ids])
            [i for i in seen if i not in source_ids]

    def new() -> None:
        # As the analysis does now: the parse tells which IDs resolve to no source.
        for answer, source_ids in work:
            markers, _, unknown = new_parser.scan(answer, IdResolver(source_ids))
            seen = dict.fromkeys([i for marker in markers for i in marker.ids])
            if unknown:
                [i for i in seen if i in unknown]

    old(), new()  # warm both (regex caches, the automaton tables)
    runs: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(args.repeat):
        runs["old"].append(_timed(old))
        runs["new"].append(_timed(new))
    ratios = sorted(n / o for n, o in zip(runs["new"], runs["old"], strict=True))
    ratio = statistics.median(ratios)
    mean_chars = statistics.mean(len(answer) for answer, _ in work)
    print(
        f"{args.traces} bench traces, answers of {mean_chars:.0f} characters, "
        f"{args.repeat} rounds (CPU time, best):"
    )
    for name, times in runs.items():
        print(f"  {name:<4} {min(times) / args.traces * 1e6:8.2f} us/trace")
    verdict = "meets" if ratio <= TARGET else "misses"
    print(
        f"new/old {ratio:.2f} (median of the rounds' ratios; rounds {ratios[0]:.2f} to "
        f"{ratios[-1]:.2f}): {verdict} the target <= {TARGET:g}"
    )
    print("new pass on answers the old one misreads (us per answer, best of the rounds):")
    for name, (answer, ids) in _OTHER_FORMS.items():
        declared = frozenset(ids)
        loops = 500

        def one(
            answer: str = answer, declared: frozenset[str] = declared, loops: int = loops
        ) -> None:
            for _ in range(loops):
                new_parser.scan(answer, IdResolver(declared))

        best = min(_timed(one) for _ in range(args.repeat))
        found = new_parser.ids(answer, IdResolver(declared))
        print(f"  {name:<14} {len(answer):>5} chars {best / loops * 1e6:8.2f} us  IDs {found}")


if __name__ == "__main__":
    main()
