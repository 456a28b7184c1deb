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

Built-in types (:class:`PatternDetector`, validated rather than matched): EMAIL, PHONE
(phonenumbers), CREDIT_CARD (Luhn, python-stdnum's rule), IBAN (mod 97, python-stdnum),
US_SSN, IP_ADDRESS (v4 and v6, ipaddress), SECRET (sk-, AKIA, ghp_, xox?- and similar keys,
JWTs, PEM private keys, passwords in URLs, high-entropy values after key/token/secret/password).
Amounts, durations, counts, dates, versions and policy numbers stay.

Speed (bench/redaction.py): a text pays a few substring tests and one regex scan unless it
holds a trigger; candidates come from per-group finders that give exactly the matches of one
plain alternation (_patterns.ALTERNATIVES, the definition the tests hold them to); the common
shapes of phone numbers, IBANs, IPv4 addresses and card checksums are decided from the
libraries' own metadata and rules compiled once, the rest by the libraries themselves, and
tests compare each shortcut with the library on generated inputs.

The NER slot: person names and postal addresses need a statistical model, which citewatch
does not ship. Any object with a ``name`` and a ``detect(text) -> Iterable[Entity]`` method is
a detector; set ``redaction.ner_detector: "mypackage.module:factory"`` and citewatch calls
``factory()`` at start-up and runs the detector after the built-in ones (overlaps resolve to
the earliest, longest entity). For example, a wrapper around Presidio's AnalyzerEngine with a
spaCy model you installed, mapping its PERSON and LOCATION results to Entity("PERSON", ...)
and Entity("ADDRESS", ...). A detector that raises withholds the whole text (fail closed).
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
