"""Presidio behind the NER slot composes with the built-in detectors (citewatch[presidio]).

The test runs Presidio on a blank spaCy pipeline (no model can be downloaded here), with a
deny-list recognizer standing in for the statistical model's PERSON and LOCATION results.
"""

from __future__ import annotations

import pytest

from sidecar.config import RedactionSettings
from sidecar.redaction import Detector, Redactor, build_redactor

presidio_analyzer = pytest.importorskip("presidio_analyzer")
spacy = pytest.importorskip("spacy")

from sidecar.redaction.presidio import PresidioDetector, analyzer_for  # noqa: E402


def _presidio() -> PresidioDetector:
    analyzer = analyzer_for(spacy.blank("en"))
    analyzer.registry.add_recognizer(
        presidio_analyzer.PatternRecognizer(supported_entity="PERSON", deny_list=["Anna Berg"])
    )
    analyzer.registry.add_recognizer(
        presidio_analyzer.PatternRecognizer(
            supported_entity="LOCATION", deny_list=["12 Rue de Rivoli"]
        )
    )
    return PresidioDetector(analyzer)


def test_presidio_results_become_typed_placeholders_next_to_the_builtins() -> None:
    presidio = _presidio()
    assert isinstance(presidio, Detector)
    builtins = build_redactor(RedactionSettings()).detectors
    redactor = Redactor([*builtins, presidio])
    text = (
        "Anna Berg (anna@example.com, +33 1 42 68 53 00) lives at 12 Rue de Rivoli; "
        "Anna Berg paid with 4111 1111 1111 1111."
    )
    assert redactor.redact_text(text).text == (
        "<PERSON_1> (<EMAIL_1>, <PHONE_1>) lives at <ADDRESS_1>; <PERSON_1> paid with "
        "<CREDIT_CARD_1>."
    )


def test_only_the_mapped_types_are_asked_for() -> None:
    presidio = _presidio()
    # Presidio's own e-mail recognizer is not asked: the built-in detector covers e-mail.
    assert presidio.detect("write to anna@example.com") == []
