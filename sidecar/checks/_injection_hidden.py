"""Injection rules read on the text as written, before normalising: what hides text from a
reader or forges structure, which normalising would erase.

- ``obfuscated_text``: Unicode tag characters (U+E0000 block: invisible, yet a model reads
  the ASCII they spell), bidi overrides, embeddings and isolates (text shown in another
  order than it is read), and runs of two or more other invisible format characters.
  :func:`visible` removes them all; the judge packet is built from visible text.
- ``hidden_markup``: an HTML comment of three words or more, a markdown comment
  (``[//]: # (...)``, ``[comment]: <> (...)``), and inline styles or attributes that hide
  text (``display:none``, ``font-size:0``, ``hidden``).
- ``packet_structure``: text that closes a JSON string and object to open the judge
  packet's own keys, or opens a packet of its own (``{"claims": [``, ``"}],"verdicts":``).

Every pattern is RE2 (linear in the text); none needs the text normalised.
"""

from __future__ import annotations

from sidecar._regex import compile_linear

__all__ = ["HIDDEN_RULES", "TAG_CHARS", "tag_text", "visible"]

_TAGS = "\U000e0000-\U000e007f"
_BIDI = "\u202a-\u202e\u2066-\u2069"
_INVISIBLE = "\u200b-\u200f\u2060-\u2064\ufeff\u00ad\u180e\u034f\u061c"
_KEYS = "question|passages|claims|cites|claim_id|verdicts?|evidence_quote"

HIDDEN_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "obfuscated_text",
        (rf"[{_TAGS}]", rf"[{_BIDI}]", rf"[{_INVISIBLE}]{{2,}}"),
    ),
    (
        "hidden_markup",
        (
            r"<!--\s{0,8}[^\s<>-]{1,40}(?:\s{1,8}[^\s<>-]{1,40}){2}",
            r"(?m)^[ \t]{0,3}\[(?://|comment|#|_)\]:[ \t]{0,3}(?:#|<>)",
            r"(?i)style[ \t]{0,2}=[ \t]{0,2}[\"'][^\"'<>]{0,200}"
            r"(?:display[ \t]{0,2}:[ \t]{0,2}none|"
            r"visibility[ \t]{0,2}:[ \t]{0,2}hidden|font-size[ \t]{0,2}:[ \t]{0,2}0(?:px|pt|em|%)?"
            r"[ \t]{0,2}[;\"']|opacity[ \t]{0,2}:[ \t]{0,2}0(?:\.0{1,4})?[ \t]{0,2}[;\"'])",
            r"(?i)<(?:span|div|p|font|section)\b[^<>]{0,200}\shidden(?:[\s/>=])",
        ),
    ),
    (
        "packet_structure",
        (
            r"\"[ \t]{0,3}[}\]][ \t\n]{0,3}[}\]]?[ \t\n]{0,3},[ \t\n]{0,3}"
            rf"\"(?:{_KEYS}|id|text)\""
            r"[ \t]{0,3}:",
            rf"\{{[ \t\n]{{0,3}}\"(?:{_KEYS})\"[ \t]{{0,3}}:",
            r"\"(?:passages|claims|cites|verdicts)\"[ \t]{0,3}:[ \t\n]{0,3}\[",
        ),
    ),
)
"""(rule name, its patterns), matched on the text as written."""

TAG_CHARS = compile_linear(rf"[{_TAGS}]+")
"""A run of tag characters."""
_JOINERS = "\u200c\u200d"
_LONE = "\u200b\u2060\ufeff\u00ad"
_HIDDEN = compile_linear(f"[{_TAGS}{_BIDI}]+|[{_INVISIBLE}{_JOINERS}]{{2,}}|[{_LONE}]")


def tag_text(run: str) -> str:
    """The ASCII a run of tag characters spells (U+E0020-E007E; the others dropped)."""
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def visible(text: str) -> str:
    """``text`` without tag characters, bidi controls, runs of invisible format characters
    and lone zero-width spaces, word joiners, byte order marks and soft hyphens (a lone
    zero-width joiner or non-joiner stays: scripts and emoji need them)."""
    if text.isascii():
        return text
    try:
        return str(_HIDDEN.sub("", text))
    except UnicodeEncodeError:
        # A lone surrogate (a caller's own string; decoded traces never carry one) is no
        # UTF-8: the text around each is cleaned, and the surrogate kept where it was.
        parts, start = [], 0
        for at, char in enumerate(text):
            if "\ud800" <= char <= "\udfff":
                parts.append(visible(text[start:at]) + char)
                start = at + 1
        parts.append(visible(text[start:]))
        return "".join(parts)
