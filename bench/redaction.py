"""Redaction: citewatch's detectors against Microsoft Presidio's pattern recognizers.

Same texts (the generated labelled corpus of tests/redaction/build_corpus.py, its dev and
held-out splits), same run: precision/recall per entity type on each split, then throughput
in MB/s (UTF-8 bytes of text analysed per second, detection only on both sides: citewatch's
Redactor.detect, Presidio's AnalyzerEngine.analyze, one call per text) and the ratio. Each
side gets a warm-up pass, then timed rounds taking turns, the best round of each counting (a
shared machine's slow spells hit both). The texts with personal data are timed apart from
the hard negatives. Presidio runs its AnalyzerEngine with its predefined recognizers on a
blank spaCy English pipeline (spacy.blank("en"), no model download), so its NER-based
recognizers find nothing and only its pattern and checksum recognizers count.

Then repeated triggers: each detector's trigger repeated to 1 MB (``--trigger-mb``), redacted
whole by Redactor.redact_text (detection, replacement and the fixed-point pass), in MB/s next
to 1 MB of prose without a value and 1 MB of the corpus's texts one after another (text
with personal data at the corpus's density) measured in the same rounds, and the time of
each shape against each of them (1.0: a repeated trigger costs what that text does).

Then the written-forms corpus (tests/fixtures/redaction/written_forms.jsonl: values as people
write and disguise them, hard negatives of dates, ranges and section numbers): recall per
class on each split, as tests/support/redaction_corpus.py scores it. And the speed of
Redactor.redact_text on the corpus's dev texts with the default settings, with a configured
pattern (redaction.custom_patterns, matching in one text in ten) and with an allow-list
(redaction.allow), in MB/s, each against the default (target: a configured pattern within
1.2x).

    python bench/redaction.py [--rounds N] [--min-seconds S] [--trigger-mb MB] [--triggers-only]
                              [--settings-only]

The built-in detectors are the compiled engine (native/, built by `pip install -e .` or in
place with cargo, see docs/redaction.md); citewatch's side measures it and the Python
Redactor around it. Profile the Python side with:

    python -m cProfile -s tottime bench/redaction.py --triggers-only --rounds 1 | head -40

and the engine with a sampling profiler (`perf record -g python bench/redaction.py ...`).

presidio-analyzer and spacy are in the test extra (`pip install -e .[test]`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sidecar.config import RedactionSettings  # noqa: E402
from sidecar.redaction import Redactor, RegexDetector, build_redactor  # noqa: E402
from tests.support.redaction_corpus import (  # noqa: E402
    TypeScore,
    class_scores,
    load_corpus,
    score,
    written_forms,
)

Span = tuple[str, int, int]
PRESIDIO_TYPES = {
    "EMAIL_ADDRESS": "EMAIL",
    "PHONE_NUMBER": "PHONE",
    "CREDIT_CARD": "CREDIT_CARD",
    "IBAN_CODE": "IBAN",
    "US_SSN": "US_SSN",
    "IP_ADDRESS": "IP_ADDRESS",
}


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

    class BlankSpacyEngine(SpacyNlpEngine):
        def load(self) -> None:
            self.nlp = {"en": spacy.blank("en")}  # type: ignore[assignment]

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


def timed_pass(detect: Callable[[str], Any], texts: list[str], passes: int) -> float:
    """Seconds per pass over ``texts`` (the mean of ``passes`` consecutive passes)."""
    start = time.perf_counter()
    for _ in range(passes):
        for text in texts:
            detect(text)
    return (time.perf_counter() - start) / passes


def throughputs(
    detectors: dict[str, Callable[[str], Any]], texts: list[str], *, rounds: int, min_seconds: float
) -> dict[str, float]:
    """MB/s of each detector on ``texts``: one warm-up pass each, then ``rounds`` rounds
    taking turns (so that a slow spell of a shared machine hits both), each round running
    enough passes to last ``min_seconds``; the best round counts for each."""
    size = sum(len(t.encode("utf-8")) for t in texts)
    passes = {}
    for name, detect in detectors.items():
        warm = timed_pass(detect, texts, 1)  # warm-up: lazy imports, caches, metadata
        passes[name] = max(1, math.ceil(min_seconds / max(warm, 1e-9)))
    best = dict.fromkeys(detectors, math.inf)
    for _ in range(rounds):
        for name, detect in detectors.items():
            best[name] = min(best[name], timed_pass(detect, texts, passes[name]))
    return {name: size / seconds / 1e6 for name, seconds in best.items()}


PROSE = (
    "The refund policy was updated last spring: customers who cancel within the first "
    "month get their money back, and the support team answers questions in the order "
    "they arrive. "
)
# One trigger per detector, each a value or the start of one, with its separator.
TRIGGERS: dict[str, str] = {
    "number: 1 1 1": "1 ",
    "number: 1234567": "1234567 ",
    "phone": "+1 415 555 2671 ",
    "card": "4111 1111 1111 1111 ",
    "ssn": "SSN 536-22-1234 ",
    "email": "a@b.co ",
    "obfuscated email": "jane at example dot com ",
    "iban": "DE89 3704 0044 0532 0130 00 ",
    "ipv4": "10.0.0.1 ",
    "ipv6": "fe80::1 ",
    "pem header": "-----BEGIN RSA PRIVATE KEY-----\n",
    "key = value": "api_key=Zx8s9Qw2Lk4n ",
    "provider key": "sk-abcdefghijklmnopqrstuvwx ",
    "jwt prefix": "eyJhbGciOiJIUzI1NiJ9. ",
}


def repeated(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def trigger_table(*, rounds: int, size: int) -> None:
    """MB/s of redact_text on each trigger repeated to ``size`` bytes, next to two texts of
    the same size taking turns with it, the best of ``rounds`` each: prose without a value,
    and the corpus's texts one after another (ordinary text with personal data: a value in
    about every 60 bytes)."""
    redactor = build_redactor(RedactionSettings())
    prose = repeated(PROSE, size)
    ordinary = repeated(" ".join(line["text"] for line in load_corpus("dev")) + " ", size)

    def best(text: str) -> float:
        return timed_pass(redactor.redact_text, [text], 1)

    print(
        f"\nrepeated triggers: {size / 1e6:g} MB each, redact_text, best of {rounds}; "
        "time against prose and against corpus text"
    )
    print(
        f"  {'shape':<18} {'MB/s':>8} {'prose MB/s':>11} {'corpus MB/s':>12} "
        f"{'vs prose':>9} {'vs corpus':>10}"
    )
    for name, unit in TRIGGERS.items():
        text = repeated(unit, size)
        shape_s, prose_s, ordinary_s = math.inf, math.inf, math.inf
        for _ in range(rounds):  # taking turns: a slow spell hits all three
            shape_s = min(shape_s, best(text))
            prose_s = min(prose_s, best(prose))
            ordinary_s = min(ordinary_s, best(ordinary))
        print(
            f"  {name:<18} {size / shape_s / 1e6:8.2f} {size / prose_s / 1e6:11.2f} "
            f"{size / ordinary_s / 1e6:12.2f} {shape_s / prose_s:8.1f}x "
            f"{shape_s / ordinary_s:9.1f}x"
        )


def written_forms_table() -> None:
    """Recall per class of the written-forms corpus, each split (clean share for the hard
    negatives)."""
    lines = written_forms()
    by_split = {
        split: class_scores([line for line in lines if line["split"] == split])
        for split in ("dev", "heldout")
    }
    print("\nwritten forms: values redacted whole per class (negatives: texts left clean)")
    print(f"  {'class':<38} {'dev':>13} {'held-out':>13}")
    for name in sorted(by_split["dev"]):
        cells = []
        for split in ("dev", "heldout"):
            ok, n = by_split[split].get(name, (0, 0))
            cells.append(f"{ok:>4}/{n:<4} {ok / n if n else 0:.2f}")
        print(f"  {name:<38} {cells[0]:>13} {cells[1]:>13}")


CONFIGURED_PATTERN = {"name": "EMPLOYEE_ID", "pattern": r"\bemp-(\d{6})\b"}


def settings_speed(*, rounds: int, min_seconds: float) -> None:
    """redact_text's MB/s on the dev corpus under the default settings, with a configured
    pattern, with an allow-list and with the pattern as a Python detector, taking turns; the
    ratio of each to the default."""
    # One text in ten carries a value of the configured type, for every redactor alike.
    texts = [
        line["text"] + (f" (emp-{100000 + i})" if i % 10 == 0 else "")
        for i, line in enumerate(load_corpus("dev"))
    ]
    redactors = {
        "default settings": build_redactor(RedactionSettings()),
        "configured pattern": build_redactor(
            RedactionSettings(custom_patterns=[CONFIGURED_PATTERN])
        ),  # type: ignore[list-item]
        "allow-list": build_redactor(RedactionSettings(allow=["support@example.com"])),
    }
    # The same pattern as a Python detector beside the built-in ones (an NER model's slot).
    default = redactors["default settings"]
    redactors["Python detector"] = Redactor(
        [
            *default.detectors,
            RegexDetector(CONFIGURED_PATTERN["name"], CONFIGURED_PATTERN["pattern"]),
        ]
    )
    speed = throughputs(
        {name: r.redact_text for name, r in redactors.items()},
        texts,
        rounds=rounds,
        min_seconds=min_seconds,
    )
    print(
        f"\nredact_text on {len(texts)} dev texts (one in ten with an employee ID), best of "
        f"{rounds} interleaved rounds; configured pattern {CONFIGURED_PATTERN['pattern']}"
    )
    base = speed["default settings"]
    for name, mbs in speed.items():
        print(f"  {name:<20} {mbs:8.2f} MB/s  {base / mbs:5.2f}x the default's time")
    ratio = base / speed["configured pattern"]
    print(
        f"configured pattern / default: {ratio:.2f}x (target: within 1.2x) "
        f"{'ok' if ratio <= 1.2 else 'ABOVE TARGET'}"
    )


def table(name: str, scores: dict[str, TypeScore], types: Iterable[str]) -> None:
    print(f"\n{name}: precision / recall per type")
    for entity_type in types:
        s = scores.get(entity_type, TypeScore(0, 0, 0))
        print(
            f"  {entity_type:<12} P {s.precision:.3f}  R {s.recall:.3f}  "
            f"(tp {s.tp}, fp {s.fp}, fn {s.fn})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="Timed rounds per detector, taking turns; the best counts.",
    )
    parser.add_argument(
        "--min-seconds",
        type=float,
        default=0.5,
        help="Least duration of one round (more passes for the faster one).",
    )
    parser.add_argument(
        "--trigger-mb", type=float, default=1.0, help="Size of each repeated-trigger text, in MB."
    )
    parser.add_argument(
        "--triggers-only",
        action="store_true",
        help="Only the repeated-trigger table (no corpus, no Presidio).",
    )
    parser.add_argument(
        "--settings-only",
        action="store_true",
        help="Only the written-forms recall and the speed under settings.",
    )
    args = parser.parse_args()
    if args.triggers_only:
        trigger_table(rounds=args.rounds, size=int(args.trigger_mb * 1e6))
        return
    if args.settings_only:
        written_forms_table()
        settings_speed(rounds=args.rounds, min_seconds=args.min_seconds)
        return
    lines = load_corpus("dev")
    heldout = load_corpus("heldout")
    dense = [line["text"] for line in lines if line["kind"] == "positive"]
    clean = [line["text"] for line in lines if line["kind"] == "negative"]
    size_kb = sum(len(t.encode("utf-8")) for t in dense + clean) / 1e3
    print(
        f"corpus: {len(lines)} dev texts, {size_kb:.1f} kB ({len(clean)} hard negatives), "
        f"{len(heldout)} held-out texts"
    )

    detectors = {"citewatch": citewatch_detector()}
    try:
        detectors["presidio"] = presidio_detector()
    except ImportError as exc:
        print(
            f"\nPresidio baseline NOT measured: cannot import it ({exc}). "
            "Install it with `pip install presidio-analyzer spacy`."
        )
    scores = {name: score(lines, detect) for name, detect in detectors.items()}
    held = {name: score(heldout, detect) for name, detect in detectors.items()}
    types = sorted(scores["citewatch"])
    for name in detectors:
        table(f"{name}, dev split", scores[name], types)
        table(f"{name}, held-out split", held[name], types)

    print(
        f"\nthroughput: best of {args.rounds} interleaved rounds of at least "
        f"{args.min_seconds:g} s each, after a warm-up pass"
    )
    speed = throughputs(detectors, dense, rounds=args.rounds, min_seconds=args.min_seconds)
    clean_speed = throughputs(detectors, clean, rounds=args.rounds, min_seconds=args.min_seconds)
    for name in detectors:
        print(
            f"  {name:<10} texts with PII {speed[name]:8.3f} MB/s   "
            f"hard negatives {clean_speed[name]:8.3f} MB/s"
        )
    trigger_table(rounds=min(args.rounds, 3), size=int(args.trigger_mb * 1e6))
    written_forms_table()
    settings_speed(rounds=args.rounds, min_seconds=args.min_seconds)
    if "presidio" not in detectors:
        return
    ratio = speed["citewatch"] / speed["presidio"]
    clean_ratio = clean_speed["citewatch"] / clean_speed["presidio"]
    print(
        f"\nthroughput ratio citewatch/presidio: {ratio:.0f}x on texts with PII, "
        f"{clean_ratio:.0f}x on hard negatives (target: >= 20 MB/s on texts with PII)"
    )
    print("held-out recall and precision, citewatch vs presidio, on types both detect:")
    ours, theirs = held["citewatch"], held["presidio"]
    for entity_type in types:
        if entity_type not in PRESIDIO_TYPES.values():
            print(f"  {entity_type:<12} presidio has no recognizer")
            continue
        o, t = ours[entity_type], theirs.get(entity_type, TypeScore(0, 0, 0))
        verdict = "ok" if o.recall >= 0.95 and o.precision >= 0.95 else "BELOW TARGET"
        print(
            f"  {entity_type:<12} recall {o.recall:.3f} vs {t.recall:.3f}, "
            f"precision {o.precision:.3f} vs {t.precision:.3f}  {verdict}"
        )


if __name__ == "__main__":
    main()
