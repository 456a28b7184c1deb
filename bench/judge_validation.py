"""Reply validation time against the number of claims in one trace.

    python -m bench.judge_validation [--claims 20000]

Validates a reply of N claims (each citing one of 5 passages, each verdict supported with a
quote from its passage) and one of N/10 claims, and prints the ratio of the two times: about
10 means linear in the number of claims. The baseline, measured in the same run, is the same
validation with the claim looked up by scanning the packet (the lookup before the packet kept
an index), which makes the ratio about 100 (quadratic).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from schemas import JudgeResult, JudgeVerdict
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage
from sidecar.judge.validation import validate_reply

PASSAGES = [
    Passage(f"S{i}", f"Policy {i}: refunds are granted within {10 * i} days.") for i in range(1, 6)
]


def _case(claims: int) -> tuple[JudgePacket, JudgeResult]:
    requests = tuple(
        ClaimRequest(f"c{n}", f"Refunds within {10 * (n % 5 + 1)} days.", (PASSAGES[n % 5],))
        for n in range(claims)
    )
    verdicts = [
        JudgeVerdict(
            claim_id=r.claim_id,
            verdict="supported",
            evidence_quote=r.passages[0].text[-30:],
            reason="r",
        )
        for r in requests
    ]
    return JudgePacket("Q?", requests), JudgeResult(verdicts=verdicts)


class _ScanningPacket(JudgePacket):
    """The packet with the former linear-scan lookup."""

    def claim(self, claim_id: str) -> ClaimRequest | None:
        for claim in self.claims:
            if claim.claim_id == claim_id:
                return claim
        return None


def _seconds(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main(claims: int) -> None:
    small, large = _case(claims // 10), _case(claims)
    print(f"reply validation, {claims // 10} and {claims} claims (best of 3)")
    for name, make in (
        ("indexed (citewatch)", JudgePacket),
        ("scanning (baseline)", _ScanningPacket),
    ):
        packets = [(make(p.question, p.claims), r) for p, r in (small, large)]
        times = [_seconds(lambda p=p, r=r: validate_reply(p, r)) for p, r in packets]
        print(
            f"  {name:<22} {times[0] * 1000:9.1f} ms {times[1] * 1000:9.1f} ms   "
            f"ratio {times[1] / times[0]:6.1f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims", type=int, default=20_000)
    main(parser.parse_args().claims)
