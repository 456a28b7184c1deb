"""The engine's whole-text redaction (passes, replacements, configured patterns, the
allow-list and Python detectors' entities in native code) against the Python rules
(tests/redaction/_oracle.py).

Both must give the same texts, entities, placeholder numbering and counts on every input:
the Python rules are the reference.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import Trace
from sidecar.redaction import Entity, PatternDetector, Redactor, RegexDetector, Scope, _native
from tests.redaction._negatives import negative_phrase
from tests.redaction._oracle import oracle
from tests.redaction.build_corpus import GENERATORS
from tests.redaction.test_properties import ANY_TEXT, ENTITY_TYPES
from tests.support.factories import make_trace
from tests.support.redaction_corpus import load_corpus

MODES: list[dict[str, Any]] = [
    {},
    {"default_mode": "hmac", "hmac_key": b"k" * 32},
    {"default_mode": "drop"},
    {"modes": {"EMAIL": "drop", "PHONE": "hmac"}, "hmac_key": b"k" * 32},
]
PLACEHOLDERS = ["<EMAIL_1>", "<PHONE_12>", "<REDACTED>", "<SECRET_0123456789abcdef>", "<", ""]


def _allowed() -> list[str]:
    """Values of the corpus's first texts, as an allow-list writes them (another case)."""
    detector = PatternDetector()
    values = []
    for line in load_corpus("dev")[:60]:
        text = line["text"]
        values += [text[e.start : e.end].swapcase() for e in detector.detect_kept(text)[:1]]
    return values


ALLOW: list[dict[str, Any]] = [
    {"allow": _allowed()},
    {"allow": _allowed(), "default_mode": "hmac", "hmac_key": b"k" * 32},
]
PATTERNS = [("EMPLOYEE_ID", r"\bemp-(\d{6})\b"), ("DIGITS", r"\d{5,}"), ("AT", r"\w+@")]


class _Names:
    """A Python detector: capitalised pairs as PERSON (overlapping the built-in detectors'
    values at times), keyed in lower case, and an empty entity at every "#"."""

    name = "names"

    def detect(self, text: str) -> list[Entity]:
        found = [
            Entity("PERSON", m.start(), m.end(), m.group().lower())
            for m in re.finditer(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", text)
        ]
        return found + [Entity("PERSON", m.start(), m.start()) for m in re.finditer("#", text)]


def _pair(
    patterns: list[tuple[str, str]] | None = None, python: bool = False, **kwargs: Any
) -> tuple[Redactor, Redactor]:
    """The same configuration twice: the engine's way, and the Python rules (with
    ``patterns``, the configured patterns in the engine, and on RE2 beside it; with
    ``python``, a Python detector beside the built-in ones)."""
    extra = [_Names()] if python else []
    native = Redactor([PatternDetector(patterns=patterns or ()), *extra], **kwargs)
    reference = Redactor(
        [
            PatternDetector(),
            *(RegexDetector(name, pattern) for name, pattern in patterns or ()),
            *extra,
        ],
        **kwargs,
    )
    return native, oracle(reference, kwargs.get("hmac_key"))


# RE2 cannot read a text with lone surrogates (its detector fails, the text is withheld),
# where the engine reads each as U+FFFD: the traces test leaves such texts out for these.
PATTERN_PAIRS = [_pair(PATTERNS, **kwargs) for kwargs in (MODES[0], MODES[3], ALLOW[0])]
PAIRS = (
    [_pair(**kwargs) for kwargs in MODES + ALLOW]
    + PATTERN_PAIRS
    + [_pair(python=True, **kwargs) for kwargs in (MODES[0], MODES[3], ALLOW[1])]
)


def _same_text(native: Redactor, python: Redactor, texts: list[str]) -> None:
    """Texts redacted one after another in one scope give the same results both ways."""
    native_scope, python_scope = Scope(), Scope()
    for text in texts:
        assert native.redact_text(text, native_scope) == python.redact_text(text, python_scope)
    assert native_scope == python_scope


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            ANY_TEXT,
            st.lists(st.tuples(ENTITY_TYPES, st.integers(0, 2**32)), max_size=3),
            st.sampled_from(PLACEHOLDERS),
        ),
        min_size=1,
        max_size=4,
    ),
    st.data(),
)
def test_generated_texts_give_the_same_results_both_ways(
    drafts: list[tuple[str, list[tuple[str, int]], str]], data: st.DataObject
) -> None:
    texts = []
    for text, seeded, placeholder in drafts:
        for entity_type, seed in seeded:
            at = data.draw(st.integers(0, len(text)))
            value = GENERATORS[entity_type](random.Random(seed))
            text = f"{text[:at]} {value}{placeholder}{text[at:]}"
        texts.append(text)
    for native, python in PAIRS:
        _same_text(native, python, texts)


