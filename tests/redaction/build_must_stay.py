"""The must-stay corpus: sentences of public news and technical text whose numbers carry
evidence (years and pairs of years, ranges, amounts, quantities with units, versions,
scores, dates) and hold no personal data, so that redaction must leave them as they are.

Two sources nobody on this project wrote, excerpted:

- news: AG's news topic classification dataset (Xiang Zhang, Junbo Zhao, Yann LeCun,
  "Character-level Convolutional Networks for Text Classification", NIPS 2015; from the
  ComeToMyHead corpus of news articles, for non-commercial research), its test split as kept
  in the public repository suuuch/TransformerClassification (data/ag_news_csv/test.csv);
- technical: the descriptions (README and changelog text) that the Python packages installed
  with citewatch's test extras publish in their package metadata (citewatch's own left out).

A sentence is kept when it holds a run of digits that a phone, card or identifier rule could
read (four digits or more, or two groups of digits) and nothing a reader would call personal
data or a secret: no '@', URL, phone or fax word, key word, IP address or long hex string.
Each sentence goes to the ``dev`` or the ``heldout`` split by a hash of its text; the rules
were looked at on ``dev`` only. Generated once and committed
(tests/fixtures/redaction/must_stay.jsonl)::

    python -m tests.redaction.build_must_stay PATH_TO_TransformerClassification_GIT_DIR \\
        > tests/fixtures/redaction/must_stay.jsonl
"""

from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import io
import json
import re
import subprocess
import sys

NUMBERS = re.compile(r"\d{4}|\d+[ .,/:-]\d+")
UNWANTED = re.compile(
    r"@|https?:|www\.|://|\b(?:phone|tel|fax|call|mobile|key|token|secret|pass\w*|pwd|"
    r"ssn|iban|card)\b|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b[0-9a-f]{12,}\b|[A-Za-z0-9+/]{24,}",
    re.IGNORECASE,
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
MAX_LENGTH = 240
PER_SOURCE = 500


def _keep(sentence: str) -> bool:
    return (
        20 <= len(sentence) <= MAX_LENGTH
        and NUMBERS.search(sentence) is not None
        and UNWANTED.search(sentence) is None
    )


def _news(git_dir: str) -> list[str]:
    texts: list[str] = []
    for name in ("test.csv",):
        raw = subprocess.run(
            ["git", "--git-dir", git_dir, "show", f"HEAD:data/ag_news_csv/{name}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for row in csv.reader(io.StringIO(raw)):
            body = f"{row[1]}. {row[2]}".replace("\\", " ")
            body = body.replace(" #36;", " $").replace("&lt;", "<").replace("&gt;", ">")
            texts.extend(SENTENCE_END.split(re.sub(r"\s+", " ", body)))
    return texts


def _technical() -> list[str]:
    texts: list[str] = []
    for dist in sorted(importlib.metadata.distributions(), key=lambda d: d.metadata["Name"]):
        if dist.metadata["Name"] == "citewatch":
            continue
        description = dist.metadata.get_payload() or ""  # type: ignore[attr-defined]
        for line in str(description).splitlines():
            line = re.sub(r"[`*#|>]+", " ", line).strip()
            texts.extend(SENTENCE_END.split(re.sub(r"\s+", " ", line)))
    return texts


def main() -> None:
    git_dir = sys.argv[1]
    seen: set[str] = set()
    for source, texts in (("news", _news(git_dir)), ("technical", _technical())):
        kept = 0
        for text in texts:
            text = text.strip()
            if text in seen or not _keep(text):
                continue
            seen.add(text)
            digest = hashlib.sha256(text.encode("utf-8")).digest()
            split = "heldout" if digest[0] % 3 == 0 else "dev"
            line = {"text": text, "source": source, "split": split}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
            kept += 1
            if kept >= PER_SOURCE:
                break


if __name__ == "__main__":
    main()
