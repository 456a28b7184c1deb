"""The vocabularies of schemas/vocabulary.py: what the code emits, the metric label lists and
the documentation are held to them."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest

from exporters.prometheus import CIRCUIT_STATES, STAGES, UNJUDGED_REASONS
from schemas.vocabulary import (
    CircuitState,
    FindingCode,
    JudgeErrorKind,
    SampledSkipReason,
    SkipReason,
    Stage,
)
from sidecar.checks import default_checks
from sidecar.judge.resilience import OUTAGE_KINDS

ROOT = Path(__file__).resolve().parents[2]
FINDING_CODES = get_args(FindingCode)


def _literal_calls(
    function: str, *, keyword: str | None = None, literal_only: bool = True
) -> dict[str, set[str]]:
    """Per module of sidecar/, the string literals passed to calls of ``function``: the
    first positional argument, or the ``keyword`` argument. With ``literal_only``, a
    computed value fails (a variable's values are typed with the vocabulary instead)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "sidecar").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = (
                node.func.id
                if isinstance(node.func, ast.Name)
                else (node.func.attr if isinstance(node.func, ast.Attribute) else None)
            )
            if name != function:
                continue
            if keyword is None:
                args = node.args[:1]
            else:
                args = [kw.value for kw in node.keywords if kw.arg == keyword]
            for arg in args:
                if not literal_only and not isinstance(arg, ast.Constant):
                    continue
                assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), (
                    f"{path.relative_to(ROOT)}:{node.lineno}: {function} with a computed value"
                )
                found.setdefault(str(path.relative_to(ROOT)), set()).add(arg.value)
    return found


def test_every_code_a_check_declares_is_a_finding_code() -> None:
    declared = {code for check in default_checks() for code in check.codes}
    assert declared <= set(FINDING_CODES)


def test_every_finding_built_in_the_code_has_a_finding_code() -> None:
    emitted = _literal_calls("Finding")
    assert set().union(*emitted.values()) <= set(FINDING_CODES)
    # The pipeline's own findings (and those of the steps before the checks: numbering and
    # derivation) are in the vocabulary though no check declares them.
    assert emitted["sidecar/pipeline.py"] == {
        "claims_derived",
        "check_error",
        "misattributed",
        "injection_influenced",
    }
    assert emitted["sidecar/checks/derive.py"] == {"derived_claims_cut"}
    assert emitted["sidecar/checks/numbering.py"] == {"citation_numbering"}


def test_every_finding_code_is_declared_by_a_check_or_emitted_by_the_pipeline() -> None:
    declared = {code for check in default_checks() for code in check.codes}
    emitted = set().union(*_literal_calls("Finding").values())
    assert declared | emitted == set(FINDING_CODES)


def _readme_finding_codes() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Findings of the deterministic checks\n", 1)[1]
    section = section.split("\n## ", 1)[0].split("\n### ", 1)[0]
    return re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE)


def test_readme_findings_tables_list_exactly_the_finding_codes() -> None:
    assert _readme_finding_codes() == list(FINDING_CODES)


def test_judge_error_kinds_in_the_code() -> None:
    kinds = [
        *_literal_calls("JudgeCallError", keyword="kind", literal_only=False).values(),
        *_literal_calls("JudgeError", keyword="kind", literal_only=False).values(),
    ]
    assert set().union(*kinds) <= set(get_args(JudgeErrorKind))
    assert set(OUTAGE_KINDS) <= set(get_args(JudgeErrorKind))


def test_skip_reasons_in_the_code() -> None:
    skips = set().union(*_literal_calls("_skip").values())
    assert skips <= set(get_args(SkipReason))
    assert set(get_args(SampledSkipReason)) < set(get_args(SkipReason))


def test_stages_timed_in_the_code() -> None:
    timed = set().union(
        *_literal_calls("_timed").values(), *_literal_calls("observe_stage").values()
    )
    assert timed == set(get_args(Stage))


def test_metric_label_lists_derive_from_the_vocabularies() -> None:
    assert CIRCUIT_STATES == get_args(CircuitState)
    assert STAGES == get_args(Stage)
    kinds = get_args(JudgeErrorKind)
    assert UNJUDGED_REASONS == (
        *kinds,
        *(r for r in get_args(SampledSkipReason) if r not in kinds),
        "other",
    )


def _metric_row(name: str) -> str:
    text = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    (row,) = [line for line in text.splitlines() if line.startswith(f"| `{name}` |")]
    return row.split(" | ")[3]


@pytest.mark.parametrize(
    ("metric", "values"),
    [
        pytest.param(
            "citewatch_judge_requests_total",
            ("ok", *get_args(JudgeErrorKind)),
            id="judge-request-outcomes",
        ),
        pytest.param("citewatch_judge_skips_total", get_args(SkipReason), id="skip-reasons"),
        pytest.param("citewatch_judge_circuit_state", get_args(CircuitState), id="circuit-states"),
        pytest.param("citewatch_stage_duration_seconds", get_args(Stage), id="stages"),
        pytest.param(
            "citewatch_critical_unjudged_claims_total", UNJUDGED_REASONS, id="unjudged-reasons"
        ),
    ],
)
def test_metric_docs_name_exactly_the_label_values(metric: str, values: tuple[str, ...]) -> None:
    documented = re.findall(r"`(\w+)`", _metric_row(metric))
    assert "..." not in _metric_row(metric)
    assert sorted(set(documented) - {"trace_id", "reason"}) == sorted(values)
