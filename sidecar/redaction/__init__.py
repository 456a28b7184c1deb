"""Redaction of sensitive values before any trace text leaves the process.

A :class:`Redactor` applies :class:`Detector` objects to every text of a trace (question,
answer, claims, source titles and texts, URL passwords, query strings and fragments, unknown
extra fields) and replaces each value found:

- ``placeholder`` (default): a typed placeholder numbered per trace, ``<EMAIL_1>``,
  ``<PHONE_2>``; the same value always gets the same placeholder inside one trace, so a claim
  and the passage it cites still match after redaction;
- ``hmac``: ``<EMAIL_`` and 16 hex digits of an HMAC-SHA256 of the value under a configured
  key, the same across traces (for joining) without revealing the value;
- ``drop``: the value is removed.

Placeholders are never detected again, so redacting redacted text changes nothing.

Built-in types (:class:`PatternDetector`), recall first: EMAIL (also "jane at example dot
com" and "jane[at]example.com", a setting on by default), PHONE (any national or
international format of 7 to 15 digits, with extensions), CREDIT_CARD (12 to 19 digits
passing Luhn, any network), IBAN (any case, mod 97), US_SSN, IP_ADDRESS (v4 and v6), SECRET
(values of keyed assignments in any common syntax, provider keys, JWTs, PEM private keys,
URL passwords, high-entropy values near key words), NATIONAL_ID (national identifiers that
hold letters: codice fiscale, National Insurance number, DNI/NIE, PAN, CURP). A value of
the right shape is redacted unless its context makes it something else; amounts, durations,
counts, dosages, dates, versions, policy and article numbers stay. docs/redaction.md has the
rules and the figures.

Linear time: the built-in detectors are a compiled engine (sidecar.redaction._native, Rust,
built from native/) whose patterns run on the regex crate's finite automata and whose rules
read a bounded window around each candidate; configured patterns are checked by RE2 and run
in the engine too (on RE2 beside it when the engine refuses one). Either way every pattern
applied to trace text runs in time linear in the text.

The NER slot: person names and postal addresses need a statistical model, which citewatch
does not ship. Any object with a ``name`` and a ``detect(text) -> Iterable[Entity]`` method is
a detector; set ``redaction.ner_detector: "mypackage.module:factory"`` and citewatch calls
``factory()`` at start-up and runs the detector after the built-in ones (overlaps resolve to
the earliest, longest entity). sidecar.redaction.presidio wraps Presidio's AnalyzerEngine
with a spaCy model you installed (``citewatch[presidio]``), reporting PERSON and ADDRESS. A
detector that raises withholds the whole text (fail closed).
"""

from __future__ import annotations

from sidecar.redaction._base import BUILTIN_TYPES, Detector, Entity
from sidecar.redaction._build import RegexDetector, build_redactor, load_detector
from sidecar.redaction._redactor import PLACEHOLDER, Mode, Redactor, Scope, TextRedaction
from sidecar.redaction._scanner import PatternDetector

__all__ = [
    "BUILTIN_TYPES",
    "PLACEHOLDER",
    "Detector",
    "Entity",
    "Mode",
    "PatternDetector",
    "Redactor",
    "RegexDetector",
    "Scope",
    "TextRedaction",
    "build_redactor",
    "load_detector",
]
