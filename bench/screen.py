"""The offline screen against human labels, next to baselines run in the same process.

    python -m bench.screen [--split all|dev|test] [--repeat 5] [--show-errors]

On tests/fixtures/screen/labelled.jsonl prints, per judge: precision of each verdict class
(share of its verdicts people agree with), abstention rate, coverage, the confusion matrix
(human x judge, with abstain) and Cohen's kappa on the answered pairs, for the dev and the
held-out test split separately. Baselines: the old lexical judge (lexical-v1, which never
abstains) and plain token-overlap thresholds. Then the per-claim time of the screen against
the old lexical judge, as a ratio measured in this run.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._lexical_baseline import lexical_verdict, overlap
from sidecar.judge.screen import clear_passage_cache, screen_claim
from sidecar.quality._stats import cohen_kappa

LABELLED = Path(__file__).parents[1] / "tests" / "fixtures" / "screen" / "labelled.jsonl"
LABELS = ("supported", "partial", "unsupported")
ABSTAIN = "abstain"

Judge = Callable[[str, Sequence[str]], str | None]


def load(path: Path = LABELLED) -> list[dict[str, Any]]:
    """The labelled pairs."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def screen_judge(claim: str, passages: Sequence[str]) -> str | None:
    """The screen's verdict, None when it abstains."""
    return screen_claim(claim, passages).verdict


def overlap_judge(supported_at: float, unsupported_below: float | None = None) -> Judge:
    """Token overlap: supported at or above a share of claim words found; below it
    unsupported, or (with ``unsupported_below``) abstain in between."""
    def judge(claim: str, passages: Sequence[str]) -> str | None:
        share = overlap(claim, passages)
        if share >= supported_at:
            return "supported"
        if unsupported_below is None or share < unsupported_below:
            return "unsupported"
        return None
    return judge


@dataclass(frozen=True)
class Figures:
    """What one judge did on one set of pairs."""

    n: int
    matrix: dict[str, dict[str, int]]      # human -> judge (incl. abstain) -> count
    precision: dict[str, tuple[int, int]]  # judge verdict -> (agreed, given)
    abstained: int
    kappa: float | None

    @property
    def abstention(self) -> float:
        return self.abstained / self.n if self.n else 0.0


def figures(pairs: Sequence[dict[str, Any]], judge: Judge) -> Figures:
    """Precision per class, abstentions, confusion and kappa of ``judge`` on ``pairs``."""
    matrix = {h: {j: 0 for j in (*LABELS, ABSTAIN)} for h in LABELS}
    for pair in pairs:
        verdict = judge(pair["claim"], pair["passages"]) or ABSTAIN
        matrix[pair["label"]][verdict] += 1
    precision = {j: (matrix[j][j], sum(matrix[h][j] for h in LABELS)) for j in LABELS}
    answered = [[matrix[h][j] for j in LABELS] for h in LABELS]
    abstained = sum(matrix[h][ABSTAIN] for h in LABELS)
    return Figures(len(pairs), matrix, precision, abstained, cohen_kappa(answered))


def _pct(agreed: int, given: int) -> str:
    return f"{agreed / given:6.1%} ({agreed}/{given})" if given else "   n/a (0/0)"


def report(name: str, f: Figures) -> list[str]:
    """Printable lines for one judge's figures."""
    kappa = "n/a" if f.kappa is None else f"{f.kappa:.3f}"
    lines = [f"  {name}: abstained {f.abstention:.1%} ({f.abstained}/{f.n}), coverage "
             f"{1 - f.abstention:.1%}, kappa on answered {kappa}"]
    lines.append("    precision  " + "  ".join(
        f"{label} {_pct(*f.precision[label])}" for label in LABELS))
    lines.append("    human \\ judge   " + " ".join(f"{c:>11}" for c in (*LABELS, ABSTAIN)))
    for human in LABELS:
        lines.append(f"    {human:<15} " + " ".join(
            f"{f.matrix[human][c]:>11}" for c in (*LABELS, ABSTAIN)))
    return lines


