"""The offline screen against human labels, next to the previous screen and baselines.

    python -m bench.screen [--set all|hand|public|broad] [--show-errors] [--timing]

Three labelled sets: ``tests/fixtures/screen/labelled.jsonl`` (written by the project, by
the rubric), ``tests/fixtures/screen/public.jsonl`` (a sample of public human-labelled
sets, with answers and responses written by models; see PUBLIC.md there) and
``tests/fixtures/screen/broad.jsonl`` (samples of four more public sets: news summaries
written by models, encyclopedic, scientific and contract text; see BROAD.md there). Each is
split dev/test by document; rules are fitted on dev only. Sets that label only supported
or not (fully) supported are marked ``binary``: there a partial verdict counts as right
when people say not supported.
For each split it prints, per judge: precision of each verdict class with its Wilson 95%
interval, abstention, coverage, the confusion matrix (human x judge, with abstain) and
Cohen's kappa on the answered pairs. The judges are the screen, the previous screen (the
code of ``bench._screen_previous.BASE_COMMIT``, loaded from git into this process), the old
lexical judge and a word-overlap baseline. It ends with the per-class precision on the
public held-out split that the cascade's defaults follow, then the held-out split of the
broader set per source and class for the screen, the previous screen and word overlap, and
(with ``--timing``) the per-claim time of the screen against lexical-v1 in this run.
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
from bench._screen_previous import BASE_COMMIT, previous_screen
from sidecar.judge.screen import clear_passage_cache, screen_claim
from sidecar.quality._stats import cohen_kappa, wilson_interval

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "screen"
LABELLED = FIXTURES / "labelled.jsonl"
PUBLIC = FIXTURES / "public.jsonl"
BROAD = FIXTURES / "broad.jsonl"
LABELS = ("supported", "partial", "unsupported")
ABSTAIN = "abstain"

Judge = Callable[[str, Sequence[str]], str | None]


def load(path: Path = LABELLED) -> list[dict[str, Any]]:
    """The labelled pairs of one file."""
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


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
    matrix: dict[str, dict[str, int]]  # human -> judge (incl. abstain) -> count
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
    if pairs and all(pair.get("binary") for pair in pairs):
        # supported or not: a partial verdict agrees with "not (fully) supported"
        precision["partial"] = (matrix["unsupported"]["partial"], precision["partial"][1])
    answered = [[matrix[h][j] for j in LABELS] for h in LABELS]
    abstained = sum(matrix[h][ABSTAIN] for h in LABELS)
    return Figures(len(pairs), matrix, precision, abstained, cohen_kappa(answered))


def precision_text(agreed: int, given: int) -> str:
    """``0.912 [0.871, 0.941] (52/57)``: precision with its Wilson 95% interval."""
    if not given:
        return "n/a (0/0)"
    est = wilson_interval(agreed, given)
    return f"{est.value:.3f} [{est.low:.3f}, {est.high:.3f}] ({agreed}/{given})"


def report(name: str, f: Figures) -> list[str]:
    """Printable lines for one judge's figures."""
    kappa = "n/a" if f.kappa is None else f"{f.kappa:.3f}"
    lines = [
        f"  {name}: abstained {f.abstention:.1%} ({f.abstained}/{f.n}), coverage "
        f"{1 - f.abstention:.1%}, kappa on answered {kappa}"
    ]
    for label in LABELS:
        lines.append(f"    precision {label:<11} {precision_text(*f.precision[label])}")
    lines.append("    human \\ judge   " + " ".join(f"{c:>11}" for c in (*LABELS, ABSTAIN)))
    for human in LABELS:
        lines.append(
            f"    {human:<15} " + " ".join(f"{f.matrix[human][c]:>11}" for c in (*LABELS, ABSTAIN))
        )
    return lines


PREVIOUS = f"previous screen ({BASE_COMMIT})"
PARENT_COMMIT = "0488843"
"""The commit before the screen checked how the text links the claim's words: a word the
claim writes twice, an object inside a relative clause, a verb found only as a noun's
modifier, another tense of "be", and "do that" standing in for an action."""
PARENT = f"screen at {PARENT_COMMIT}"
OVERLAP = "word overlap (>= 0.8 supported, < 0.3 unsupported, else abstain)"


def judges() -> dict[str, Judge]:
    """The screen, the previous screen and the baselines, by name."""
    return {
        "screen": screen_judge,
        PARENT: previous_screen(PARENT_COMMIT),
        PREVIOUS: previous_screen(),
        "lexical-v1 (old offline judge)": lambda c, p: lexical_verdict(c, p),
        OVERLAP: overlap_judge(0.8, 0.3),
    }


