"""Anthropic Messages API with citations: ``document`` and ``search_result`` blocks in the
request, the web search tool's results, text blocks whose ``citations`` carry ``cited_text``.

Mapped: every document block of the request is a source (``D1`` for ``document_index`` 0,
...), every search result block one too (``R1`` for ``search_result_index`` 0, ...), every
web search result one (``W1`` ... by URL), so uncited documents still count as retrieved;
then the envelope's ``sources`` the request does not hold. An envelope entry gives its text
to the document it names (by ``id`` ``D1``/``R1``, by ``file_id`` for a Files API document,
by ``url``): the text of PDF, URL and file documents, which the request does not carry. A
text block with citations gets markers of the sources it cites after each of its sentences,
and claims are derived from the answer's sentences. Each ``cited_text`` is kept as a quote
(``extra.cited_texts``): :class:`~sidecar.checks.quotes.CitedTextCheck` verifies it against
its document on every trace, with no judge. A quote of several content blocks, which the
API joins with no separator, is compared as the blocks joined the way the document's text
joins them.

Lost: images, tool use, thinking blocks; the text of PDF and URL documents unless the
envelope gives it (their quotes are ``quote_unverifiable``).
"""

from __future__ import annotations

from typing import Any

from schemas import InputFormat
from sidecar.inputs._anthropic_blocks import Document, read_request, web_results
from sidecar.inputs._findings import CITED_TEXTS, Findings
from sidecar.inputs._json import loads
from sidecar.inputs._markers import Citation, insert_markers
from sidecar.inputs._sources import SourceTable
from sidecar.inputs.base import InputError, envelope_fields, index_of, split_envelope

__all__ = ["CITED_TEXTS", "AnthropicMessagesAdapter"]

_DOCUMENT_CITATIONS = frozenset({"char_location", "page_location", "content_block_location"})


def _is_response(obj: dict[str, Any]) -> bool:
    return obj.get("type") == "message" and isinstance(obj.get("content"), list)


class AnthropicMessagesAdapter:
    """A Messages API exchange (envelope with request and response) as a trace v1 object."""

    format: InputFormat = "anthropic_messages"

    def to_trace(self, value: bytes) -> dict[str, Any]:
        """See :class:`sidecar.inputs.base.InputAdapter`."""
        envelope, request, response = split_envelope(loads(value), is_response=_is_response)
        found = read_request(request.get("messages"))
        content = response.get("content")
        if not isinstance(content, list):
            raise InputError("response.content is not a list")
        web_results(content, found.web)
        table = SourceTable(envelope.get("sources"))
        for document in (*found.documents, *found.results):
            _fill(document, table.take(document.id, document.file_id, document.url))
        for url, title in found.web:
            table.cite(url, prefix="W", title=title, url=url)
        cited = _Cited(found.documents, found.results, table)
        findings = Findings()
        parts: list[str] = []
        for index, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "text":
                continue
            text = block.get("text")
            if not isinstance(text, str):
                raise InputError(f"response.content[{index}].text is not a string")
            ids = cited.block(block, text, f"response.content[{index}]")
            stop = len(text.rstrip())
            parts.append(
                insert_markers(text, [Citation(0, stop, source_id) for source_id in ids], findings)
            )
        if not parts:
            raise InputError("the response has no text block")
        trace = envelope_fields(
            envelope,
            response_id=str(response.get("id") or ""),
            created=None,
            question=found.question,
            model=str(response.get("model") or request.get("model") or ""),
        )
        trace["answer"] = "".join(parts)
        trace["sources"] = [
            *(document.source() for document in found.documents),
            *(document.source() for document in cited.unlisted),
            *(document.source() for document in found.results),
            *table.sources(),
        ]
        if cited.quotes:
            trace["extra"] = {CITED_TEXTS: cited.quotes}
        return findings.into(trace)


def _fill(document: Document, supplied: dict[str, Any] | None) -> None:
    if supplied is not None:
        document.text = document.text or str(supplied.get("text") or "")
        document.title = document.title or str(supplied.get("title") or "")
        url = supplied.get("url")
        document.url = document.url or (url if isinstance(url, str) else None)


class _Cited:
    """The citations of the response's text blocks: source IDs and quotes."""

    def __init__(
        self, documents: list[Document], results: list[Document], table: SourceTable
    ) -> None:
        self._documents = documents
        self._results = results
        self._table = table
        self._unlisted: dict[str, Document] = {}
        self.quotes: list[dict[str, str]] = []

    @property
    def unlisted(self) -> list[Document]:
        """Documents cited by an index beyond the request's (a record without its request)."""
        return sorted(
            self._unlisted.values(), key=lambda document: (document.id[0], int(document.id[1:]))
        )

    def block(self, block: dict[str, Any], text: str, where: str) -> list[str]:
        """The source IDs a text block cites, in order, keeping each ``cited_text``."""
        citations = block.get("citations") or []
        if not isinstance(citations, list):
            raise InputError(f"{where}.citations is not a list")
        ids: list[str] = []
        for number, citation in enumerate(citations):
            at = f"{where}.citations[{number}]"
            if not isinstance(citation, dict):
                raise InputError(f"{at} is not a JSON object")
            resolved = self._resolve(citation, at)
            if resolved is None:
                continue
            source_id, document = resolved
            if source_id not in ids:
                ids.append(source_id)
            quote = citation.get("cited_text")
            if isinstance(quote, str):
                quote = _joined(citation, document, quote)
                self.quotes.append({"source_id": source_id, "quote": quote, "cited": text})
        return ids

    def _resolve(self, citation: dict[str, Any], at: str) -> tuple[str, Document | None] | None:
        kind = citation.get("type")
        if kind == "web_search_result_location":
            url = citation.get("url")
            if not isinstance(url, str):
                raise InputError(f"{at}.url is not a string")
            title = str(citation.get("title") or "")
            return self._table.cite(url, prefix="W", title=title, url=url), None
        if kind == "search_result_location":
            listed, prefix, name = self._results, "R", "search_result_index"
        elif isinstance(kind, str) and kind in _DOCUMENT_CITATIONS:
            listed, prefix, name = self._documents, "D", "document_index"
        else:
            return None  # a kind this version does not know cites nothing it can check
        index = index_of(citation, name, at)
        if index < 0:
            raise InputError(f"{at}.{name} is negative")
        if index < len(listed):
            return listed[index].id, listed[index]
        source_id = f"{prefix}{index + 1}"
        document = self._unlisted.get(source_id)
        if document is None:
            named = citation.get("document_title") or citation.get("title")
            file_id, location = citation.get("file_id"), citation.get("source")
            document = Document(
                id=source_id,
                title=str(named or ""),
                file_id=file_id if isinstance(file_id, str) else None,
                url=location if isinstance(location, str) else None,
            )
            _fill(document, self._table.take(source_id, document.file_id, document.url))
            self._unlisted[source_id] = document
        return source_id, document


def _joined(citation: dict[str, Any], document: Document | None, quote: str) -> str:
    """``quote`` as the document's text holds it: the cited blocks joined as the text joins
    them, when the API's concatenation of those blocks is what it quoted."""
    if document is None or not document.blocks:
        return quote
    start, end = citation.get("start_block_index"), citation.get("end_block_index")
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end:
        return quote
    blocks = document.blocks[start:end]
    if end - start > 1 and "".join(blocks) == quote:
        return "\n".join(blocks)
    return quote