def _chunks(texts: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def test_corpus_texts_and_hard_negatives_give_the_same_results_both_ways() -> None:
    rng = random.Random(11)
    texts = [line["text"] for line in load_corpus("dev")]
    texts += [negative_phrase(rng) for _ in range(500)]
    # values glued to placeholders, which later passes and the placeholder shield decide
    texts += [
        f"{rng.choice(texts)[:60]}{rng.choice(PLACEHOLDERS)}{rng.choice(texts)[:60]}"
        for _ in range(500)
    ]
    for native, python in PAIRS:
        for chunk in _chunks(texts, 8):
            _same_text(native, python, chunk)


def _trace(rng: random.Random, values: list[str]) -> Trace:
    urls = [
        None,
        "https://docs.example.com/a",
        "https://x.example/a?phone=555-201-7731",
        "http://user:pw1234@host.example/p",
        "https://x.example/p#jane@example.com",
        "http://[bad",
    ]
    return make_trace(
        question=f"Is {rng.choice(values)} right?",
        answer=f"Yes {rng.choice(values)} [S1].",
        sources=[
            {
                "id": f"S{n}",
                "title": rng.choice(values),
                "text": rng.choice(values),
                "url": rng.choice(urls),
            }
            for n in (1, 2, 3)
        ],
        claims=[{"id": "c1", "text": rng.choice(values), "citation_ids": ["S1"], "importance": 3}],
        note=rng.choice(values),
    )


def test_traces_give_the_same_results_both_ways() -> None:
    """One call for a trace's texts when no source URL can hold a value; otherwise each
    text and URL in turn: the numbering is the same either way."""
    rng = random.Random(5)
    values = [line["text"] for line in load_corpus("dev")][:400] + [
        "call 555-201-7731",
        "<PHONE_1> and 555-201-7731",
        "bad \ud800 then anna@example.com",
        "nothing here",
    ]
    traces = [_trace(rng, values) for _ in range(150)]
    readable = [_trace(rng, [v for v in values if "\ud800" not in v]) for _ in range(150)]
    for native, python in PAIRS:
        for trace in readable if (native, python) in PATTERN_PAIRS else traces:
            assert native.redact(trace) == python.redact(trace)


def test_a_text_with_lone_surrogates_takes_its_turn_in_the_numbering() -> None:
    native, _ = PAIRS[0]
    trace = make_trace(
        question="a@example.com",
        answer="b@example.com \ud800 [S1].",
        claims=[{"id": "c1", "text": "c@example.com", "citation_ids": ["S1"], "importance": 1}],
    )
    redacted, counts = native.redact(trace)
    assert (redacted.question, redacted.claims[0].text) == ("<EMAIL_1>", "<EMAIL_3>")
    assert redacted.answer == "<EMAIL_2> \ud800 [S1]."
    assert counts == {"EMAIL": 3}


class _Failing:
    """A Python detector that fails on a text holding "fail"."""

    name = "failing"

    def detect(self, text: str) -> list[Entity]:
        if "fail" in text:
            raise KeyError(text)
        return []


def test_a_detector_failure_withholds_the_text_and_is_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    redactor = Redactor([PatternDetector(), _Failing()])
    scope = Scope()
    with caplog.at_level(logging.DEBUG):
        assert redactor.redact_text("fail: call 555-201-7731", scope).text == "<REDACTED>"
        assert redactor.detect("fail") is None
        redacted, counts = redactor.redact(
            make_trace(question="fail: call 555-201-7731", answer="call 555-201-7731 [S1].")
        )
    assert scope.counts == {"REDACTION_ERROR": 1}
    assert (redacted.question, redacted.answer) == ("<REDACTED>", "call <PHONE_1> [S1].")
    assert counts["REDACTION_ERROR"] == 1
    assert "redaction detector failing failed (KeyError); text withheld" in caplog.text
    assert "555-201-7731" not in caplog.text


class _Reporting:
    """A Python detector that reports what it is given, whatever the text."""

    name = "reporting"

    def __init__(self, *found: object) -> None:
        self.found = found

    def detect(self, text: str) -> list[object]:
        return list(self.found)


@pytest.mark.parametrize(
    "found",
    [
        pytest.param(Entity("EMAIL", 0, 999), id="beyond-the-end"),
        pytest.param(Entity("EMAIL", -3, 2), id="before-the-start"),
        pytest.param(("EMAIL", "0", 2, None), id="not-an-offset"),
        pytest.param("EMAIL", id="not-an-entity"),
    ],
)
def test_a_detector_reporting_a_malformed_entity_withholds_the_text(found: object) -> None:
    redactor = Redactor([PatternDetector(), _Reporting(found)])
    scope = Scope()
    assert redactor.redact_text("call 555-201-7731", scope).text == "<REDACTED>"
    assert scope.counts == {"REDACTION_ERROR": 1}


def test_an_engine_panic_under_a_detector_withholds_the_text() -> None:
    with pytest.raises(RuntimeError, match="engine failed"):
        _native._panic_in_engine()
    scope = Scope()

    class Panicking:
        name = "panicking"

        def detect(self, text: str) -> list[Entity]:
            _native._panic_in_engine()
            return []

    redactor = Redactor([Panicking()])
    assert redactor.redact_text("text", scope).text == "<REDACTED>"
    assert scope.counts == {"REDACTION_ERROR": 1}


def test_a_redactor_is_freed_when_dropped() -> None:
    """The engine holds what it needs of the Redactor (the hmac key), not the Redactor: a
    cycle through a compiled object is one the garbage collector cannot break."""
    import gc
    import weakref

    redactor = Redactor([PatternDetector()], default_mode="hmac", hmac_key=b"k" * 32)
    assert redactor.redact_text("call 555-201-7731").text.startswith("call <PHONE_")
    dropped = weakref.ref(redactor)
    del redactor
    gc.collect()
    assert dropped() is None
