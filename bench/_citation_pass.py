"""The citation pass of one trace, timed on whichever tree it is imported from: the marker
parse (``markers``), or the parse, numbering, claim derivation and analysis the pipeline runs
before the checks (``derive``). bench.markers and bench.derive (``--before``) run it in a
subprocess on this tree and in another on a git revision's tree, on the same traces.

Run as a script it reads ``{"what", "shapes", "rounds", "loops"}`` as JSON on stdin and
writes ``{shape: [seconds per trace, one per round]}`` as JSON on stdout; it imports only
what both trees have (``sidecar.checks``, ``schemas``), so the tree first on the path is the
one timed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

_SENTENCES = (
    "The Basic plan costs 20 EUR a month",
    "Upgrades take effect at once and are billed pro rata",
    "Refunds are paid within 14 days of the request",
    "Annual plans renew on the first day of the month",
    "Support answers within two business days",
)
_UUIDS = (
    "3f1c9a2e-7b4d-4c1e-9a57-0d2b6c8e1f00",
    "kb-warranty-2",
    "docs/shipping.md",
    "5d0e6b1a-2c3f-4a5b-8c7d-9e0f1a2b3c4d",
    "kb-refunds-7",
)


def _answer(shape: str, index: int, sentences: int) -> tuple[str, list[str], bool]:
    """The answer, source IDs and whether the trace sends its claims, for one shape."""
    parts = []
    for n in range(sentences):
        text = f"{_SENTENCES[(index + n) % len(_SENTENCES)]} ({index}-{n})"
        k = n % 5 + 1
        if shape in ("trailing", "trailing claims", "claims with markers"):
            parts.append(f"{text} [S{k}].")
        elif shape == "marker-first":
            parts.append(f"[S{k}] {text}.")
        elif shape == "bullets":
            parts.append(f"- [S{k}] {text}.\n")
        elif shape == "numbered by position":
            parts.append(f"{text} [{k}].")
        elif shape == "ranges":
            parts.append(f"{text} [1-{k}].")
    separator = "" if shape == "bullets" else " "
    ids = (
        list(_UUIDS)
        if shape in ("numbered by position", "ranges")
        else [f"S{s}" for s in range(1, 6)]
    )
    return separator.join(parts), ids, shape in ("trailing claims", "claims with markers")


SHAPES = (
    "trailing claims",
    "claims with markers",
    "trailing",
    "marker-first",
    "bullets",
    "numbered by position",
    "ranges",
)
REFERENCE = {
    "marker-first": "trailing",
    "bullets": "trailing",
    "claims with markers": "trailing claims",
}
"""The shape whose pass before derives the same claims, for shapes the pass before misread
(it found no claim in a marker-first answer: no work, and a wrong answer) or read
otherwise (the markers in a claim's text)."""


def trace_dicts(shape: str, traces: int, sentences: int) -> list[dict[str, Any]]:
    """``traces`` trace v1 objects of one answer shape."""
    out = []
    for index in range(traces):
        answer, ids, with_claims = _answer(shape, index, sentences)
        claims = []
        if with_claims:
            claims = [
                {
                    "id": f"c{n}",
                    "text": f"{_SENTENCES[(index + n) % len(_SENTENCES)]}"
                    + (f" [S{n % 5 + 1}]." if shape == "claims with markers" else "."),
                    "citation_ids": [f"S{n % 5 + 1}"],
                    "importance": 2,
                }
                for n in range(sentences)
            ]
        out.append(
            {
                "trace_id": f"{index + 1:032x}",
                "timestamp": "2026-11-30T10:00:00Z",
                "app": "bench",
                "generator": {"model": "m", "prompt_version": "v"},
                "question": "q",
                "answer": answer,
                "sources": [
                    {"id": i, "title": "t", "text": f"{_SENTENCES[s]}."} for s, i in enumerate(ids)
                ],
                "claims": claims,
            }
        )
    return out


def _pass(what: str) -> Callable[[Any], object]:
    from sidecar.checks import MarkerParser, analyse
    from sidecar.checks.derive import derive_claims
    from sidecar.checks.markers import IdResolver

    parser = MarkerParser()
    try:
        from sidecar.checks.derive import derive
        from sidecar.checks.numbering import number
    except ImportError:  # a tree before numbering: a parse in derive and one in analyse
        if what == "markers":
            return lambda t: parser.scan(t.answer, IdResolver(frozenset(s.id for s in t.sources)))
        return lambda t: analyse(derive_claims(t, parser, importance=2), parser)

    def numbered_pass(trace: Any) -> object:
        numbered = number(trace, parser, "auto")
        if what == "markers":
            return numbered
        derived = (
            derive(numbered.trace, parser, importance=2, markers=numbered.scan.markers).trace
            if not numbered.trace.claims
            else numbered.trace
        )
        return analyse(derived, parser, resolver=numbered.resolver, scan=numbered.scan)

    return numbered_pass


def timed(
    what: str, shapes: dict[str, list[dict[str, Any]]], rounds: int, loops: int
) -> dict[str, list[float]]:
    """Seconds per trace of the pass, per shape and round (CPU time)."""
    from schemas import Trace

    run = _pass(what)
    built = {name: [Trace.model_validate(t) for t in traces] for name, traces in shapes.items()}
    for traces in built.values():
        for trace in traces:
            run(trace)  # warm the caches
    times: dict[str, list[float]] = {name: [] for name in built}
    for _ in range(rounds):
        for name, traces in built.items():
            start = time.process_time()
            for _ in range(loops):
                for trace in traces:
                    run(trace)
            times[name].append((time.process_time() - start) / (loops * len(traces)))
    return times


if __name__ == "__main__":
    spec = json.loads(sys.stdin.read())
    result = timed(spec["what"], spec["shapes"], spec["rounds"], spec["loops"])
    sys.stdout.write(json.dumps(result))
