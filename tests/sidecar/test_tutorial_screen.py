"""The tutorial's worked example through `citewatch check` with the default offline screen:
c2 is supported, the uncited c3 counts in completeness only, and nothing pages. c1 abstains:
its passage renews "unless cancelled", a condition the claim leaves out, and the screen
speaks only when sure (an abstained claim goes to the LLM or to review, and is left out of
the scores)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sidecar.cli import cli
from tests.support.factories import claim, make_trace, source

S1 = "Pro plan subscriptions renew every twelve months unless cancelled."
S2 = (
    "Customers may request a refund within 30 days if the account used fewer than 100 API requests."
)


def test_worked_example_pages_nobody_and_the_screen_abstains_on_a_dropped_condition() -> None:
    trace = make_trace(
        answer=(
            "Pro plans renew every 12 months [S1]. Refunds are available within 30 days "
            "when usage is below 100 requests [S2]. Refunds are paid out the same day."
        ),
        sources=[source("S1", S1), source("S2", S2)],
        claims=[
            claim("c1", "Pro plans renew every 12 months.", ["S1"], 2),
            claim(
                "c2",
                "Refunds are available within 30 days when usage is below 100 requests.",
                ["S2"],
                3,
            ),
            claim("c3", "Refunds are paid out the same day.", [], 2),
        ],
    )
    result = CliRunner().invoke(
        cli, ["check", "-", "--judge", "lexical"], input=trace.model_dump_json() + "\n"
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    verdicts = {c["claim_id"]: (c["verdict"], c["critical_reason"]) for c in record["claims"]}
    assert verdicts == {"c1": (None, None), "c2": ("supported", None), "c3": (None, None)}
    assert [c["not_judged"] for c in record["claims"]] == ["abstained", None, None]
    assert record["scores"]["critical_unsupported"] == 0
    assert record["scores"]["correctness"] == 1.0
    # c2 (importance 3) supported over c2 and the uncited c3 (2); the abstained c1 is out
    assert record["scores"]["completeness"] == 0.6
