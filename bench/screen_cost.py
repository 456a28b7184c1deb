"""The screen's cost per byte on the costliest accepted shapes, against a normal trace.

    python -m bench.screen_cost [--claims 1000] [--passages 12] [--chars 64000]

A normal trace is 6 claims citing 5 passages of about 1,000 characters, of the same public
encyclopedic text (tests/fixtures/screen/public.jsonl) as the large shapes; bench._traces'
synthetic trace (a 30-word vocabulary) is printed next to it. The
shapes within the documented limits (``limits.max_text_chars`` 65,536 per text) are: many
claims citing many large passages (by default 1,000 claims citing the same 12 passages of
64,000 characters, about 0.8 MB), and the same with passages dense in numbers, in
negation and hedge cues, and in one repeated word. Each trace is screened as the stage does
(every claim against the texts of its cited passages) with the passage cache emptied
first, so preparing the passages is counted once per trace. Printed: seconds per trace,
microseconds per KB of claim and passage text, and the ratio to the normal trace measured
in this run (target <= 5x).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from bench._traces import make_trace
from sidecar.judge.screen import clear_passage_cache, screen_claim

PUBLIC = Path(__file__).parents[1] / "tests" / "fixtures" / "screen" / "public.jsonl"

Shape = tuple[list[str], list[list[str]]]  # claims, and each claim's cited texts


def synthetic() -> Shape:
    """bench._traces' trace: its claims and their cited sources' texts."""
    trace = make_trace(0)
    texts = {s["id"]: s["text"] for s in trace["sources"]}  # type: ignore[index]
    claims = trace["claims"]  # type: ignore[assignment]
    return (
        [c["text"] for c in claims],  # type: ignore[index]
        [[texts[i] for i in c["citation_ids"] if i in texts] for c in claims],
    )  # type: ignore[index]


def normal(seed: int = 0) -> Shape:
    """A normal trace of the same text as the large shapes: 6 claims, each citing one or
    two of 5 passages of about 1,000 characters."""
    rng = random.Random(seed)
    claim_texts, texts = _corpus()
    passages = [_filled(rng, texts, 1000) for _ in range(5)]
    claims = [rng.choice(claim_texts) for _ in range(6)]
    return claims, [rng.sample(passages, rng.choice((1, 2))) for _ in claims]


def _corpus() -> tuple[list[str], list[str]]:
    rows = [json.loads(line) for line in PUBLIC.read_text(encoding="utf-8").splitlines()]
    return [r["claim"] for r in rows], [p for r in rows for p in r["passages"]]


def _filled(rng: random.Random, pieces: list[str], chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        piece = rng.choice(pieces)
        out.append(piece)
        size += len(piece) + 1
    return " ".join(out)[:chars]


def big(claims: int, passages: int, chars: int, kind: str) -> Shape:
    """``claims`` claims each citing the same ``passages`` passages of ``chars`` characters."""
    rng = random.Random(7)
    claim_texts, texts = _corpus()
    if kind == "numbers":
        texts = [" ".join(f"{rng.randrange(1, 9999)} {w}" for w in t.split()) for t in texts]
    elif kind == "cues":
        texts = [t.replace(" ", " not may never previously ", 3) for t in texts]
    elif kind == "one word":
        texts = ["market " * 40 + "."]
    cited = [_filled(rng, texts, chars) for _ in range(passages)]
    chosen = [rng.choice(claim_texts) for _ in range(claims)]
    return chosen, [cited] * claims


def cost(shape: Shape) -> tuple[float, int]:
    """Seconds to screen one trace of ``shape`` (passages prepared once), and its size."""
    claims, cited = shape
    size = sum(len(c) for c in claims) + sum(len(t) for t in {t for ts in cited for t in ts})
    clear_passage_cache()
    start = time.perf_counter()
    for claim, texts in zip(claims, cited, strict=True):
        screen_claim(claim, texts)
    return time.perf_counter() - start, size


def _best(make: Callable[[], Shape], repeat: int) -> tuple[float, int]:
    shape = make()
    runs = [cost(shape) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def _normal_many(count: int) -> Shape:
    # several normal traces as one, so the baseline averages over their texts
    claims: list[str] = []
    cited: list[list[str]] = []
    for seed in range(count):
        more_claims, more_cited = normal(seed)
        claims += more_claims
        cited += more_cited
    return claims, cited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--passages", type=int, default=12)
    parser.add_argument("--chars", type=int, default=64_000)
    args = parser.parse_args()
    screen_claim("warm the lemma caches", ["warm the lemma caches"])
    seconds, size = _best(synthetic, 30)
    print(
        f"bench._traces' synthetic trace: {size:,} chars, {seconds * 1e3:.2f} ms, "
        f"{seconds / size * 1e9:.0f} us per KB"
    )
    for kind in ("text", "numbers", "cues", "one word"):
        # the baseline is timed next to each shape, so a busy machine slows both alike
        base_seconds, base_size = _best(lambda: _normal_many(10), 5)
        base = base_seconds / base_size
        print(
            f"10 normal traces: {base_size:,} chars, {base_seconds * 1e3:.2f} ms, "
            f"{base * 1e9:.0f} us per KB (baseline)"
        )
        seconds, size = _best(lambda k=kind: big(args.claims, args.passages, args.chars, k), 1)
        ratio = seconds / size / base
        print(
            f"{args.claims} claims x {args.passages} passages of {args.chars:,} chars "
            f"({kind}): {size:,} chars, {seconds:.2f} s, {seconds / size * 1e9:.0f} us per "
            f"KB, {ratio:.1f}x the normal trace per byte "
            f"({'within' if ratio <= 5 else 'over'} 5x)"
        )


if __name__ == "__main__":
    main()
