"""The records the CLI writes for the examples and the project's corpora, byte for byte.

A refactoring must not change an output. Each case below runs one command in process and
compares what it wrote with tests/fixtures/outputs/<case>.jsonl (the time of evaluation and
the judge's latency, the only fields that change from run to run, are fixed first). A change that is
meant to change outputs regenerates them with ``python -m tests.cli.test_outputs_unchanged``
and shows the diff in its commit.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from sidecar.cli import cli
from sidecar.redaction import Entity

ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = ROOT / "tests" / "fixtures" / "outputs"
EXAMPLES = ROOT / "examples"
_EVALUATED_AT = "2026-01-01T00:00:00Z"

# Every redaction setting a user can turn, at once: a configured pattern, an allow-list,
# per-type modes (hmac, drop) and a Python detector next to the built-in ones.
_REDACTION_YAML = """\
redaction:
  allow: ["hello@mercury.com", "MamoruOoshima@cuvox.de", "jane.roe@example.org"]
  custom_patterns:
    - {name: TICKET, pattern: "\\\\b[A-Z]{2,5}-[0-9]{3,8}\\\\b"}
    - {name: ORDER_REF, pattern: "(?i)order\\\\s+#?([A-Z0-9]{6,10})"}
  modes: {EMAIL: hmac, IBAN: drop}
  hmac_key: fixed-key-for-the-golden-outputs
  ner_detector: tests.cli.test_outputs_unchanged:NamePairDetector
"""


_NAME_PAIR = re.compile(r"\b([A-Z][a-z]+ [A-Z][a-z]+)\b")


class NamePairDetector:
    """A Python detector: two capitalised words in a row, as PERSON (often overlapping
    what the built-in detectors find, so the two are merged on most texts)."""

    name = "name_pairs"

    def detect(self, text: str) -> list[Entity]:
        return [Entity("PERSON", m.start(1), m.end(1)) for m in _NAME_PAIR.finditer(text)]


def _invoke(args: list[str]) -> None:
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _texts(tmp: Path, *corpora: str) -> Path:
    """The corpora's texts as the {"text": ...} lines `citewatch redact` reads."""
    out = tmp / "texts.jsonl"
    with out.open("w", encoding="utf-8") as sink:
        for corpus in corpora:
            for line in (ROOT / corpus).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    sink.write(json.dumps({"text": json.loads(line)["text"]}) + "\n")
    return out


def _check(source: Path, *extra: str) -> Callable[[Path], Path]:
    def produce(tmp: Path) -> Path:
        out = tmp / "out.jsonl"
        _invoke(["check", str(source), "--output", str(out), "--no-progress", *extra])
        return out

    return produce


def _run_once(tmp: Path) -> Path:
    out = tmp / "out.jsonl"
    _invoke(
        [
            "run",
            "--input",
            str(EXAMPLES / "traces.jsonl"),
            "--once",
            "--output",
            str(out),
            "--metrics-port",
            "0",
            "--dead-letters",
            str(tmp / "dead.jsonl"),
        ]
    )
    return out


def _redact(
    *args: str, corpora: tuple[str, ...] = (), config: bool = False
) -> Callable[[Path], Path]:
    def produce(tmp: Path) -> Path:
        out = tmp / "out.jsonl"
        source = [str(_texts(tmp, *corpora))] if corpora else []
        settings = []
        if config:
            (tmp / "redaction.yaml").write_text(_REDACTION_YAML, encoding="utf-8")
            settings = ["--config", str(tmp / "redaction.yaml")]
        _invoke(["redact", *args, *source, "--output", str(out), *settings])
        return out

    return produce


_REDACTION_CORPORA = (
    "tests/fixtures/redaction/independent.jsonl",
    "tests/fixtures/redaction/written_forms.jsonl",
    "tests/fixtures/injection/corpus.jsonl",
)
CASES: dict[str, Callable[[Path], Path]] = {
    "check_examples": _check(EXAMPLES / "traces.jsonl"),
    **{
        f"check_{path.stem}": _check(path, "--input-format", path.stem)
        for path in sorted((EXAMPLES / "inputs").glob("*.jsonl"))
    },
    "run_once_examples": _run_once,
    "redact_traces_examples": _redact("--traces", str(EXAMPLES / "traces.jsonl")),
    "redact_traces_examples_configured": _redact(
        "--traces", str(EXAMPLES / "traces.jsonl"), config=True
    ),
    "redact_corpora": _redact(corpora=_REDACTION_CORPORA),
    "redact_corpora_configured": _redact(corpora=_REDACTION_CORPORA, config=True),
}


def produce(case: str, tmp: Path) -> bytes:
    """What ``case`` writes, with the evaluation time and the judge's latency fixed."""
    lines = []
    for line in CASES[case](tmp).read_bytes().splitlines():
        record = json.loads(line)
        if "evaluated_at" in record:
            record["evaluated_at"] = _EVALUATED_AT
            if record["judge"] is not None:
                record["judge"]["latency_seconds"] = 0.0
            line = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()
        lines.append(line + b"\n")
    return b"".join(lines)


@pytest.mark.parametrize("case", sorted(CASES))
def test_outputs_are_unchanged(case: str, tmp_path: Path) -> None:
    expected = (OUTPUTS / f"{case}.jsonl").read_bytes()
    got = produce(case, tmp_path)
    assert got.count(b"\n") == expected.count(b"\n")
    first = next(
        (
            i
            for i, (a, b) in enumerate(zip(got.splitlines(), expected.splitlines(), strict=True))
            if a != b
        ),
        None,
    )
    assert first is None, (
        f"{case}: line {first + 1} differs\n"
        f"got:      {got.splitlines()[first][:400]!r}\n"
        f"expected: {expected.splitlines()[first][:400]!r}"
    )


def test_every_output_file_has_a_case() -> None:
    assert sorted(p.stem for p in OUTPUTS.glob("*.jsonl")) == sorted(CASES)


if __name__ == "__main__":
    import tempfile

    for name in sys.argv[1:] or sorted(CASES):
        with tempfile.TemporaryDirectory() as tmp:
            (OUTPUTS / f"{name}.jsonl").write_bytes(produce(name, Path(tmp)))
        sys.stderr.write(f"{name}\n")
