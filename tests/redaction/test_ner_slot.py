"""The NER slot: an extra detector composes with the built-in ones."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from sidecar.config import RedactionSettings, load_settings
from sidecar.errors import ConfigError
from sidecar.redaction import Entity, Redactor, build_redactor
from tests.support.factories import make_trace


class FakeNer:
    """Stands in for a statistical NER model: capitalised pairs after 'Mr'/'Ms' are PERSON."""

    name = "fake-ner"
    _PERSON = re.compile(r"\b(?:Mr|Ms)\.? ([A-Z][a-z]+ [A-Z][a-z]+)")

    def detect(self, text: str) -> list[Entity]:
        return [Entity("PERSON", m.start(1), m.end(1)) for m in self._PERSON.finditer(text)]


MODULE = """
import re
from sidecar.redaction import Entity

class Ner:
    name = "fake-ner"
    def detect(self, text):
        return [Entity("PERSON", m.start(), m.end())
                for m in re.finditer(r"Anna Berg", text)]
"""


def test_an_ner_detector_composes_with_the_builtins() -> None:
    redactor = Redactor([*build_redactor(RedactionSettings()).detectors, FakeNer()])
    text = "Ms Anna Berg (anna@example.com) asked about Mr Omar Said's card."
    assert redactor.redact_text(text).text == (
        "Ms <PERSON_1> (<EMAIL_1>) asked about Mr <PERSON_2>'s card."
    )


def test_the_slot_is_loaded_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "citewatch_test_ner.py").write_text(MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        settings = load_settings(overrides={"redaction.ner_detector": "citewatch_test_ner:Ner"})
        redactor = build_redactor(settings.redaction)
        trace = make_trace(
            question="Anna Berg here, anna@example.com",
            claims=[{"id": "c1", "text": "Anna Berg asked.", "citation_ids": [], "importance": 1}],
        )
        redacted, counts = redactor.redact(trace)
    finally:
        sys.modules.pop("citewatch_test_ner", None)
    assert redacted.question == "<PERSON_1> here, <EMAIL_1>"
    assert redacted.claims[0].text == "<PERSON_1> asked."
    assert counts == {"PERSON": 2, "EMAIL": 1}


def test_the_slot_is_off_by_default_and_a_bad_one_stops_start_up() -> None:
    assert RedactionSettings().ner_detector is None
    settings = load_settings(overrides={"redaction.ner_detector": "no_such_module_x:Ner"})
    with pytest.raises(ConfigError, match="no_such_module_x"):
        build_redactor(settings.redaction)
