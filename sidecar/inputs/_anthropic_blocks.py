"""The documents an Anthropic Messages exchange cites: the request's ``document`` and
``search_result`` blocks (also inside ``tool_result`` content) and the web search tool's
results (``web_search_tool_result`` blocks of earlier assistant turns and of the response)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sidecar.inputs.base import text_of

__all__ = ["Document", "RequestBlocks", "read_request", "web_results"]


@dataclass(slots=True)
class Document:
    """A citable document: its source ID, title, text and (for content and search
    results) its text blocks, which ``*_block_index`` citations count."""

    id: str
    title: str = ""
    text: str = ""
    url: str | None = None
    file_id: str | None = None
    blocks: list[str] = field(default_factory=list)

    def source(self) -> dict[str, Any]:
        """The trace v1 source of the document."""
        entry: dict[str, Any] = {"id": self.id, "title": self.title, "text": self.text}
        if self.url:
            entry["url"] = self.url
        return entry


@dataclass(slots=True)
class RequestBlocks:
    """The request's documents and search results in order, and the last user text."""

    documents: list[Document] = field(default_factory=list)
    results: list[Document] = field(default_factory=list)
    web: list[tuple[str, str]] = field(default_factory=list)
    question: str = ""


def read_request(messages: Any) -> RequestBlocks:
    """The documents, search results and web results of a request's ``messages``."""
    found = RequestBlocks()
    if not isinstance(messages, list):
        return found
    for message in messages:
        if not isinstance(message, dict):
            continue
        blocks = message.get("content")
        _walk(blocks, found)
        if message.get("role") == "user":
            user_text = text_of(blocks)
            if user_text:
                found.question = user_text
    return found


def web_results(blocks: Any, into: list[tuple[str, str]]) -> None:
    """``(url, title)`` of every web search result among ``blocks``, in order."""
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "web_search_tool_result":
            content = block.get("content")
            for result in content if isinstance(content, list) else ():
                if isinstance(result, dict) and isinstance(result.get("url"), str):
                    into.append((result["url"], str(result.get("title") or "")))


def _walk(blocks: Any, found: RequestBlocks) -> None:
    if not isinstance(blocks, list):
        return
    web_results(blocks, found.web)
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "document":
            found.documents.append(_document(block, f"D{len(found.documents) + 1}"))
        elif kind == "search_result":
            parts = _text_blocks(block.get("content"))
            result = Document(
                id=f"R{len(found.results) + 1}",
                title=str(block.get("title") or ""),
                text="\n".join(parts),
                blocks=parts,
            )
            if isinstance(block.get("source"), str):
                result.url = block["source"]
            found.results.append(result)
        elif kind == "tool_result":
            _walk(block.get("content"), found)


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]


def _document(block: dict[str, Any], source_id: str) -> Document:
    """A document block: text (``text``, ``content``), or only its URL or file ID (``url``,
    ``file``), or nothing readable (``base64``: dropped before decoding)."""
    document = Document(id=source_id, title=str(block.get("title") or ""))
    source = block.get("source")
    if not isinstance(source, dict):
        return document
    kind = source.get("type")
    if kind == "text" and isinstance(source.get("data"), str):
        document.text = source["data"]
    elif kind == "content":
        document.blocks = _text_blocks(source.get("content"))
        document.text = "\n".join(document.blocks)
    elif kind == "url" and isinstance(source.get("url"), str):
        document.url = source["url"]
    elif kind == "file" and isinstance(source.get("file_id"), str):
        document.file_id = source["file_id"]
    return document
