"""The decodings the injection check reads through: a base64 run to the text it stands
for, a URL to words, and a caller's string with lone surrogates to one RE2 can read."""

from __future__ import annotations

import base64
import binascii
import urllib.parse

__all__ = ["decoded_base64", "encodable", "url_text"]


def decoded_base64(run: str) -> str | None:
    """The text a base64 run stands for, when it plausibly is text (None otherwise)."""
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = (
            base64.urlsafe_b64decode(padded)
            if ("-" in body or "_" in body)
            else base64.b64decode(padded, validate=True)
        )
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    printable = sum(char.isprintable() or char in "\n\t" for char in text)
    words = " " in text or sum(not char.isascii() and char.isalpha() for char in text) * 2 > len(
        text
    )  # spaces between words, or mostly letters of a script written without them
    if not words or printable < 0.95 * len(text):
        return None
    return text


_SURROGATES = dict.fromkeys(range(0xD800, 0xE000), 0xFFFD)


def encodable(text: str) -> str:
    """``text`` with lone surrogates (which no UTF-8 engine can read) as U+FFFD, one
    character for one, so offsets stay those of ``text``. Decoded traces never carry them;
    a caller's own string might."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.translate(_SURROGATES)
    return text


def url_text(url: str | None) -> str:
    """A URL as text: percent-escapes decoded, ``+``, ``/``, ``?``, ``&``, ``=`` and ``_``
    read as spaces, so an instruction written into a path or a query reads as words."""
    if not url:
        return ""
    if "%" in url or "+" in url:
        url = urllib.parse.unquote_plus(url, errors="replace")
    if url.isascii():
        # The same mapping as bytes: one C-level translate, about 5x a str.translate
        # through a dict on a URL's few dozen characters.
        return url.encode("ascii").translate(_URL_SPACE_BYTES).decode("ascii")
    return url.translate(_URL_SPACES)


_URL_SPACES = str.maketrans(dict.fromkeys("/?&=_#", " "))
_URL_SPACE_BYTES = bytes(ord(" ") if chr(b) in "/?&=_#" else b for b in range(256))
