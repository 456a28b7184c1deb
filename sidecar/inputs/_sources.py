"""The sources of one adapted trace: the envelope's, in retrieval order, then those the
response's citations add. Linear in the record: one dictionary lookup per citation."""

from __future__ import annotations

from typing import Any

from sidecar.inputs.base import InputError

__all__ = ["SourceTable"]

_KEYS = ("id", "url", "file_id")


class SourceTable:
    """The sources of one trace, each with a stable ID.

    ``supplied`` is the envelope's ``sources``: every entry is a source of the trace, cited
    or not, in the order given (the order the prompt presented them). Its ID is its ``id``;
    an entry with only a ``url`` or a ``file_id`` gets the next free ``W``/``F`` number, one
    with neither (a passage the prompt numbered) the next free ``S`` number.
    A citation names a document by a key (a URL, a file ID, a source ID): a key of an
    envelope entry cites that entry, another key adds a source, and the same key always
    cites the same source.
    """

    def __init__(self, supplied: Any = None) -> None:
        self._order: list[dict[str, Any]] = []
        self._by_key: dict[str, dict[str, Any]] = {}
        self._taken: set[str] = set()
        self._next: dict[str, int] = {}
        self._taken_out: set[int] = set()
        if supplied is None:
            return
        if not isinstance(supplied, list):
            raise InputError("sources is not a list")
        entries: list[tuple[int, dict[str, Any]]] = []
        for index, item in enumerate(supplied):
            if not isinstance(item, dict):
                raise InputError(f"sources[{index}] is not a JSON object")
            for name in (*_KEYS, "title", "text"):
                if item.get(name) is not None and not isinstance(item[name], str):
                    raise InputError(f"sources[{index}].{name} is not a string")
            if item.get("id"):
                if item["id"] in self._taken:
                    continue  # a repeated entry: the first one stands
                self._taken.add(item["id"])
            entries.append((index, item))
        for _, item in entries:
            prefix = "W" if item.get("url") else "F" if item.get("file_id") else "S"
            source: dict[str, Any] = {
                "id": item.get("id") or self._new_id(prefix),
                "title": item.get("title") or "",
                "text": item.get("text") or "",
            }
            if item.get("url"):
                source["url"] = item["url"]
            self._order.append(source)
            for name in _KEYS:
                if item.get(name):
                    self._by_key.setdefault(item[name], source)

    def _new_id(self, prefix: str) -> str:
        number = self._next.get(prefix, 1)
        while f"{prefix}{number}" in self._taken:
            number += 1
        self._next[prefix] = number + 1
        self._taken.add(f"{prefix}{number}")
        return f"{prefix}{number}"

    def take(self, *keys: str | None) -> dict[str, Any] | None:
        """The envelope entry the first of ``keys`` names, taken out of :meth:`sources`:
        it describes a document the adapter lists itself."""
        for key in keys:
            found = self._by_key.get(key) if key else None
            if found is not None:
                self._taken_out.add(id(found))
                return found
        return None

    def cite(
        self,
        key: str,
        *,
        prefix: str,
        title: str = "",
        text: str | None = None,
        url: str | None = None,
    ) -> str:
        """The source ID of ``key``, adding the source on its first citation; what the
        citation tells of the document fills what the envelope left empty."""
        found = self._by_key.get(key)
        if found is None:
            found = {"id": self._new_id(prefix), "title": title, "text": text or ""}
            if url:
                found["url"] = url
            self._by_key[key] = found
            self._order.append(found)
        else:
            if text and not found["text"]:
                found["text"] = text
            if title and not found["title"]:
                found["title"] = title
            if url and not found.get("url"):
                found["url"] = url
        return str(found["id"])

    def sources(self) -> list[dict[str, Any]]:
        """Every source: the envelope's first, then the cited ones in order of citation."""
        return [source for source in self._order if id(source) not in self._taken_out]
