"""Redaction before and after a change of the engine, in one run: recall per class on the
held-out split of the forms the third round added (tests/support/redaction_heldout.py) and
of the fourth round's (generated below), the must-stay rate on the must-stay corpus's
held-out sentences and on generated lists of numbers, the generated corpus's recall
per type (held-out split), and the speed of Redactor.detect on the corpus's dev texts with
personal data and on its hard negatives; then `citewatch redact` on a few MB of JSON Lines,
with its start-up (an empty input) timed apart.

Each engine runs in its own child process (two builds of one extension cannot share a
process): the baseline from a copy of the Python packages whose compiled engine is the one
given, the current from this tree. The children take turns, ``--rounds`` times each; the
best speed of each counts (a shared machine's slow spells hit both), and the ratio of the
current engine's time to the baseline's is printed.

    python bench/redaction_rounds.py --baseline PATH/TO/_native.so [--baseline-python REV]
                                     [--rounds N] [--cli-mb MB]

Build the baseline from the commit before the change (`git archive REV native | tar -x`,
`cargo build --release` in its native/, its target/release/lib_native.so); with
``--baseline-python REV`` the baseline also runs the redaction package's Python files of
that commit, so Redactor.redact on whole traces (the checks benchmark's 6 KB traces, CPU time
per trace) compares the Python side too.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# after PYTHONPATH: a child finds the engine it was given first
sys.path.append(str(ROOT))

NATIVE = "_native.cpython-311-x86_64-linux-gnu.so"

# The fourth round's forms (numbers written one digit at a time, values glued to a word by
# an underscore) and its must-stay lists of numbers: generated here, apart from the tests
# the rules were fitted on (tests/redaction/test_spaced_and_lists.py and the Hypothesis
# property of test_properties.py), from a seed no test uses, in templates no test has.
ROUND_FOUR_SEED = 410_007
GLUE_WORDS = ["cust", "acct", "member", "client", "uid", "patient", "emp", "holder"]
SPACED_TEMPLATES = [
    "Please charge {v} for the renewal.",
    "Number on file (written out): {v}",
    "he read it back to me as {v} over the phone",
    "| {v} | pending |",
    "note: {v} -- confirm with the customer",
]
LIST_TEMPLATES = [
    "The readings were {v} over the week.",
    "Answers: {v}",
    "Rounds {v} were replayed.",
    "We sampled {v} at random.",
    "Row values {v} (see appendix).",
]


def _luhn_card(rng: random.Random) -> str:
    prefix = rng.choice(["4", "51", "55", "37", "6011", "35", "2221"])
    length = 15 if prefix == "37" else 16
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - 1 - len(prefix)))
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return body + str((10 - total % 10) % 10)


def _issued_ssn(rng: random.Random) -> str:
    area = rng.choice([a for a in range(1, 900) if a != 666])
    return f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"


def _intl_phone(rng: random.Random) -> str:
    import phonenumbers

    regions = sorted(phonenumbers.SUPPORTED_REGIONS)
    while True:
        number = phonenumbers.example_number(rng.choice(regions))
        if number is not None:
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def _spaced(digits: str) -> str:
    return " ".join(digits)


def round_four_cases(per_class: int = 200) -> dict[str, list[tuple[str, list[str]]]]:
    """Cases of the fourth round's forms: a text and the values that must not be left in it
    (as written, and as bare digits)."""
    rng = random.Random(ROUND_FOUR_SEED)

    def spaced_card() -> tuple[str, list[str]]:
        card = _luhn_card(rng)
        written = _spaced(card)
        return rng.choice(SPACED_TEMPLATES).format(v=written), [written, card]

    def spaced_ssn() -> tuple[str, list[str]]:
        ssn = _issued_ssn(rng)
        written = f"{_spaced(ssn[:3])} - {_spaced(ssn[3:5])} - {_spaced(ssn[5:])}"
        return rng.choice(SPACED_TEMPLATES).format(v=written), [written, ssn]

    def spaced_phone() -> tuple[str, list[str]]:
        e164 = _intl_phone(rng)
        written = "+" + _spaced(e164[1:])
        return rng.choice(SPACED_TEMPLATES).format(v=written), [written, e164[1:]]

    def underscore() -> tuple[str, list[str]]:
        kind = rng.randrange(3)
        value = (_luhn_card(rng), _issued_ssn(rng), _intl_phone(rng))[kind]
        if kind == 1:
            value = f"{value[:3]}-{value[3:5]}-{value[5:]}"
        written = f"{rng.choice(GLUE_WORDS)}_{value}"
        text = rng.choice(["ref {v} closed", "key={v};", "{v}", "see {v} in the export"])
        return text.format(v=written), [value]

    makers = {
        "spaced digits: card": spaced_card,
        "spaced digits: SSN": spaced_ssn,
        "spaced digits: phone with +": spaced_phone,
        "underscore-glued card/SSN/phone": underscore,
    }
    return {name: [make() for _ in range(per_class)] for name, make in makers.items()}


def number_lists(count: int = 200) -> list[str]:
    """Sentences holding lists of numbers that are evidence (steps, scores, counts, pages),
    which must come back unchanged."""
    rng = random.Random(ROUND_FOUR_SEED + 1)
    out = []
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:  # a fixed step
            start, step = rng.randint(1, 200), rng.randint(1, 50)
            items = [str(start + step * i) for i in range(rng.randint(5, 9))]
        elif kind == 1:  # scores of one to three digits
            items = [str(rng.randint(1, 150)) for _ in range(rng.randint(6, 10))]
        elif kind == 2:  # a count
            items = [str(i) for i in range(1, rng.randint(8, 15))]
        else:  # pages, comma-separated
            items = [str(rng.randint(1, 400)) for _ in range(rng.randint(4, 8))]
        sep = ", " if kind == 3 or rng.random() < 0.3 else " "
        out.append(rng.choice(LIST_TEMPLATES).format(v=sep.join(items)))
    return out


def _child(min_seconds: float) -> dict[str, Any]:
    import sidecar.redaction
    from sidecar.config import RedactionSettings
    from sidecar.redaction import build_redactor
    from tests.support.redaction_corpus import load_corpus, score
    from tests.support.redaction_heldout import cases, must_stay

    redactor = build_redactor(RedactionSettings())
    recall = {}
    for name, class_cases in {**cases(), **round_four_cases()}.items():
        hidden = 0
        for text, values in class_cases:
            out = redactor.redact_text(text).text
            hidden += not any(value in out for value in values)
        recall[name] = hidden / len(class_cases)
    kept_texts = must_stay("heldout")
    kept = sum(redactor.redact_text(text).text == text for text in kept_texts)
    lists = number_lists()
    lists_kept = sum(redactor.redact_text(text).text == text for text in lists)
    scores = score(
        load_corpus("heldout"),
        lambda text: [(e.type, e.start, e.end) for e in (redactor.detect(text) or [])],
    )
    dev = load_corpus("dev")
    speeds = {}
    for kind in ("positive", "negative"):
        texts = [line["text"] for line in dev if line["kind"] == kind]
        size = sum(len(t.encode("utf-8")) for t in texts)
        start = time.perf_counter()
        for text in texts:  # warm-up
            redactor.detect(text)
        passes = max(1, math.ceil(min_seconds / max(time.perf_counter() - start, 1e-9)))
        start = time.perf_counter()
        for _ in range(passes):
            for text in texts:
                redactor.detect(text)
        speeds[kind] = size * passes / (time.perf_counter() - start) / 1e6
    speeds["trace"] = _trace_microseconds(min_seconds)
    return {
        "engine": str(Path(sidecar.redaction.__file__).parent),
        "recall": recall,
        "must_stay": [kept, len(kept_texts)],
        "lists": [lists_kept, len(lists)],
        "corpus": {t: [s.tp, s.tp + s.fn, s.fp] for t, s in scores.items()},
        "speed": speeds,
    }


def _trace_microseconds(min_seconds: float) -> float:
    """Redactor.redact (the whole trace: texts, identifiers, URLs) on the checks benchmark's
    6 KB traces, in microseconds of CPU per trace (the best of a few timed passes)."""
    from bench._traces import encoded_traces
    from sidecar.config import Settings
    from sidecar.decode import decode_trace
    from sidecar.redaction import build_redactor

    redactor = build_redactor(Settings().redaction)
    traces = [decode_trace(payload) for payload in encoded_traces(500)]
    for trace in traces:  # warm-up
        redactor.redact(trace)
    best, spent = math.inf, 0.0
    while spent < min_seconds or best == math.inf:
        start = time.process_time()
        for trace in traces:
            redactor.redact(trace)
        took = time.process_time() - start
        best, spent = min(best, took), spent + took
    return best / len(traces) * 1e6


def _baseline_tree(so: Path, into: Path, python_rev: str | None) -> Path:
    for package in ("sidecar", "schemas", "exporters"):
        shutil.copytree(
            ROOT / package, into / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copyfile(so, into / "sidecar" / "redaction" / NATIVE)
    if python_rev is not None:
        # the redaction package's Python as it was at that commit (the rest as in this tree)
        listing = subprocess.run(
            ["git", "ls-tree", "--name-only", python_rev, "sidecar/redaction/"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for path in (p for p in listing if p.endswith(".py")):
            source = subprocess.run(
                ["git", "show", f"{python_rev}:{path}"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            (into / path).write_text(source, encoding="utf-8")
    return into


def _run_child(path: str, min_seconds: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}"}
    out = subprocess.run(
        [sys.executable, __file__, "--child", "--min-seconds", str(min_seconds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def _cli_seconds(path: str, data: Path) -> float:
    env = {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}"}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sidecar.cli", "redact", str(data)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="the baseline's compiled engine")
    parser.add_argument(
        "--baseline-python",
        metavar="REV",
        help="the redaction package's Python files at this git revision in the baseline",
    )
    parser.add_argument("--rounds", type=int, default=2, help="runs of each engine, taking turns")
    parser.add_argument("--min-seconds", type=float, default=1.0, help="per timed pass")
    parser.add_argument("--cli-mb", type=float, default=4.0, help="MB of input to redact")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        sys.stdout.write(json.dumps(_child(args.min_seconds)))
        return
    if args.baseline is None:
        parser.error("--baseline is required")
    with tempfile.TemporaryDirectory() as tmp:
        before = _baseline_tree(args.baseline, Path(tmp), args.baseline_python)
        engines = {"before": str(before), "after": str(ROOT)}
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in engines}
        for _ in range(args.rounds):
            for name, path in engines.items():
                results[name].append(_run_child(path, args.min_seconds))
        _report(results)
        _report_traces(results)
        _cli(engines, args.cli_mb, args.rounds, Path(tmp))


def _report(results: dict[str, list[dict[str, Any]]]) -> None:
    before, after = results["before"][0], results["after"][0]
    out = sys.stdout.write
    out(f"before: {before['engine']}\nafter: {after['engine']}\n")
    out("recall per class, held-out split (200 cases each): before -> after\n")
    for name in before["recall"]:
        out(f"  {name:<36} {before['recall'][name]:.3f} -> {after['recall'][name]:.3f}\n")
    for label, r in (("before", before), ("after", after)):
        kept, total = r["must_stay"]
        out(f"must-stay rate, held-out ({label}): {kept / total:.3f} ({kept} of {total})\n")
    for label, r in (("before", before), ("after", after)):
        kept, total = r["lists"]
        out(f"lists of numbers kept, generated ({label}): {kept / total:.3f} ({kept} of {total})\n")
    out("generated corpus, held-out split, recall (found/labelled, false positives):\n")
    for t in before["corpus"]:
        b, a = before["corpus"][t], after["corpus"][t]
        out(f"  {t:<12} {b[0]}/{b[1]} fp {b[2]}  ->  {a[0]}/{a[1]} fp {a[2]}\n")
    for kind in ("positive", "negative"):
        b = max(r["speed"][kind] for r in results["before"])
        a = max(r["speed"][kind] for r in results["after"])
        out(
            f"Redactor.detect, dev {kind} texts: before {b:.2f} MB/s, after {a:.2f} MB/s, "
            f"time after/before {b / a:.3f}x\n"
        )


def _report_traces(results: dict[str, list[dict[str, Any]]]) -> None:
    b = min(r["speed"]["trace"] for r in results["before"])
    a = min(r["speed"]["trace"] for r in results["after"])
    sys.stdout.write(
        f"Redactor.redact, 6 KB traces: before {b:.1f} us, after {a:.1f} us of CPU per trace, "
        f"time after/before {a / b:.3f}x\n"
    )


def _cli(engines: dict[str, str], mb: float, rounds: int, tmp: Path) -> None:
    from tests.support.redaction_corpus import load_corpus

    lines = [json.dumps({"text": line["text"]}) + "\n" for line in load_corpus("dev")]
    data, empty = tmp / "texts.jsonl", tmp / "empty.jsonl"
    with data.open("w", encoding="utf-8") as f:
        written = 0
        while written < mb * 1e6:
            for line in lines:
                written += f.write(line)
    empty.write_text("", encoding="utf-8")
    size = data.stat().st_size / 1e6
    best = {name: [math.inf, math.inf] for name in engines}
    for _ in range(rounds):
        for name, path in engines.items():
            best[name][0] = min(best[name][0], _cli_seconds(path, empty))
            best[name][1] = min(best[name][1], _cli_seconds(path, data))
    for name, (startup, whole) in best.items():
        sys.stdout.write(
            f"citewatch redact ({name}): start-up {startup:.2f} s; {size:.1f} MB in "
            f"{whole:.2f} s, {size / (whole - startup):.2f} MB/s after start-up\n"
        )
    b, a = (best[n][1] - best[n][0] for n in ("before", "after"))
    sys.stdout.write(f"citewatch redact, time after/before (start-up apart): {a / b:.3f}x\n")


if __name__ == "__main__":
    main()
