"""Text addressed to a model inside a trace: the ``injection_suspect`` check and its spans.

A retrieved source (or the question, or the answer) that tells a model to ignore its
instructions, carries chat role markers or template tokens, or speaks the judge's own
vocabulary (``evidence_quote``, ``"verdict":``) is trying to steer whoever reads it. The
check flags it (severity warning: the text is reported, never removed), and the judge's
quote check refuses evidence quoted from a flagged span: a verdict resting on text that
addresses the judge is not verified.

The pattern list below is the one place these rules live. Every pattern is plain ``re``
without a quantifier inside another quantifier and with every repeat bounded, and a rule is
only tried where one of its literals occurs: one try costs a constant, so a scan is linear
in the text (tests check the structure).

A flagged span runs from the start of the line of a match to the end of its paragraph (the
next blank line, or the end of the text): an injected instruction usually carries the
answer it wants on the same line or the lines right after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sidecar._regex import compile_linear
from sidecar.checks.analysis import Analysis
from sidecar.checks.base import Finding

__all__ = ["INJECTION_PATTERNS", "InjectionCheck", "injection_spans", "outside_injections"]

INJECTION_PATTERNS: tuple[tuple[str, str], ...] = (
    # "Ignore all previous instructions", "disregard the above rules", "override your prompt".
    ("override_instructions",
     r"\b(?:ignore|disregard|forget|override|bypass)\b[^\n]{0,30}?"
     r"\b(?:previous|prior|above|earlier|preceding|all|any|your|system|original)\b[^\n]{0,20}?"
     r"\b(?:instructions?|prompts?|rules|directions|directives|guidelines)\b"),
    # A chat role at the start of a line: "system:", "developer:".
    ("role_marker", r"^[ \t]{0,8}(?:system|developer)[ \t]{0,4}:"),
    # Chat template tokens of common model families.
    ("template_token",
     r"<\|(?:im_start|im_end|system|user|assistant|begin_of_text|start_header_id|"
     r"end_header_id|eot_id|endoftext)\|>|\[/?INST\]|<</?SYS>>"),
    # Instruction-tuning headers: "### Instruction:", "### Response" alone on its line.
    ("instruction_header",
     r"^[ \t]{0,8}#{2,4}[ \t]{0,4}(?:instruction|response|system(?: prompt)?)"
     r"(?:[ \t]{0,4}:|[ \t]{0,4}$)"),
    # The judge's own vocabulary: field names of its reply, verdict assignments.
    ("judge_vocabulary",
     r"\bevidence_quote\b|\bclaim_id\b|\"verdicts?\"[ \t]{0,3}:|"
     r"\bverdict[ \t]{0,3}[:=][ \t]{0,3}[\"']?(?:supported|partial|unsupported)\b"),
    # Telling the reader how to label claims.
    ("label_request",
     r"\b(?:mark|judge|rate|label|classify|treat)[ \t]{1,3}(?:this|these|the|every|all|each)"
     r"[ \t]{1,3}(?:claims?|statements?|answers?)[ \t]{1,3}as[ \t]{1,3}"
     r"(?:supported|true|correct|verified)\b"),
)
"""(name, pattern) of every rule; matched case-insensitively, ``^`` and ``$`` per line."""

_FLAGS = re.IGNORECASE | re.MULTILINE
_RULES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, _FLAGS) for name, pattern in INJECTION_PATTERNS
}
_COMBINED = re.compile(
    "|".join(f"(?P<{name}>{pattern})" for name, pattern in INJECTION_PATTERNS), _FLAGS
)
_FOLD = str.maketrans({"\u017f": "s", "\u0131": "i"})
_PARAGRAPH_END = re.compile(r"\n[ \t\r\f\v]*\n")

# Each rule can only match where one of its literals occurs (lower case), at that position
# or, for the rules anchored at a line start, at the start of that line. Finding literals
# with str.find and trying a rule only there is several times faster than running the
# combined pattern at every position of every text.
_TRIGGERS: tuple[tuple[str, str, bool], ...] = (
    *(("override_instructions", word, False)
      for word in ("ignore", "disregard", "forget", "override", "bypass")),
    ("role_marker", "system", True),
    ("role_marker", "developer", True),
    ("template_token", "<|", False),
    ("template_token", "[inst]", False),
    ("template_token", "[/inst]", False),
    ("template_token", "<<sys>>", False),
    ("template_token", "<</sys>>", False),
    ("instruction_header", "##", True),
    *(("judge_vocabulary", word, False)
      for word in ("evidence_quote", "claim_id", '"verdict', "verdict")),
    *(("label_request", word, False)
      for word in ("mark", "judge", "rate", "label", "classify", "treat")),
)
"""(rule, lower-case literal every match of the rule contains, whether the rule is anchored
at the start of the literal's line rather than at the literal)."""


def _is_word(literal: str) -> bool:
    return all(char.isascii() and (char.isalnum() or char == "_") for char in literal)


_WORDS = frozenset(lit.encode("ascii") for _, lit, _ in _TRIGGERS if _is_word(lit))
_OTHERS = tuple(sorted({lit for _, lit, _ in _TRIGGERS if not _is_word(lit)}))
_WORD_SPLIT = bytes(
    byte if chr(byte).isalnum() or byte == ord("_") else ord(" ") for byte in range(128)
).ljust(256, b" ")
"""Maps every ASCII byte that is not a word character (as ``\\b`` sees them) to a space."""


def _wanted(lower: str) -> tuple[tuple[str, str, bool], ...]:
    """The triggers worth searching for in the lower-cased ``lower``.

    Every word literal is matched with a word boundary before it and a non-word character
    after it (``\\bignore\\b``, ``\\bmark[ \\t]``, a role name between the line start and
    its colon), and so is any other alternative of its rule that can start where the literal
    does: a rule can only match where the literal is a whole token. In ASCII text the tokens
    come from one C-speed translate and split, so a text without any trigger word costs that
    instead of one substring search per literal. Other literals start with punctuation: the
    literal is searched for only when its first character occurs. Text with non-ASCII
    characters searches for every literal.
    """
    if not lower.isascii():
        return _TRIGGERS
    tokens = lower.encode("ascii").translate(_WORD_SPLIT).split()
    # A first-character test (memchr) spares most of the substring searches.
    others = {lit for lit in _OTHERS if lit[0] in lower and lit in lower}
    if not others and _WORDS.isdisjoint(tokens):
        return ()  # the common case: nothing to search for
    present = others.union(word.decode("ascii") for word in _WORDS.intersection(tokens))
    return tuple(trigger for trigger in _TRIGGERS if trigger[1] in present)


_SCREEN = compile_linear("(?i)" + "|".join(
    [r"\b(?:" + "|".join(sorted(word.decode("ascii") for word in _WORDS)) + r")\b"]
    + [re.escape(literal) for literal in _OTHERS]
))
"""Whether :func:`_wanted` would find any trigger in the lower-cased ASCII text, as one RE2
scan (a DFA, no token list) of the text before lower-casing: ASCII ``\\b`` sees the word
characters the split above does, and ASCII case folding is what ``lower`` does there."""


def _matches_everywhere(text: str) -> Iterator[tuple[str, int]]:
    for match in _COMBINED.finditer(text):
        assert match.lastgroup is not None
        yield match.lastgroup, match.start()


def _matches(
    text: str, triggers: tuple[tuple[str, str, bool], ...] | None = None
) -> list[tuple[str, int]]:
    """(rule, start) of rule matches, sorted by start; ``triggers`` (all of them, when
    given) bypasses the choice of the triggers worth searching for."""
    # The letters that case-insensitive matching equates with an ASCII letter but lower()
    # leaves apart (long s, dotless i) are folded too, so a trigger cannot be dodged by them.
    lower = text.lower() if text.isascii() else text.lower().translate(_FOLD)
    if len(lower) != len(text):
        # Lower-casing moved offsets (a few non-ASCII letters): the plain scan.
        return list(_matches_everywhere(text))
    found: set[tuple[str, int]] = set()
    for rule, literal, at_line_start in _wanted(lower) if triggers is None else triggers:
        pattern = _RULES[rule]
        line_start = scanned = 0
        tried = -1
        at = lower.find(literal)
        while at >= 0:
            start = at
            if at_line_start:
                # Only the text since the previous occurrence is searched for a line break,
                # so finding line starts stays linear however many occurrences there are.
                newline = text.rfind("\n", scanned, at)
                if newline >= 0:
                    line_start = newline + 1
                scanned, start = at, line_start
            if start != tried and pattern.match(text, start) is not None:
                found.add((rule, start))
            tried = start
            at = lower.find(literal, at + 1)
    return sorted(found, key=lambda item: item[1])


def injection_spans(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) spans of ``text`` flagged as addressed to a model."""
    spans: list[tuple[int, int]] = []
    covered = -1
    for _, at in _matches(text):
        if at < covered:
            continue  # inside the paragraph already flagged
        start = text.rfind("\n", 0, at) + 1
        paragraph = _PARAGRAPH_END.search(text, at)
        end = paragraph.start() if paragraph else len(text)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        covered = end
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
    return sorted({name for name, _ in _matches(text)})


class InjectionCheck:
    """``injection_suspect`` when the question, the answer or a source addresses a model."""

    name: str = "injection"
    codes: tuple[str, ...] = ("injection_suspect",)

    def run(self, analysis: Analysis) -> list[Finding]:
        trace = analysis.trace
        whole = "\n".join((trace.question, trace.answer, *(s.text for s in trace.sources)))
        # No trigger anywhere: one pass over the trace instead of one per text.
        if whole.isascii():
            if _SCREEN.search(whole) is None:
                return []
        else:
            lower = whole.lower()
            if lower.isascii() and not _wanted(lower):
                return []
        findings = []
        for field, text in (("question", trace.question), ("answer", trace.answer)):
            rules = injection_rules(text)
            if rules:
                findings.append(Finding("injection_suspect", "warning",
                                        detail=f"field={field};rules={','.join(rules)}"))
        for source in trace.sources:
            rules = injection_rules(source.text)
            if rules:
                findings.append(Finding("injection_suspect", "warning", source_id=source.id,
                                        detail=f"field=source;rules={','.join(rules)}"))
        return findings
