"""The independent redaction corpus: sentences nobody on this project wrote.

Microsoft's presidio-evaluator (MIT licence) generates labelled sentences from its own
templates (support requests, signatures, address blocks, forms) filled by Faker in a given
locale, with the span and type of every value. Its templates, their quirks included (escaped
line breaks such as ``\\n`` written out in the text, labels glued to numbers as in
``780-775-0277-Office``), were never seen while the detectors were written, so this corpus
is the check that the project's own generated corpus (build_corpus.py) is not flattering.

The sentences are generated once and committed (tests/fixtures/redaction/independent.jsonl),
because presidio-evaluator pulls in transformers and pandas, which the tests do not need::

    pip install presidio-evaluator
    python -m tests.redaction.build_independent > tests/fixtures/redaction/independent.jsonl

Seeds 101 and 102, twelve locales; only sentences holding at least one value of a type
citewatch detects (phone, card, IBAN, SSN, IP, e-mail) are kept, with every labelled span
(names and addresses too, so that a detection on another kind of personal data is told
apart from a false positive). Each line: text, locale, seed, spans [[type, start, end]].
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings

LOCALES = (
    "en_US",
    "de_DE",
    "fr_FR",
    "es_ES",
    "it_IT",
    "nl_NL",
    "pt_BR",
    "en_GB",
    "en_AU",
    "pl_PL",
    "ja_JP",
    "sv_SE",
)
SEEDS = (101, 102)
SENTENCES = 600  # per locale and seed, before filtering
TYPES = {"PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "IP_ADDRESS", "EMAIL_ADDRESS"}


def main() -> None:
    warnings.simplefilter("ignore")
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    for seed in SEEDS:
        for locale in LOCALES:
            with contextlib.redirect_stdout(io.StringIO()):  # its progress messages
                faker = PresidioSentenceFaker(
                    locale=locale, lower_case_ratio=0.05, random_seed=seed
                )
                samples = faker.generate_new_fake_sentences(SENTENCES)
            for sample in samples:
                spans = sorted(
                    [span.entity_type, span.start_position, span.end_position]
                    for span in sample.spans
                )
                if not any(kind in TYPES for kind, _, _ in spans):
                    continue
                line = {"text": sample.full_text, "locale": locale, "seed": seed, "spans": spans}
                sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
