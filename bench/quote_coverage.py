"""How many true "supported" the structural quote coverage withholds, on public sets.

    python -m bench.quote_coverage [--show N]

For each pair people labelled supported (``tests/fixtures/screen/public.jsonl`` and
``broad.jsonl``, both splits, and the project's ``labelled.jsonl``), an honest judge's
evidence quote is modelled two ways: the one sentence of the cited passages that carries
most of the claim's content words (``sentence``), and the best run of up to three
consecutive sentences (``window3``, a judge that quotes generously). The claim is taken as
importance 3 (the sets' claims that are one sentence, as a trace's atomic claims are, are
also counted apart). It prints, per set and source, the share of those true "supported" each
check would withhold: the previous check alone (the screen on the claim against the quote's
sentence finding a partial or a conflict), the structural check alone (a number, date,
quantity, month or name of the claim missing from the quote), and both, as the judge stage
now runs them. Every withheld verdict goes to review; none is scored wrong.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sidecar.judge.coverage import missing_carriers, quote_context, quote_gap
from sidecar.judge.packet import Passage
from sidecar.judge.screen import screen_claim
from sidecar.judge.validation import content_words

FIXTURES = Path(__file__).parents[1] / "tests" / "fixtures" / "screen"
SETS = ("labelled", "public", "broad")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _sentences(passages: Sequence[str]) -> list[list[str]]:
    return [[s for s in _SENTENCE.split(p) if s.strip()] for p in passages]


def honest_quote(claim: str, passages: Sequence[str], width: int) -> str:
    """The run of up to ``width`` consecutive sentences of one passage that carries most of
    the claim's carriers, then most of its content words (the shortest such run first)."""
    wanted = content_words(claim)
    best, best_score = "", (-1000, -1, 0)
    for sentences in _sentences(passages):
        words = [content_words(s) for s in sentences]
        for start in range(len(sentences)):
            carried: set[str] = set()
            for end in range(start, min(len(sentences), start + width)):
                carried |= words[end] & wanted
                quote = " ".join(sentences[start : end + 1])
                lacking = len(missing_carriers(claim, quote)) if len(carried) else 99
                score = (-lacking, len(carried), -(end - start))
                if score > best_score:
                    best, best_score = " ".join(sentences[start : end + 1]), score
    return best


def withheld(claim: str, passages: Sequence[str], quote: str) -> tuple[bool, bool]:
    """(the previous check withholds, the structural check withholds)."""
    context = quote_context(quote, [Passage(f"S{i}", p) for i, p in enumerate(passages)])
    found = screen_claim(claim, [context])
    return quote_gap(found.verdict, found.reason) is not None, bool(missing_carriers(claim, quote))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print N withheld examples")
    args = parser.parse_args(argv)
    shown = 0
    print("set/source                 quote    true-supported  previous  structural  both")
    for name in SETS:
        rows = [
            json.loads(line)
            for line in (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        pairs: list[dict[str, Any]] = [r for r in rows if r["label"] == "supported"]
        for width, label in ((1, "sentence"), (3, "window3")):
            counts: dict[str, Counter[str]] = defaultdict(Counter)
            for pair in pairs:
                quote = honest_quote(pair["claim"], pair["passages"], width)
                before, structural = withheld(pair["claim"], pair["passages"], quote)
                atomic = len(_SENTENCE.split(pair["claim"].strip())) == 1
                groups = [name, f"{name}/{pair.get('source') or 'hand'}"]
                if atomic:
                    groups.append(f"{name} (one-sentence claims)")
                for group in groups:
                    c = counts[group]
                    c["n"] += 1
                    c["previous"] += before
                    c["structural"] += structural
                    c["both"] += before or structural
                if structural and shown < args.show and width == 1:
                    shown += 1
                    missing = missing_carriers(pair["claim"], quote)
                    print(f"  [{pair['id']}] missing {missing}: {pair['claim'][:90]!r}")
            for group in sorted(counts, key=lambda g: (g.count("/"), g)):
                c = counts[group]
                n = c["n"]
                cells = "  ".join(
                    f"{c[k]:4d} {c[k] / n:6.1%}" for k in ("previous", "structural", "both")
                )
                print(f"{group:26s} {label:8s} {n:8d}        {cells}")


if __name__ == "__main__":
    main()
