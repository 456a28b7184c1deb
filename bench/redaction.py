"""Redaction: citewatch's detectors against Microsoft Presidio's pattern recognizers.

Same texts (tests/redaction/corpus.jsonl), same run: throughput in MB/s (UTF-8 bytes of text
analysed per second, detection only on both sides) and precision/recall per entity type, then
the ratios. Presidio runs its AnalyzerEngine with its predefined recognizers on a blank spaCy
English pipeline (no model download is possible here), so its NER-based recognizers find
nothing and only its pattern and checksum recognizers count.

    python bench/redaction.py [--repeat N]

presidio-analyzer is not a dependency of citewatch: `pip install presidio-analyzer`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sidecar.config import RedactionSettings  # noqa: E402
from sidecar.redaction import build_redactor  # noqa: E402
from tests.redaction.corpus_eval import TypeScore, load_corpus, score  # noqa: E402

Span = tuple[str, int, int]
PRESIDIO_TYPES = {"EMAIL_ADDRESS": "EMAIL", "PHONE_NUMBER": "PHONE", "CREDIT_CARD": "CREDIT_CARD",
                  "IBAN_CODE": "IBAN", "US_SSN": "US_SSN", "IP_ADDRESS": "IP_ADDRESS"}


def citewatch_detector() -> Callable[[str], list[Span]]:
    redactor = build_redactor(RedactionSettings())

    def detect(text: str) -> list[Span]:
        return [(e.type, e.start, e.end) for e in (redactor.detect(text) or [])]

    return detect


def presidio_detector() -> Callable[[str], list[Span]]:
    """Presidio's analyzer on a blank spaCy pipeline; raises ImportError if not installed."""
    import spacy
    import tldextract  # presidio's e-mail recognizer; keep it off the network
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    tldextract.tldextract.TLD_EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=())

    class BlankSpacyEngine(SpacyNlpEngine):  # type: ignore[misc]
        def load(self) -> None:
            self.nlp = {"en": spacy.blank("en")}

    engine = BlankSpacyEngine(models=[{"lang_code": "en", "model_name": "blank"}])
    engine.load()
    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(nlp_engine=engine)
    analyzer = AnalyzerEngine(nlp_engine=engine, registry=registry, supported_languages=["en"])
    entities = sorted(PRESIDIO_TYPES)

    def detect(text: str) -> list[Span]:
        results: Any = analyzer.analyze(text, language="en", entities=entities)
        return [(PRESIDIO_TYPES[r.entity_type], r.start, r.end) for r in results]

    return detect


def throughput(detect: Callable[[str], Any], texts: list[str], repeat: int) -> float:
    """MB/s over ``repeat`` passes (after one warm-up text)."""
    detect(texts[0])
    size = sum(len(t.encode("utf-8")) for t in texts) * repeat
    start = time.perf_counter()
    for _ in range(repeat):
        for text in texts:
            detect(text)
    return size / (time.perf_counter() - start) / 1e6


def table(name: str, scores: dict[str, TypeScore], types: Iterable[str]) -> None:
    print(f"\n{name}: precision / recall per type")
    for entity_type in types:
        s = scores.get(entity_type, TypeScore(0, 0, 0))
        print(f"  {entity_type:<12} P {s.precision:.3f}  R {s.recall:.3f}  "
              f"(tp {s.tp}, fp {s.fp}, fn {s.fn})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="Passes over the corpus.")
    args = parser.parse_args()
    lines = load_corpus()
    texts = [line["text"] for line in lines]
    size_kb = sum(len(t.encode("utf-8")) for t in texts) / 1e3
    print(f"corpus: {len(texts)} texts, {size_kb:.1f} kB")

    ours = citewatch_detector()
    our_speed = throughput(ours, texts, args.repeat)
    our_scores = score(lines, ours)
    types = sorted(our_scores)
    print(f"citewatch: {our_speed:.2f} MB/s")
    table("citewatch", our_scores, types)

    try:
        theirs = presidio_detector()
    except ImportError as exc:
        print(f"\nPresidio baseline NOT measured: cannot import it ({exc}). "
              "Install it with `pip install presidio-analyzer`.")
        return
    their_speed = throughput(theirs, texts, max(1, args.repeat // 20))
    their_scores = score(lines, theirs)
    print(f"\npresidio-analyzer (pattern recognizers, blank spaCy): {their_speed:.4f} MB/s")
    table("presidio", their_scores, types)

    print(f"\nthroughput ratio citewatch/presidio: {our_speed / their_speed:.0f}x "
          "(target >= 100x)")
    # Most production text carries no PII at all; the corpus is dense with it (two thirds of
    # its lines hold values to validate). The negative lines alone show the common case.
    clean = [line["text"] for line in lines if line["kind"] == "negative"]
    our_clean = throughput(ours, clean, args.repeat)
    their_clean = throughput(theirs, clean, max(1, args.repeat // 20))
    print(f"lines without PII only: citewatch {our_clean:.2f} MB/s, presidio "
          f"{their_clean:.4f} MB/s, ratio {our_clean / their_clean:.0f}x")
    print("recall and precision, citewatch vs presidio, on types both detect:")
    for entity_type in types:
        if entity_type not in PRESIDIO_TYPES.values():
            print(f"  {entity_type:<12} presidio has no recognizer")
            continue
        o, t = our_scores[entity_type], their_scores.get(entity_type, TypeScore(0, 0, 0))
        verdict = "ok" if o.recall >= t.recall and o.precision >= 0.98 else "BELOW TARGET"
        print(f"  {entity_type:<12} recall {o.recall:.3f} vs {t.recall:.3f}, "
              f"precision {o.precision:.3f} vs {t.precision:.3f}  {verdict}")


if __name__ == "__main__":
    main()
