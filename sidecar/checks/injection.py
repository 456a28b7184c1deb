"""Text addressed to a model inside a trace: the ``injection_suspect`` check and its spans.

A retrieved source (or the question, or the answer) that tells a model to ignore its
instructions, hands it a new role or new instructions, asks it to label claims supported,
to keep something from the user or to reveal its prompt, carries chat role markers or
template tokens, or speaks the judge's own vocabulary (``evidence_quote``, ``"verdict":``)
is trying to steer whoever reads it. The check flags it (severity warning: the text is
reported, never removed), and the judge's quote check refuses evidence quoted from a
flagged span: a verdict resting on text that addresses the judge is not verified.

The rules (:mod:`sidecar.checks._injection_rules`) are written in English, German, French,
Spanish, Portuguese, Italian, Chinese and Japanese, and run on the text as
:mod:`sidecar.checks._injection_normal` normalises it (NFKC, format characters dropped,
look-alike letters folded, HTML decoded, markdown emphasis removed); a run of base64 that
decodes to text is checked too (rule ``encoded_instruction``). Matches map back to the
original text: spans are always in its coordinates.

Linear time: every pattern is RE2. One RE2 set (a single DFA pass) says which patterns
match the normalised text; only those are searched again for their positions
(:mod:`sidecar.checks._injection_sets` compiles each set and pattern the first time a text
needs it, and leaves the rules of other scripts out of the set for ASCII text); each base64
run is decoded and checked once, without going deeper than two levels. ``_scan`` counts
the characters every pass was handed (``work``), which tests hold to a constant times the
text's length.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from operator import attrgetter

from sidecar._regex import compile_linear
from sidecar.checks._injection_decode import decoded_base64, encodable, url_text
from sidecar.checks._injection_hidden import HIDDEN_RULES, TAG_CHARS, tag_text, visible
from sidecar.checks._injection_normal import normalise
from sidecar.checks._injection_rules import RULES
from sidecar.checks._injection_sets import RuleSets
from sidecar.checks.analysis import Analysis
from sidecar.checks.base import Finding

__all__ = [
    "INJECTION_PATTERNS",
    "InjectionCheck",
    "injection_rules",
    "injection_spans",
    "outside_injections",
    "split_cuts",
    "split_rules",
    "visible",
]

INJECTION_PATTERNS: tuple[tuple[str, str], ...] = tuple(
    (name, pattern) for name, patterns in RULES for pattern in patterns
)
"""(rule name, pattern) of every pattern; matched with ``(?i)`` on normalised text."""

ENCODED_RULE = "encoded_instruction"
_TEXT, _ID, _TITLE = attrgetter("text"), attrgetter("id"), attrgetter("title")
"""A source's text, a source's or a claim's ID, a source's title, read in C."""
_MAX_DEPTH = 2

RAW_PATTERNS: tuple[tuple[str, str], ...] = tuple(
    (name, pattern) for name, patterns in HIDDEN_RULES for pattern in patterns
)
"""(rule name, pattern) of the rules matched on the text as written
(:mod:`sidecar.checks._injection_hidden`)."""

_SETS = RuleSets(
    tuple(pattern for _, pattern in INJECTION_PATTERNS),
    tuple(pattern for _, pattern in RAW_PATTERNS),
)
"""The rules and the raw rules, compiled the first time a text needs them."""
_NAMES = tuple(name for name, _ in INJECTION_PATTERNS)
_NEGATABLE = tuple("(?P<neg" in pattern for _, pattern in INJECTION_PATTERNS)
_RAW_NAMES = tuple(name for name, _ in RAW_PATTERNS)
_BASE64 = compile_linear(r"[A-Za-z0-9+/]{20,}={0,2}|[A-Za-z0-9_-]{20,}={0,2}")
_PARAGRAPH_END = compile_linear(r"\n(?:[ \t\r\f\v]*\n)+")
_SENTENCE_END = compile_linear("[.!?\u3002\uff01\uff1f][\"')\\]]{0,2}(?:\\s|$)")
NEIGHBOUR_REACH = 600
"""A neighbouring paragraph up to this many characters is flagged whole; a longer one only
in its sentence next to the flagged paragraph."""


@dataclass(slots=True)
class _Scan:
    hits: list[tuple[str, int, int]] = field(default_factory=list)
    work: int = 0


def _scan(text: str, depth: int = 0) -> _Scan:
    """Every rule match in ``text``: (rule, start, end) in its coordinates."""
    try:
        return _scanencodable(text, depth)
    except UnicodeEncodeError:
        return _scanencodable(encodable(text), depth)


def _scanencodable(text: str, depth: int) -> _Scan:
    scan = _Scan()
    normal = normalise(text)
    scan.work += normal.work + len(normal.text)
    rules, raw = _SETS.matches(normal.text, text)
    for index in rules:
        name, negatable = _NAMES[index], _NEGATABLE[index]
        scan.work += len(normal.text)
        for match in _SETS.rule(index).finditer(normal.text):
            if negatable and any(match.groupdict().values()):
                continue  # a negation or a description around the words: not an instruction
            start, end = normal.original(*match.span())
            scan.hits.append((name, start, end))
    for index in raw:
        name = _RAW_NAMES[index]
        scan.work += len(text)
        scan.hits.extend((name, *match.span()) for match in _SETS.raw_rule(index).finditer(text))
    if depth < _MAX_DEPTH:
        scan.work += len(text)
        if not text.isascii():
            # Tag characters spell ASCII a model reads and a person never sees.
            for match in TAG_CHARS.finditer(text):
                inner = _scan(tag_text(match.group()), depth + 1)
                scan.work += inner.work
                if inner.hits:
                    scan.hits.append((ENCODED_RULE, *match.span()))
                    scan.hits.extend((name, *match.span()) for name, _, _ in inner.hits)
        for match in _BASE64.finditer(text):
            decoded = decoded_base64(match.group())
            if decoded is None:
                continue
            inner = _scan(decoded, depth + 1)
            scan.work += inner.work
            if inner.hits:
                scan.hits.append((ENCODED_RULE, *match.span()))
                scan.hits.extend((name, *match.span()) for name, _, _ in inner.hits)
    scan.hits.sort(key=lambda hit: (hit[1], hit[2]))
    return scan


def _paragraphs(text: str) -> list[tuple[int, int]]:
    bounds = []
    cursor = 0
    for match in _PARAGRAPH_END.finditer(text):
        bounds.append((cursor, match.start()))
        cursor = match.end()
    bounds.append((cursor, len(text)))
    return bounds


def _sentence_ends(text: str, start: int, end: int) -> list[int]:
    return [start + match.end() for match in _SENTENCE_END.finditer(text[start:end])]


def injection_spans(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) spans of ``text`` flagged as addressed to a model.

    A span covers the whole paragraph (text between blank lines) of each match, and the
    paragraph on each side of it: an injected instruction brings the answer it wants with
    it, in its own paragraph or planted in the one right before or after (the "planted
    sentence"), and a quote from there is not evidence. A neighbour longer than
    ``NEIGHBOUR_REACH`` characters is flagged only in its sentence next to the flagged
    paragraph, so one injected line does not take a whole long document with it; text
    further away stays quotable.
    """
    hits = _scan(text).hits
    if not hits:
        return []
    text = encodable(text)
    paragraphs = _paragraphs(text)
    firsts = [start for start, _ in paragraphs]
    spans: list[tuple[int, int]] = []
    for _, hit_start, hit_end in hits:
        if spans and hit_end <= spans[-1][1]:
            continue  # inside what is flagged already
        first = max(0, bisect.bisect_right(firsts, hit_start) - 1)
        last = max(first, bisect.bisect_right(firsts, max(hit_start, hit_end - 1)) - 1)
        start, end = paragraphs[first][0], paragraphs[last][1]
        if first > 0:
            before_start, before_end = paragraphs[first - 1]
            start = before_start
            if before_end - before_start > NEIGHBOUR_REACH:
                ends = _sentence_ends(text, before_start, before_end)
                inner = [at for at in ends if at < before_end]
                start = inner[-1] if inner else before_start
        if last + 1 < len(paragraphs):
            after_start, after_end = paragraphs[last + 1]
            end = after_end
            if after_end - after_start > NEIGHBOUR_REACH:
                ends = _sentence_ends(
                    text, after_start, min(after_end, after_start + NEIGHBOUR_REACH)
                )
                end = ends[0] if ends else after_end
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def outside_injections(text: str) -> list[str]:
    """The parts of ``text`` outside every flagged span (all of it when none is flagged)."""
    parts: list[str] = []
    cursor = 0
    for start, end in injection_spans(text):
        parts.append(text[cursor:start])
        cursor = end
    parts.append(text[cursor:])
    return [part for part in parts if part]


