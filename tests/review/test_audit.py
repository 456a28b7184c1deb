"""The audit slice's estimate against simulated traffic whose judge precision is known."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from sidecar.cli import cli
from sidecar.config import ReviewSettings
from sidecar.quality.audit import AuditRow, audit_figures, audit_section
from sidecar.review.routing import RoutingClaim, route_claim
from sidecar.review.store import ReviewStore
from tests.review._items import make_item

PRECISION = {"supported": 0.90, "partial": 0.70, "unsupported": 0.80}
"""The simulated judge: of its verdicts of each class, this share is what people say."""
VERDICT_SHARE = (("supported", 0.6), ("partial", 0.15), ("unsupported", 0.25))
DAY = date(2026, 11, 30)
SETTINGS = ReviewSettings(audit_rate=0.05)


def _traffic(seed: int, claims: int = 8_000) -> tuple[list[AuditRow], list[AuditRow]]:
    """One day of judged claims through routing: the audit slice's rows and, for
    comparison, the rows a flag-only queue would hold (disagreements, which come mostly
    from the judge's mistakes)."""
    rng = random.Random(seed)
    audited: list[AuditRow] = []
    flagged: list[AuditRow] = []
    labels, weights = zip(*VERDICT_SHARE, strict=True)
    for i in range(claims):
        verdict = rng.choices(labels, weights)[0]
        right = rng.random() < PRECISION[verdict]
        human = verdict if right else rng.choice([x for x in labels if x != verdict])
        # The screen and the LLM disagree on 60 % of the wrong verdicts, 5 % of the right.
        agreed = rng.random() >= (0.05 if right else 0.60)
        claim = RoutingClaim(
            claim_id=f"c{i % 5}",
            importance=2,
            verdict=verdict,
            not_judged=None,
            not_judged_detail=None,
            critical_unjudged=False,
            agreed=agreed,
            injection_influenced=False,
        )
        reasons = route_claim(claim, trace_id=f"{seed:08x}{i // 5:024x}", settings=SETTINGS)
        row = AuditRow(judge=verdict, human=human, path="llm", day=DAY)
        if "audit" in reasons:
            audited.append(row)
        if "disagreement" in reasons:
            flagged.append(row)
    return audited, flagged


def test_the_audit_interval_covers_the_known_precision_at_its_stated_rate() -> None:
    seeds = 250
    covered = dict.fromkeys(PRECISION, 0)
    flagged_covered = dict.fromkeys(PRECISION, 0)
    sizes = []
    for seed in range(seeds):
        audited, flagged = _traffic(seed)
        sizes.append(len(audited))
        figures = audit_figures(audited, start=DAY, end=DAY)
        biased = audit_figures(flagged, start=DAY, end=DAY)
        for label, truth in PRECISION.items():
            est = figures.precision[label]
            assert est.low is not None and est.high is not None
            covered[label] += est.low <= truth <= est.high
            other = biased.precision[label]
            assert other.low is not None and other.high is not None
            flagged_covered[label] += other.low <= truth <= other.high
    # About 5 % of 8,000 claims audited per seed.
    assert 380 < sum(sizes) / seeds < 420
    for label in PRECISION:
        rate = covered[label] / seeds
        # Stated 95 %; over 250 seeds the observed rate has a standard error of 0.014.
        assert 0.91 <= rate <= 0.985, (label, rate)
        # Labels of flagged claims alone give a precision far below the judge's.
        assert flagged_covered[label] / seeds < 0.05, label


def _settled(store: ReviewStore, item_id: str, label: str) -> None:
    store.add_label(item_id=item_id, reviewer="ann", label=label, form_token=None)


def test_the_weekly_section_reads_settled_audit_items_of_each_week(tmp_path: Path) -> None:
    with ReviewStore(tmp_path / "review.sqlite") as store:
        this_week = [make_item(n, verdict="supported", day=date(2026, 11, 30)) for n in range(4)]
        last_week = [
            make_item(10 + n, verdict="unsupported", day=date(2026, 11, 20)) for n in range(2)
        ]
        flagged = make_item(
            20, reasons=["disagreement"], verdict="supported", day=date(2026, 11, 30)
        )
        store.add([*this_week, *last_week, flagged])
        for item, label in zip(
            this_week, ["supported", "supported", "partial", "skip"], strict=True
        ):
            _settled(store, item.item_id, label)
        _settled(store, last_week[0].item_id, "unsupported")
        _settled(store, flagged.item_id, "unsupported")  # not in the audit slice
        section = audit_section(store, end=date(2026, 11, 30))
    this = section.this_week.precision["supported"]
    assert (this.successes, this.n) == (2, 3)
    assert section.this_week.recall["partial"].n == 1
    last = section.last_week.precision["unsupported"]
    assert (last.successes, last.n) == (1, 1)
    assert section.last_week.precision_by_path == {"llm": {"unsupported": last}}
    assert section.unsettled == 2  # one skipped, one unlabelled


def test_the_weekly_report_gains_the_audit_section(tmp_path: Path) -> None:
    records = Path(__file__).resolve().parents[1] / "fixtures" / "evaluations" / "week"
    files = sorted(records.glob("*.jsonl"))
    assert files
    store = tmp_path / "review.sqlite"
    with ReviewStore(store) as opened:
        item = make_item(1, verdict="supported", day=date(2025, 3, 10))
        opened.add([item])
        _settled(opened, item.item_id, "supported")
    out = tmp_path / "weekly"
    result = CliRunner().invoke(
        cli,
        [
            "report",
            "--weekly",
            "--records",
            str(records),
            "--end",
            "2025-03-10",
            "--review",
            str(store),
            "--output",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "## Judge precision on the audit slice" in result.output
    assert "| precision supported | 1.000 [0.207, 1.000] (1/1) |" in result.output
    page = (out / "weekly-2025-03-10.html").read_text()
    assert '<section id="audit">' in page and page.index('id="audit"') < page.index("</body>")