def held_out_table(found: dict[tuple[str, str], Figures]) -> list[str]:
    """Markdown rows, per source and judge: abstention, coverage, precision per class."""
    lines = [
        "| source | judge | n | abstained | coverage | supported | partial | unsupported |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (source, judge_name), f in found.items():
        cells = [precision_text(*f.precision[label]) for label in LABELS]
        lines.append(
            f"| {source} | {judge_name} | {f.n} | {f.abstention:.1%} | "
            f"{1 - f.abstention:.1%} | " + " | ".join(cells) + " |"
        )
    return lines


def _groups(pairs: Sequence[dict[str, Any]], name: str) -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for split in ("dev", "test"):
        chosen = [p for p in pairs if p["split"] == split]
        out.append((f"{name} {split}", chosen))
        for source in sorted({p.get("source", "") for p in chosen} - {""}):
            out.append((f"{name} {split} / {source}", [p for p in chosen if p["source"] == source]))
    return out


def _per_claim_seconds(pairs: Sequence[dict[str, Any]], judge: Judge, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for pair in pairs:
            judge(pair["claim"], pair["passages"])
        best = min(best, time.perf_counter() - start)
    return best / len(pairs)


def _cold(judge: Judge) -> Judge:
    def run(claim: str, passages: Sequence[str]) -> str | None:
        clear_passage_cache()
        return judge(claim, passages)

    return run


def _show_errors(pairs: Sequence[dict[str, Any]]) -> None:
    for pair in pairs:
        if pair["split"] != "dev":
            continue
        result = screen_claim(pair["claim"], pair["passages"])
        if result.verdict is not None and result.verdict != pair["label"]:
            print(
                f"{pair['id']} human {pair['label']} screen {result.verdict}: "
                f"{result.reason}\n  C: {pair['claim']}\n  P: {pair['passages']}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("all", "hand", "public", "broad"), default="all")
    parser.add_argument(
        "--show-errors",
        action="store_true",
        help="list the screen's wrong answers on the dev splits only",
    )
    parser.add_argument(
        "--timing", action="store_true", help="also time the screen per claim against lexical-v1"
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sets = {"hand": load(LABELLED), "public": load(PUBLIC), "broad": load(BROAD)}
    chosen = sets if args.set == "all" else {args.set: sets[args.set]}
    all_judges = judges()
    held_out: Figures | None = None
    broad_held_out: dict[tuple[str, str], Figures] = {}
    for name, pairs in chosen.items():
        for title, group in _groups(pairs, name):
            print(f"{title}: {len(group)} pairs")
            for judge_name, judge in all_judges.items():
                found = figures(group, judge)
                if title == "public test" and judge_name == "screen":
                    held_out = found
                if title.startswith("broad test") and judge_name in (
                    "screen",
                    PARENT,
                    PREVIOUS,
                    OVERLAP,
                ):
                    source = title.removeprefix("broad test").removeprefix(" / ") or "all"
                    broad_held_out[(source, judge_name)] = found
                print("\n".join(report(judge_name, found)))
            print()
    if held_out is not None:
        print(
            "the screen's precision per class on the public held-out split, which the "
            "cascade's defaults follow (judge.screen_trusted_verdicts):"
        )
        for label in LABELS:
            print(f"  {label:<11} {precision_text(*held_out.precision[label])}")
    if broad_held_out:
        print("\nthe broader set's held-out split (no text written by the project), per source:")
        print("\n".join(held_out_table(broad_held_out)))
    if args.show_errors:
        for pairs in chosen.values():
            _show_errors(pairs)
    if args.timing:
        pairs = sets["hand"]
        lexical_time = _per_claim_seconds(
            pairs, all_judges["lexical-v1 (old offline judge)"], args.repeat
        )
        cold = _per_claim_seconds(pairs, _cold(screen_judge), args.repeat)
        warm = _per_claim_seconds(pairs, screen_judge, args.repeat)
        print(
            f"per claim: lexical-v1 {lexical_time * 1e6:.0f} us (baseline); screen "
            f"{cold * 1e6:.0f} us preparing its passages ({cold / lexical_time:.2f}x), "
            f"{warm * 1e6:.0f} us with passages prepared once per trace "
            f"({warm / lexical_time:.2f}x)"
        )


if __name__ == "__main__":
    main()