def injection_rules(text: str) -> list[str]:
    """Names of the rules that match ``text``, sorted, each once."""
    return sorted({name for name, _, _ in _scan(text).hits})


class InjectionCheck:
    """``injection_suspect`` when the question, the answer or a source addresses a model."""

    name: str = "injection"
    codes: tuple[str, ...] = ("injection_suspect",)

    def run(self, analysis: Analysis) -> list[Finding]:
        trace = analysis.trace
        sources = trace.sources
        # The sources' texts one after another: an instruction split across two of them
        # reads as one at their junction in this text too.
        whole = "\n".join(
            [
                trace.question,
                trace.answer,
                *map(_TEXT, sources),
                *map(_ID, sources),
                *map(_TITLE, sources),
                *[url_text(s.url) for s in sources if s.url],
                *map(_ID, trace.claims),
            ]
        )
        # ASCII text with nothing to normalise is its own normalised form: one set pass over
        # the whole trace says whether any text of it can match.
        if whole.isascii() and not _SETS.gate(whole):
            return []
        findings = []
        for field_name, text in (("question", trace.question), ("answer", trace.answer)):
            rules = injection_rules(text)
            if rules:
                findings.append(
                    Finding(
                        "injection_suspect",
                        "warning",
                        detail=f"field={field_name};rules={','.join(rules)}",
                    )
                )
        # IDs, titles, URLs, claim IDs and the junctions of consecutive sources in one pass
        # over the trace; one by one only when that pass finds something.
        labels = [(s.id, s.title, url_text(s.url)) for s in sources]
        claim_ids = [claim.id for claim in trace.claims]
        pairs = list(zip(sources, sources[1:], strict=False))
        junctions = [f"{a.text[-JUNCTION_REACH:]} {b.text[:JUNCTION_REACH]}" for a, b in pairs]
        any_label = bool(
            injection_rules(
                "\n\n".join((*("\n\n".join(t) for t in labels), *claim_ids, *junctions))
            )
        )
        for source, label in zip(sources, labels, strict=True):
            fields = [("source", source.text)]
            if any_label and injection_rules("\n\n".join(label)):
                fields += zip(("source_id", "source_title", "source_url"), label, strict=True)
            for field_name, text in fields:
                rules = injection_rules(text)
                if rules:
                    findings.append(
                        Finding(
                            "injection_suspect",
                            "warning",
                            source_id=source.id,
                            detail=f"field={field_name};rules={','.join(rules)}",
                        )
                    )
        for claim in trace.claims if any_label and injection_rules("\n\n".join(claim_ids)) else ():
            rules = injection_rules(claim.id)
            if rules:
                findings.append(
                    Finding(
                        "injection_suspect",
                        "warning",
                        claim_id=claim.id,
                        detail=f"field=claim_id;rules={','.join(rules)}",
                    )
                )
        for first, second in pairs if any_label else ():
            rules = split_rules(first.text, second.text)
            if rules:
                findings.extend(
                    Finding(
                        "injection_suspect",
                        "warning",
                        source_id=source.id,
                        detail=f"field=source;rules=split_instruction,{','.join(rules)}",
                    )
                    for source in (first, second)
                )
        return findings


