"""Configured patterns run in the engine, and find what RE2 (RegexDetector, the reference)
finds; a configured pattern keeps texts on the engine's whole-text path."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sidecar.config import RedactionSettings
from sidecar.redaction import PatternDetector, Redactor, RegexDetector, build_redactor
from sidecar.redaction._scanner import engine_syntax
from tests.redaction._oracle import oracle

PATTERNS = [
    r"\bEMP-\d{6}\b",
    r"\bemp-(\d{6})\b",
    r"(?i)ticket\s*#?(\w+)",
    r"\d+\.\d+",
    r"[A-Z]{2}\d{2}[\w-]*",
    r"\S+@\S+",
    r"[^\s,]+-[\d]+",
    r"(?i)k\w*",
    r"\Bx\B",
    r"[]a-c]+",
    r"[^]x]{3}",
    r"[[:alpha:]]+[[:digit:]]",
    r"[a[]+",
    r"\p{Greek}+",
    r"é+\W",
    r"(?s)<<.+?>>",
    r"^\w+$",
    r"(?m)^\d+",
]

TEXT = st.text(
    alphabet=st.sampled_from(
        list("aAbck EMPemp-_#.,;:@x[]<>\n\t 0123456789ticketTICKET")
        + ["é", "É", "\u212a", "ſ", "α", "Ω", "٣", "１", "\u00a0", "\u2009", "数"]
    ),
    max_size=80,
)


@pytest.mark.parametrize("pattern", PATTERNS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_the_engine_finds_what_re2_finds(pattern: str, text: str) -> None:
    engine = PatternDetector([], patterns=[("CUSTOM", pattern)])
    reference = RegexDetector("CUSTOM", pattern)
    assert engine.detect(text) == reference.detect(text)


def test_re2_classes_become_ascii_classes_and_boundaries() -> None:
    assert engine_syntax(r"\bx\d[\w\s-]\B[[:alpha:][]") == (
        r"(?-u:\b)x[0-9][[0-9A-Za-z_][\t\n\f\r ]-](?-u:\B)[[:alpha:]\[]"
    )
    with pytest.raises(ValueError, match="set operation"):
        engine_syntax(r"[a&&b]")


def test_a_configured_pattern_keeps_texts_in_the_engine() -> None:
    redactor = build_redactor(
        RedactionSettings(custom_patterns=[{"name": "EMPLOYEE_ID", "pattern": r"\bemp-(\d{6})\b"}])
    )
    assert [d.name for d in redactor.detectors] == ["patterns"]
    assert redactor.redact_text("emp-123456 and emp-123456, a@example.com").text == (
        "emp-<EMPLOYEE_ID_1> and emp-<EMPLOYEE_ID_1>, <EMAIL_1>"
    )


@pytest.mark.parametrize(
    ("types", "modes"),
    [
        pytest.param(None, {}, id="with-built-in-types"),
        pytest.param([], {}, id="patterns-alone"),
        pytest.param(None, {"EMPLOYEE_ID": "drop", "EMAIL": "hmac"}, id="modes"),
    ],
)
def test_the_engine_redacts_as_the_python_rules_do(
    types: list[str] | None, modes: dict[str, str]
) -> None:
    settings = RedactionSettings(
        custom_patterns=[
            {"name": "EMPLOYEE_ID", "pattern": r"\bemp-(\d{6})\b"},
            {"name": "CASE", "pattern": r"(?i)case\s+(\w{4,})"},
        ],
        modes=modes,
        hmac_key="k" * 32 if modes else None,
        **({"types": types} if types is not None else {}),
    )
    engine = build_redactor(settings)
    key = b"k" * 32 if modes else None
    detectors = [PatternDetector(settings.types)] if settings.types else []
    python = oracle(
        Redactor(
            [*detectors, *(RegexDetector(p.name, p.pattern) for p in settings.custom_patterns)],
            modes=settings.modes,
            hmac_key=key,
        ),  # type: ignore[arg-type]
        key,
    )
    text = (
        "Case ABCD1234 for emp-123456 (a@example.com, emp-123456), case x1, "
        "call 415-555-2671 about case emp-654321."
    )
    assert engine.redact_text(text) == python.redact_text(text)


def test_a_pattern_the_engine_refuses_runs_on_re2(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        redactor = build_redactor(
            RedactionSettings(custom_patterns=[{"name": "QUOTED", "pattern": r"\Qa.b\E"}])
        )
    assert [d.name for d in redactor.detectors] == ["patterns", "custom:QUOTED"]
    assert "run on RE2 beside the engine" in caplog.text
    assert redactor.redact_text("a.b axb").text == "<QUOTED_1> axb"
