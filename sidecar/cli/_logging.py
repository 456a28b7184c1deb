"""The log the CLI writes: stderr at the asked verbosity, every line masked (credentials in
addresses, every secret of the settings), and kafka-python's lines without the records they
carry.

At DEBUG kafka-python logs every request and response it sends and receives, the raw bytes
of fetch responses and every record it produces (a dead letter's value is the raw trace):
raw trace text must not reach the log, so those arguments are written as their type and
size (``<FetchResponse>``, ``<1843 bytes>``). What the lines say about connections, groups
and offsets is kept.
"""

from __future__ import annotations

import logging
import sys

from sidecar._userinfo import MaskUserinfo

__all__ = ["HideKafkaPayloads", "configure_logging"]

_KAFKA = "kafka"
_BYTES = (bytes, bytearray, memoryview)
_MESSAGES = ("Request", "Response")


class _Hidden(str):
    """What is written instead of a payload, the same under %s and %r."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def _carries_payload(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is or holds bytes or a protocol message (a produce request holds
    the records it sends)."""
    if isinstance(value, _BYTES) or type(value).__name__.endswith(_MESSAGES):
        return True
    if depth < 3 and isinstance(value, list | tuple | set | frozenset):
        return any(_carries_payload(item, depth + 1) for item in value)
    if depth < 3 and isinstance(value, dict):
        return any(_carries_payload(item, depth + 1) for item in value.values())
    return False


def _shown(value: object) -> object:
    if isinstance(value, _BYTES):
        return _Hidden(f"<{len(value)} bytes>")
    name = type(value).__name__
    if name.endswith(_MESSAGES):
        return _Hidden(f"<{name}>")
    if _carries_payload(value):
        size = f" of {len(value)}" if hasattr(value, "__len__") else ""
        return _Hidden(f"<{name}{size}>")
    return value


class HideKafkaPayloads(logging.Filter):
    """A handler filter writing kafka-python's protocol messages, bytes and records as
    their type and size."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not (record.name == _KAFKA or record.name.startswith(_KAFKA + ".")):
            return True
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(_shown(arg) for arg in record.args)
        return True


def configure_logging(verbose: int) -> None:
    """stderr at WARNING, INFO (``-v``) or DEBUG (``-vv``), with the filters above on every
    handler of the root logger."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Every line written, the HTTP clients' own included (httpx logs each URL it requests at
    # INFO), with the credentials of any address in it masked; the payload filter first, so
    # the mask reads the line as it will be written.
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, HideKafkaPayloads) for f in handler.filters):
            handler.addFilter(HideKafkaPayloads())
        if not any(isinstance(f, MaskUserinfo) for f in handler.filters):
            handler.addFilter(MaskUserinfo())
