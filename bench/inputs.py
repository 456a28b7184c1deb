"""Each input adapter's cost per record against decoding the same trace written as trace v1,
and each format's costliest record of about 1 MiB against a trace v1 record of that size.

    python -m bench.inputs [--records 2000] [--rounds 7]

For every format, records built with the SDKs' own models (tests/support/payloads) are
decoded with ``input.format`` set (adapter, then validation under the usual limits); the
baseline is ``decode_trace`` of the trace each record becomes, serialised as trace v1, in the
same round. Prints microseconds per record (median of the rounds, process CPU time) and the
median of the rounds' ratios adapted / trace v1.

Then, per format, the record shape that costs its adapter the most (many small citations,
each naming a new document: bench/_input_worst.py) at about 1 MiB, decoded under limits that
let it through (``max_sources`` raised, 4 MiB records), against a trace v1 record of about
1 MiB with as many sources as fit, in the same round: milliseconds per record and the ratio
of cost per byte (the issue's bound: no format above 5x a trace v1 record per byte).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from bench._input_worst import WORST, worst
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from tests.support.payloads import (
    anthropic_record,
    chat_exchange,
    chat_record,
    converse_record,
    gemini_record,
    openinference_spans,
    otlp_json_record,
    otlp_proto_record,
    responses_record,
    retrieve_and_generate_record,
)
from tests.support.payloads.openai import OWN_MARKERS, POLICY_SOURCES

BUILDERS: dict[str, tuple[str, Callable[[], bytes]]] = {
    "openai_responses": ("openai_responses", responses_record),
    "openai_chat": ("openai_chat", chat_record),
    "openai_chat own markers": (
        "openai_chat",
        lambda: chat_exchange(OWN_MARKERS, sources=POLICY_SOURCES),
    ),
    "anthropic_messages": ("anthropic_messages", anthropic_record),
    "gemini": ("gemini", gemini_record),
    "bedrock rag": ("bedrock", retrieve_and_generate_record),
    "bedrock converse": ("bedrock", converse_record),
    "otlp_json": ("otlp_json", lambda: otlp_json_record(openinference_spans())),
    "otlp_proto": ("otlp_proto", lambda: otlp_proto_record(openinference_spans())),
}
TRACE_V1 = DecodeLimits()
LARGE = {"max_bytes": 4 * 1_048_576, "max_sources": 1_000_000}


def _per_record(records: list[bytes], limits: DecodeLimits) -> float:
    gc.collect()  # the previous measurement's garbage is not this one's cost
    start = time.process_time()
    for record in records:
        try:
            decode_trace(record, limits=limits)
        except TraceError:
            pass  # a worst case may be refused after adaptation (too long an answer)
    return (time.process_time() - start) / len(records) * 1e6


def _typical(records: int, rounds: int) -> None:
    print(f"{'format':<24} {'adapted us':>11} {'trace v1 us':>12} {'ratio':>7}")
    for name, (input_format, build) in BUILDERS.items():
        limits = DecodeLimits(input_format=input_format)  # type: ignore[arg-type]
        adapted = [build() for _ in range(min(records, 50))]
        adapted = (adapted * (records // len(adapted) + 1))[:records]
        v1 = [decode_trace(record, limits=limits).model_dump_json().encode() for record in adapted]
        ratios, costs, bases = [], [], []
        for _ in range(rounds):
            cost, base = _per_record(adapted, limits), _per_record(v1, TRACE_V1)
            costs.append(cost)
            bases.append(base)
            ratios.append(cost / base)
        print(
            f"{name:<24} {statistics.median(costs):>11.1f} {statistics.median(bases):>12.1f} "
            f"{statistics.median(ratios):>6.2f}x"
        )


def _worst(rounds: int) -> None:
    baseline = worst("trace_v1")
    base_limits = DecodeLimits(**LARGE)  # type: ignore[arg-type]
    print(
        f"\n{'1 MiB worst case':<24} {'bytes':>9} {'adapted ms':>11} {'trace v1 ms':>12} "
        f"{'per byte':>9}"
    )
    for name in WORST:
        record = worst(name)
        limits = DecodeLimits(input_format=name, **LARGE)  # type: ignore[arg-type]
        ratios, costs, bases = [], [], []
        for _ in range(rounds):
            cost = _per_record([record], limits) / 1e3
            base = _per_record([baseline], base_limits) / 1e3
            costs.append(cost)
            bases.append(base)
            ratios.append((cost / len(record)) / (base / len(baseline)))
        print(
            f"{name:<24} {len(record):>9} {statistics.median(costs):>11.1f} "
            f"{statistics.median(bases):>12.1f} {statistics.median(ratios):>8.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    _typical(args.records, args.rounds)
    _worst(args.rounds)


if __name__ == "__main__":
    main()
