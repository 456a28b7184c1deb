"""Claim derivation cost: against the marker parse it builds on, and across answer sizes.

    python -m bench.derive [--sentences 20] [--repeat 5]
    python -m bench.derive --before REV [--repeat 5]

Prints, for answers of N, 10 N and 100 N sentences (mixed styles: bracket lists, footnotes,
abbreviations, decimals, list items), the time of (a) finding the markers alone (the
baseline) and (b) deriving the claims (markers, sentences, claims), with the ratio b/a at
each size. Derivation is one pass over the answer: the ratio stays flat as answers grow
(a superlinear step would make it climb), and the per-sentence time stays the same.

With ``--before REV``: the pass the pipeline runs before its checks (marker parse,
numbering, derivation, analysis) per trace, for each answer shape (markers after or before
their sentence, bullets, numbers naming sources by position, ranges, claims sent with their
markers), on this tree and on revision REV's tree in one run (bench/_before_after.py).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from bench._before_after import BEFORE_REV, compare
from schemas import Trace
from sidecar.checks import MarkerParser
from sidecar.checks.derive import derive_claims

_STYLES = (
    "The Pro plan costs 20.50 EUR a month [1][2]. ",
    "Dr. Adams signed the policy on Jan. 5, e.g. for U.S. customers [3, 4]. ",
    "J. R. R. Tolkien wrote it.[^1] ",
    "- Refunds take 5 business days [S1].\n",
    'He said "the fee is waived." [2] Is that all? ',
    "Bursts are queued for up to 5 seconds\u30101\u2020source\u3011.\n\n",
)


def _answer(sentences: int) -> str:
    return "".join(_STYLES[i % len(_STYLES)] for i in range(sentences))


def _trace(answer: str) -> Trace:
    return Trace.model_validate(
        {
            "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
            "timestamp": "2026-11-30T10:00:00Z",
            "app": "bench",
            "generator": {"model": "m", "prompt_version": "v"},
            "question": "q",
            "answer": answer,
        }
    )


def _best_of(repeat: int, func: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--before",
        metavar="REV",
        help="instead: the pass per answer shape on this tree against git revision REV "
        f"(for example {BEFORE_REV})",
    )
    args = parser.parse_args()
    if args.before:
        compare("derive", rev=args.before, traces=200, sentences=10, rounds=args.repeat, loops=3)
        return
    marker_parser = MarkerParser()
    print(
        f"{'sentences':>10} {'chars':>9} {'markers ms':>11} {'derive ms':>10} "
        f"{'ratio':>6} {'us/sentence':>12}"
    )
    for scale in (1, 10, 100):
        count = args.sentences * scale
        trace = _trace(_answer(count))
        # Enough loops that the smallest size is measurable.
        loops = max(1, 200 // scale)

        def markers(trace: Trace = trace, loops: int = loops) -> None:
            for _ in range(loops):
                marker_parser.markers(trace.answer)

        def derive(trace: Trace = trace, loops: int = loops) -> None:
            for _ in range(loops):
                derive_claims(trace, marker_parser, importance=2)

        baseline = _best_of(args.repeat, markers) / loops
        derived = _best_of(args.repeat, derive) / loops
        print(
            f"{count:>10} {len(trace.answer):>9} {baseline * 1e3:>11.3f} "
            f"{derived * 1e3:>10.3f} {derived / baseline:>6.1f} "
            f"{derived / count * 1e6:>12.1f}"
        )


if __name__ == "__main__":
    main()