JUNCTION_REACH = 400
"""Characters of each side of the junction of two passages read together for an
instruction split across them."""


def split_rules(before: str, after: str) -> list[str]:
    """The rules an instruction split across the end of ``before`` and the start of
    ``after`` matches, read together, that neither side matches alone (sorted; empty when
    none). Each side is read up to :data:`JUNCTION_REACH` characters from the junction."""
    tail, head = before[-JUNCTION_REACH:], after[:JUNCTION_REACH]
    if not tail.strip() or not head.strip():
        return []
    joined = set(injection_rules(f"{tail} {head}"))
    if not joined:
        return []
    return sorted(joined - set(injection_rules(tail)) - set(injection_rules(head)))


def split_cuts(before: str, after: str) -> tuple[int, int] | None:
    """Where an instruction split across two passages lies: the offset in ``before`` from
    which, and the offset in ``after`` up to which, the flagged text runs (the sentences on
    each side of the junction); None when no instruction is split across them."""
    if not split_rules(before, after):
        return None
    tail_start = max(0, len(before) - JUNCTION_REACH)
    tail, head = before[tail_start:], after[:JUNCTION_REACH]
    joined = f"{tail}\n\n{head}"
    cut_from, cut_to = len(before), 0
    for start, end in injection_spans(joined):
        if start < len(tail):
            cut_from = min(cut_from, tail_start + start)
        if end > len(tail) + 2:
            cut_to = max(cut_to, min(len(after), end - len(tail) - 2))
    return cut_from, cut_to
