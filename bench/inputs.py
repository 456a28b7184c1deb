"""Each input adapter's cost per record against decoding the same trace written as trace v1.

    python -m bench.inputs [--records 2000] [--rounds 7]

For every format, records built with the SDKs' own models (tests/support/payloads.py) are
decoded with ``input.format`` set (adapter, then validation under the usual limits); the
baseline is ``decode_trace`` of the trace each record becomes, serialised as trace v1, in the
same round. Prints microseconds per record (median of the rounds, process CPU time) and the
median of the rounds' ratios adapted / trace v1.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from sidecar.decode import DecodeLimits, decode_trace
from tests.support.payloads import (
    anthropic_record,
    chat_record,
    openinference_spans,
    otlp_json_record,
    otlp_proto_record,
    responses_record,
)

BUILDERS: dict[str, Callable[[], bytes]] = {
    "openai_responses": responses_record,
    "openai_chat": chat_record,
    "anthropic_messages": anthropic_record,
    "otlp_json": lambda: otlp_json_record(openinference_spans()),
    "otlp_proto": lambda: otlp_proto_record(openinference_spans()),
}
TRACE_V1 = DecodeLimits()


def _per_record(records: list[bytes], limits: DecodeLimits) -> float:
    start = time.process_time()
    for record in records:
        decode_trace(record, limits=limits)
    return (time.process_time() - start) / len(records) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'format':<20} {'adapted us':>11} {'trace v1 us':>12} {'ratio':>7}")
    for name, build in BUILDERS.items():
        limits = DecodeLimits(input_format=name)  # type: ignore[arg-type]
        adapted = [build() for _ in range(min(args.records, 50))]
        adapted = (adapted * (args.records // len(adapted) + 1))[: args.records]
        v1 = [decode_trace(record, limits=limits).model_dump_json().encode() for record in adapted]
        ratios, costs, bases = [], [], []
        for _ in range(args.rounds):
            cost, base = _per_record(adapted, limits), _per_record(v1, TRACE_V1)
            costs.append(cost)
            bases.append(base)
            ratios.append(cost / base)
        print(
            f"{name:<20} {statistics.median(costs):>11.1f} {statistics.median(bases):>12.1f} "
            f"{statistics.median(ratios):>6.2f}x"
        )


if __name__ == "__main__":
    main()
