"""The producer of evaluation records and dead letters (``producer.*``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from sidecar.config._section import Section

__all__ = ["CompressionType", "ProducerSettings"]


CompressionType = Literal["none", "gzip", "lz4", "zstd"]
"""Codecs of the evaluation and dead-letter producer; lz4 and zstd need their packages."""

_CODEC_MODULES = {"lz4": "lz4", "zstd": "zstandard"}


class ProducerSettings(Section):
    """Batching of the producer that writes evaluation records and dead letters.

    The defaults were measured with bench/kafka_throughput.py (see docs/operations.md,
    Scaling): one replica's throughput is bound by its interpreter lock, and every new
    producer batch wakes kafka-python's sender thread, so batches that fill for a while
    cost less than batches of one record. Offsets are committed only after the ack, so a
    longer linger delays commits by that much, never loses a record.
    """

    # Measured (docs/operations.md, Scaling): linger 20 ms with 256 KiB batches beat 5 ms
    # with 16 KiB (kafka-python's default, which a second of one replica's records fills
    # many times over: every full or new batch wakes the sender), 50 ms (more records held
    # until their ack, no faster) and 1 MiB (never filled); gzip cost more CPU than the
    # bytes it saves on a local broker.
    linger_ms: int = Field(default=20, ge=0, le=1_000)
    """How long a producer batch waits for more records before it is sent."""
    batch_size: int = Field(default=262_144, ge=1_024, le=16_777_216)
    """Bytes per partition batch; a full batch is sent at once."""
    compression_type: CompressionType = "none"
    """Codec of produced batches: none, gzip, or lz4 / zstd when their package is installed
    (worth it when the network to the brokers, not CPU, is what is scarce)."""

    @model_validator(mode="after")
    def _codec_installed(self) -> ProducerSettings:
        module = _CODEC_MODULES.get(self.compression_type)
        if module is not None:
            import importlib.util

            if importlib.util.find_spec(module) is None:
                raise ValueError(
                    f"compression_type {self.compression_type} needs the "
                    f"{module} package, which is not installed"
                )
        return self
