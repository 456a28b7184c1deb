"""The alert and recording rules load in promtool and pass their promtool unit tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

RULES_DIR = Path(__file__).resolve().parents[2] / "deploy" / "prometheus"
RULE_FILES = [RULES_DIR / "alerts.yml", RULES_DIR / "recording.yml"]
UNIT_TESTS = sorted((RULES_DIR / "tests").glob("*.yml"))
EXPECTED_ALERTS = {
    "CiteWatchCriticalUnsupportedClaim": "page",
    "CiteWatchCriticalClaimsUnjudged": "ticket",
    "CiteWatchInjectionInfluencedVerdict": "ticket",
    "CiteWatchCriticalClaimsUnjudgedPersistent": "page",
    "CiteWatchCorrectnessDrop": "ticket",
    "CiteWatchCompletenessDrop": "ticket",
    "CiteWatchInvalidCitationsHigh": "ticket",
    "CiteWatchJudgeErrorsHigh": "ticket",
    "CiteWatchConsumerLagHigh": "ticket",
    "CiteWatchStalled": "page",
    "CiteWatchSlowRecord": "ticket",
    "CiteWatchDown": "page",
}
RUNBOOK = "https://github.com/citewatch/citewatch/blob/main/docs/operations.md#"


def _promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.skip("promtool not installed (Debian package 'prometheus')")
    return path


def _alert_rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load((RULES_DIR / "alerts.yml").read_text())["groups"]
    return [rule for group in groups for rule in group["rules"] if "alert" in rule]


def test_every_alert_is_present_with_severity_and_annotations() -> None:
    rules = _alert_rules()
    assert {rule["alert"]: rule["labels"]["severity"] for rule in rules} == EXPECTED_ALERTS
    for rule in rules:
        annotations = rule["annotations"]
        assert isinstance(annotations, dict)
        assert set(annotations) == {"summary", "description", "runbook_url"}
        assert annotations["runbook_url"] == RUNBOOK + str(rule["alert"]).lower()


def test_every_alert_has_a_unit_test() -> None:
    tested: set[str] = set()
    for path in UNIT_TESTS:
        for case in yaml.safe_load(path.read_text())["tests"]:
            tested.update(item["alertname"] for item in case.get("alert_rule_test", []))
    assert tested == set(EXPECTED_ALERTS)


def test_promtool_check_rules() -> None:
    result = subprocess.run(
        [_promtool(), "check", "rules", *map(str, RULE_FILES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("unit_test", [pytest.param(p, id=p.stem) for p in UNIT_TESTS])
def test_promtool_test_rules(unit_test: Path) -> None:
    result = subprocess.run(
        [_promtool(), "test", "rules", unit_test.name],
        cwd=unit_test.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
