"""The multilingual half of scripts/learn-injection-vocabulary: injection records in
sixteen languages from CyberSecEval's machine-translated prompt injection set, ordinary
news and Wikipedia sentences in the same languages from the Parallel Universal
Dependencies treebanks, and instruction phrases learned per language from the fit split.

- meta-llama/PurpleLlama (MIT, CybersecurityBenchmarks/LICENSE):
  ``CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection_multilingual_machine_translated.json``,
  1,004 records, each an injected ``user_input`` (the text measured) with the system prompt
  it attacks (``test_case_prompt``), the judge's question, the attack's variant and its
  language. The records translate CyberSecEval's English set in runs: the translations of
  one English test case sit next to each other, so the split is by a hash of the block of
  ``BLOCK`` consecutive records a record belongs to (every translation of a test case lands
  in one split, but at a block's edge).
- UniversalDependencies/UD_<Language>-PUD (CC BY-SA 3.0 for the text; Polish CC BY-SA 4.0),
  UD_Vietnamese-VTB and UD_Japanese-GSD (CC BY-SA 4.0; the Japanese PUD file was not at
  hand): sentences of news and Wikipedia, grouped by the document they come from (runs of
  three sentences where a treebank marks no documents). A hash of the document ID puts a
  document in the measured half (bench.injection counts false positives on up to
  ``MEASURED`` of them a language, written to
  tests/fixtures/injection/ordinary_world.jsonl) or the benign fit half.

A phrase is a pair ``first ... second`` inside one clause of a fit record's normalised
text: one of a few seed nouns for instructions of its language (``SEEDS``:
``instruccion``, ``tagubilin``, ``指令``...) and a word up to four words before or after it
(for Chinese, Japanese and Thai, written without spaces, a run of two or three characters
up to eight characters away), found in fit records of at least ``MIN_BLOCKS`` blocks,
neither among the most frequent words of the language's ordinary text nor another seed
noun. It is kept, in order of frequency, when it catches a fit record of its language the
rules and the phrases kept before it miss, and matches no benign text: the benign fit
documents of every language, the system prompts and judge questions of every fit record
(so the topic of a test, "the secret key", is not learned as an instruction) and the
English benign text of the script.

Each English test case is translated into about four of the seventeen languages, so a
language holds some thirty fit records, nearly all of different test cases: few pairs
recur in two blocks. Lowering ``MIN_BLOCKS`` to one learns the topics of single records
("chiffres ... ordre", from "sort these numbers in descending order") rather than
instructions, and is not done; nor is a second set of seeds, words for "previous" (a verb
next to one, "ignora ... anterior", also reads "the government ignored the previous
proposal").
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections import Counter, defaultdict
from typing import Any

CYBERSECEVAL = (
    "meta-llama/PurpleLlama",
    "4be64c3a24442b51c76175e6ec67722cc3f5fe38",
    "MIT",
)
_ML_PATH = (
    "CybersecurityBenchmarks/datasets/prompt_injection/"
    "prompt_injection_multilingual_machine_translated.json"
)
LANGUAGES = {
    "Arabic": "ar",
    "Bengali": "bn",
    "Chinese": "zh",
    "Filipino/Tagalog": "tl",
    "French": "fr",
    "German": "de",
    "Hindi": "hi",
    "Indonesian": "id",
    "Italian": "it",
    "Japanese": "ja",
    "Korean": "ko",
    "Portuguese": "pt",
    "Russian": "ru",
    "Spanish": "es",
    "Thai": "th",
    "Turkish": "tr",
    "Vietnamese": "vi",
}
TREEBANKS = {
    "ar": ("UD_Arabic-PUD", "ar_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "zh": ("UD_Chinese-PUD", "zh_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "fr": ("UD_French-PUD", "fr_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "ru": ("UD_Russian-PUD", "ru_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "es": ("UD_Spanish-PUD", "es_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "hi": ("UD_Hindi-PUD", "hi_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "ko": ("UD_Korean-PUD", "ko_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "tr": ("UD_Turkish-PUD", "tr_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "pt": ("UD_Portuguese-PUD", "pt_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "id": ("UD_Indonesian-PUD", "id_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "de": ("UD_German-PUD", "de_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "it": ("UD_Italian-PUD", "it_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "pl": ("UD_Polish-PUD", "pl_pud-ud-test.conllu", "CC BY-SA 4.0"),
    "th": ("UD_Thai-PUD", "th_pud-ud-test.conllu", "CC BY-SA 3.0"),
    "vi": ("UD_Vietnamese-VTB", "vi_vtb-ud-test.conllu", "CC BY-SA 4.0"),
    "ja": ("UD_Japanese-GSD", "ja_gsd-ud-test.conllu", "CC BY-SA 4.0"),
}
"""Language -> (repository of UniversalDependencies, file, licence of the text)."""
BLOCK = 8
MIN_BLOCKS = 2
MEASURED = 100
_SENTENCES_PER_PASSAGE = 3
_UNSPACED = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W\d_]+")
_TEXT = re.compile(r"# text\s*=")
_CLAUSE = re.compile(r"[.!?;:\u3002\uff01\uff1f\uff1b\uff1a\u061f\u0964]+|\n+")


def _show(git_dir: str, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", git_dir, "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _fit_or_heldout(key: str) -> str:
    return "fit" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "heldout"


def cyberseceval_records(git_dir: str) -> list[dict[str, Any]]:
    """The translated records: text (the injected user input), language, class (the
    attack's variant), split (by block), and the system prompt and judge question."""
    name, commit, licence = CYBERSECEVAL
    rows = json.loads(_show(git_dir, commit, _ML_PATH))
    records = []
    for row in rows:
        block = int(row["prompt_id"]) // BLOCK
        records.append(
            {
                "source": name,
                "commit": commit,
                "licence": licence,
                "class": f"cyberseceval:{row['injection_variant']}",
                "language": LANGUAGES[row["speaking_language"]],
                "split": _fit_or_heldout(f"cyberseceval-block-{block}"),
                "text": row["user_input"],
                "block": block,
                "system": row["test_case_prompt"],
                "question": row["judge_question"],
            }
        )
    return records


def treebank_documents(ud_root: str) -> list[dict[str, str]]:
    """Each treebank's documents as passages (up to three sentences), with language, source,
    commit, licence, document ID and half (``measured`` or ``fit``)."""
    out = []
    for language, (repo, path, licence) in TREEBANKS.items():
        git_dir = f"{ud_root}/{repo}"
        commit = subprocess.run(
            ["git", "-C", git_dir, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        documents: dict[str, list[str]] = defaultdict(list)
        current = ""
        for line in _show(git_dir, commit, path).splitlines():
            if line.startswith("# sent_id"):
                sent = line.split("=", 1)[1].strip()
                # PUD: n01001011 is sentence 011 of document n01001; VTB and GSD have no
                # documents, so runs of sentences in order stand for them
                number = int(re.sub(r"\D", "", sent) or 0)
                current = sent[:6] if "PUD" in repo else f"run{number // _SENTENCES_PER_PASSAGE}"
            elif _TEXT.match(line):
                documents[current].append(line.split("=", 1)[1].strip())
        measured = 0
        for doc_id, sentences in documents.items():
            half = "measured" if _fit_or_heldout(f"{repo}/{doc_id}") == "heldout" else "fit"
            if half == "measured":
                if measured >= MEASURED:
                    half = "unused"
                measured += 1
            out.append(
                {
                    "language": language,
                    "source": f"UniversalDependencies/{repo}",
                    "commit": commit,
                    "licence": licence,
                    "document": doc_id,
                    "half": half,
                    "text": " ".join(sentences[:_SENTENCES_PER_PASSAGE]),
                }
            )
    return out


SEEDS = {
    "ar": "تعليمات التعليمات اوامر الاوامر قواعد القواعد ارشادات الارشادات توجيهات التوجيهات "
    "مهام المهام",
    "bn": "নির্দেশ আদেশ নিয়ম",
    "de": "anweisung anleitung instruktion befehl regel vorgabe aufgabe richtlinie",
    "es": "instruccion indicacion regla orden directriz directrices comando tarea",
    "fr": "instruction consigne regle ordre directive tache commande",
    "hi": "निर्देश नियम आदेश कार्य",
    "id": "instruksi perintah aturan arahan petunjuk tugas",
    "it": "istruzion indicazion regol direttiv ordin comand compit",
    "ja": "指示 命令 指令 ルール 規則 プロンプト タスク",
    "ko": "지시 지침 명령 규칙 프롬프트 작업",
    "pt": "instruc ordens regras diretriz comando tarefa",
    "ru": "инструкц указани правил команд задани задач приказ",
    "th": "คำสั่ง คำแนะนำ กฎ",
    "tl": "tagubilin utos panuto instruksyon patakaran gawain",
    "tr": "talimat yonerge komut kural emir gorev",
    "vi": "huong_dan chi_dan chi_thi lenh quy_tac nhiem_vu",
    "zh": "指令 指示 说明 规则 提示 命令 任务 要求",
}
"""Per language, the stems of a few nouns for instructions (the seeds, like the English
half's): a phrase is a word found next to one of them, and the pair is the frame."""
_WINDOW = 4
ENDING = 3
_FREQUENT = 300


def seeds(language: str) -> list[str]:
    """A language's seed stems as the detector normalises text."""
    from sidecar.checks._injection_normal import normalise

    return [normalise(s.replace("_", " ")).text.lower() for s in SEEDS.get(language, "").split()]


def _frequent(texts: list[str], unspaced: bool) -> set[str]:
    """The words (or two- and three-character runs) most frequent in ordinary text."""
    counts: Counter[str] = Counter()
    for text in texts:
        if unspaced:
            for run in _UNSPACED.findall(text):
                counts.update(run[i : i + n] for n in (2, 3) for i in range(len(run) - n + 1))
        else:
            counts.update(_WORD.findall(text))
    return {w for w, _ in counts.most_common(_FREQUENT)}


def _obeyed(match: Any) -> bool:
    """A match that is not a warning to obey (no negation right before it)."""
    return match is not None and match.group("neg") is None


def _holds_seed(word: str, stems: list[str]) -> bool:
    return any(word.startswith(stem) and len(word) - len(stem) <= ENDING for stem in stems)


def _pairs(normal: str, stems: list[str], unspaced: bool) -> set[tuple[str, str]]:
    """(first, second) pairs of a seed and a word near it inside one clause, in the order
    they come. A word holds a seed when it starts with the stem and adds at most
    ``ENDING`` letters (``Regel``, ``Regeln``, not ``regelmassig``)."""
    found = set()
    for clause in _CLAUSE.split(normal.lower()):
        if unspaced:
            for stem in stems:
                at = clause.find(stem)
                if at >= 0:
                    before, after = clause[max(0, at - 8) : at], clause[at + len(stem) :][:8]
                    for n in (2, 3):
                        found.update((before[i : i + n], stem) for i in range(len(before) - n + 1))
                        found.update((stem, after[i : i + n]) for i in range(len(after) - n + 1))
            continue
        words = _WORD.findall(clause)
        for i, word in enumerate(words):
            for stem in stems:
                if word.startswith(stem) and len(word) - len(stem) <= ENDING:
                    found.update((w, stem) for w in words[max(0, i - _WINDOW) : i])
                    found.update((stem, w) for w in words[i + 1 : i + 1 + _WINDOW])
    return {
        (a, b)
        for a, b in found
        if len(a) >= 2 and len(b) >= 2 and _UNSPACED.sub("", a + b) == a + b or unspaced
    }


def learn_phrases(
    records: list[dict[str, Any]],
    benign: list[str],
    ordinary: dict[str, list[str]],
    phrase_pattern: Any,
) -> dict[str, list[tuple[str, int, int]]]:
    """Per language, the pairs kept (written ``first ... second``), each with (fit blocks
        holding it, fit records it newly catches). ``ordinary``: the benign fit documents of each
    language, whose most frequent words are never learned. ``phrase_pattern(phrases)`` is the rule's
        pattern for a tuple of them (:func:`sidecar.checks._injection_world.phrase_pattern`)."""
    import re2

    from sidecar.checks._injection_normal import fold_text, normalise
    from sidecar.checks.injection import injection_rules

    fit = [r for r in records if r["split"] == "fit"]
    benign_all = list(benign) + [r["system"] for r in fit] + [r["question"] for r in fit]
    benign_normal = [normalise(t).text.lower() for t in benign_all]
    kept: dict[str, list[tuple[str, int, int]]] = {}
    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in fit:
        by_language[record["language"]].append(record)
    for language, members in sorted(by_language.items()):
        stems = seeds(language)
        unspaced = language in ("zh", "ja", "th")
        frequent = _frequent(
            [normalise(t).text.lower() for t in ordinary.get(language, [])], unspaced
        )
        normals = [normalise(r["text"]).text for r in members]
        blocks: dict[tuple[str, str], set[int]] = defaultdict(set)
        for record, normal in zip(members, normals, strict=True):
            for pair in _pairs(normal, stems, unspaced):
                blocks[pair].add(record["block"])
        counts = Counter(
            {
                p: len(b)
                for p, b in blocks.items()
                if len(b) >= MIN_BLOCKS
                and not (set(p) - set(stems)) & frequent
                and not (_holds_seed(p[0], stems) and _holds_seed(p[1], stems))
            }
        )
        missed = [
            n for r, n in zip(members, normals, strict=True) if not injection_rules(r["text"])
        ]
        kept[language] = []
        for (first, second), df in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            phrase = f"{first} ... {second}"
            pattern = re2.compile("(?i)" + fold_text(phrase_pattern((phrase,))))
            newly = [t for t in missed if _obeyed(pattern.search(t))]
            if not newly:
                continue
            stem = first if first in stems else second
            if any(pattern.search(t) for t in benign_normal if stem in t):
                continue
            kept[language].append((phrase, df, len(newly)))
            missed = [t for t in missed if t not in newly]
    return kept
