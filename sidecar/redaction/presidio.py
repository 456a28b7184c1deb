"""Names and postal addresses through Presidio, behind the redaction NER slot.

Optional: ``pip install citewatch[presidio]`` and a spaCy model
(``python -m spacy download en_core_web_lg``), then set
``redaction.ner_detector: "sidecar.redaction.presidio:detector"``. The built-in detectors
keep finding e-mail addresses, phone numbers, cards, IBANs, SSNs, IP addresses and secrets;
Presidio adds what needs a statistical model: PERSON, and LOCATION reported as ADDRESS.
Only the entity types in ``entities`` are asked for, so Presidio's own pattern recognizers
do not run twice over what the built-ins already cover.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sidecar.redaction._base import Entity

__all__ = ["DEFAULT_ENTITIES", "PresidioDetector", "detector"]

DEFAULT_ENTITIES: Mapping[str, str] = {"PERSON": "PERSON", "LOCATION": "ADDRESS"}
"""Presidio entity type -> citewatch entity type (the placeholder's name)."""


class PresidioDetector:
    """A Detector around a Presidio ``AnalyzerEngine``.

    ``entities`` maps the Presidio types asked for to the types reported; results scoring
    below ``min_score`` are dropped. Raises ImportError when presidio-analyzer is missing.
    """

    name = "presidio"

    def __init__(
        self,
        analyzer: Any,
        *,
        language: str = "en",
        entities: Mapping[str, str] = DEFAULT_ENTITIES,
        min_score: float = 0.5,
    ) -> None:
        self._analyzer = analyzer
        self._language = language
        self._entities = dict(entities)
        self._min_score = min_score

    def detect(self, text: str) -> list[Entity]:
        """The mapped entities Presidio finds in ``text``."""
        results = self._analyzer.analyze(
            text, language=self._language, entities=sorted(self._entities)
        )
        return [
            Entity(self._entities[r.entity_type], r.start, r.end)
            for r in results
            if r.entity_type in self._entities and r.score >= self._min_score
        ]


def analyzer_for(nlp: Any, *, language: str = "en") -> Any:
    """An AnalyzerEngine with Presidio's predefined recognizers on a loaded spaCy pipeline."""
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    class _LoadedSpacy(SpacyNlpEngine):
        def load(self) -> None:
            self.nlp = {language: nlp}  # type: ignore[assignment]

    engine = _LoadedSpacy(models=[{"lang_code": language, "model_name": "loaded"}])
    engine.load()
    registry = RecognizerRegistry(supported_languages=[language])
    registry.load_predefined_recognizers(nlp_engine=engine, languages=[language])
    return AnalyzerEngine(nlp_engine=engine, registry=registry, supported_languages=[language])


def detector(model: str = "en_core_web_lg") -> PresidioDetector:
    """The factory the NER slot calls: Presidio on the installed spaCy ``model``."""
    import spacy

    return PresidioDetector(analyzer_for(spacy.load(model)))