JUDGES: dict[str, Judge] = {
    "screen": screen_judge,
    "lexical-v1 (old offline judge)": lambda c, p: lexical_verdict(c, p),
    "overlap >= 0.5": overlap_judge(0.5),
    "overlap >= 0.8": overlap_judge(0.8),
    "overlap >= 0.9, < 0.3 unsupported, else abstain": overlap_judge(0.9, 0.3),
}


def _per_claim_seconds(pairs: Sequence[dict[str, Any]], judge: Judge, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for pair in pairs:
            judge(pair["claim"], pair["passages"])
        best = min(best, time.perf_counter() - start)
    return best / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("all", "dev", "test"), default="all")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--show-errors", action="store_true",
                        help="list the screen's wrong answers on the dev split")
    args = parser.parse_args()
    pairs = load()
    splits = ("dev", "test") if args.split == "all" else (args.split,)
    for split in splits:
        chosen = [p for p in pairs if p["split"] == split]
        print(f"{split} split: {len(chosen)} pairs")
        for name, judge in JUDGES.items():
            print("\n".join(report(name, figures(chosen, judge))))
        print()
    if args.show_errors:
        for pair in pairs:
            if pair["split"] != "dev":
                continue
            result = screen_claim(pair["claim"], pair["passages"])
            if result.verdict is not None and result.verdict != pair["label"]:
                print(f"{pair['id']} human {pair['label']} screen {result.verdict}: "
                      f"{result.reason}\n  C: {pair['claim']}\n  P: {pair['passages']}")
    lexical_time = _per_claim_seconds(pairs, JUDGES["lexical-v1 (old offline judge)"],
                                      args.repeat)
    cold = _per_claim_seconds(pairs, _cold(screen_judge), args.repeat)
    warm = _per_claim_seconds(pairs, screen_judge, args.repeat)
    print(f"per claim: lexical-v1 {lexical_time * 1e6:.0f} us (baseline); screen "
          f"{cold * 1e6:.0f} us preparing its passages ({cold / lexical_time:.2f}x), "
          f"{warm * 1e6:.0f} us with passages prepared once per trace "
          f"({warm / lexical_time:.2f}x)")
    _scaling(pairs)


def _cold(judge: Judge) -> Judge:
    def run(claim: str, passages: Sequence[str]) -> str | None:
        clear_passage_cache()
        return judge(claim, passages)
    return run


def _scaling(pairs: Sequence[dict[str, Any]]) -> None:
    """Cost against cited text size (x10 text should cost about x10), and a large trace."""
    text = " ".join(p for pair in pairs for p in pair["passages"])
    claim = pairs[0]["claim"]
    screen_claim(claim, [text])     # lemma caches warm, as in a running service
    clear_passage_cache()
    previous = None
    for factor in (1, 10):
        passage = " ".join([text] * factor)
        start = time.perf_counter()
        screen_claim(claim, [passage])
        clear_passage_cache()
        elapsed = time.perf_counter() - start
        ratio = "" if previous is None else f", x{elapsed / previous:.1f} for x10 text"
        print(f"one claim against {len(passage):,} chars of cited text: {elapsed:.3f} s{ratio}")
        previous = elapsed
    sources = [p for pair in pairs[:40] for p in pair["passages"]]
    claims = [pair["claim"] for pair in pairs] * (20_000 // len(pairs) + 1)
    start = time.perf_counter()
    for i, claim in enumerate(claims[:20_000]):
        screen_claim(claim, [sources[i % len(sources)]])
    elapsed = time.perf_counter() - start
    print(f"20,000 claims of one trace over {len(sources)} passages: {elapsed:.2f} s "
          f"({elapsed / 20_000 * 1e6:.0f} us per claim)")


if __name__ == "__main__":
    main()
