"""The trace contract v1: what a RAG application publishes for each sampled answer."""

from __future__ import annotations

import re
from datetime import datetime
from operator import attrgetter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "Claim",
    "ClaimKind",
    "Generator",
    "InputFormat",
    "Source",
    "Trace",
    "TRACE_SCHEMA_VERSION",
]

ClaimKind = Literal["factual", "opinion", "connective"]
"""What a claim is; only factual claims are judged and count towards completeness."""

TRACE_SCHEMA_VERSION = "1"

InputFormat = Literal[
    "trace_v1",
    "openai_responses",
    "openai_chat",
    "anthropic_messages",
    "gemini",
    "bedrock",
    "otlp_json",
    "otlp_proto",
]
"""What the records of an input are: trace v1 itself, or what an app already emits (an
OpenAI, Anthropic, Gemini / Vertex AI or AWS Bedrock request and response, OpenTelemetry
spans as the Collector's kafka exporter writes them), turned into a trace v1 by an adapter
of ``sidecar.inputs``."""


class Source(BaseModel):
    """One retrieved passage, identified by a stable ID that citation markers refer to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=128, description="Stable source ID, e.g. 'S1'.")
    title: str = Field(default="", description="Document title.")
    text: str = Field(description="The passage text the answer may cite.")
    url: str | None = Field(default=None, description="Where the passage comes from.")
    authority: Literal["primary", "secondary", "unknown"] = Field(
        default="unknown", description="How authoritative the document is."
    )
    published_at: datetime | None = Field(default=None, description="Publication time.")


class Claim(BaseModel):
    """One atomic claim of the answer, with the source IDs it cites."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=128, description="Claim ID, unique in the trace.")
    text: str = Field(description="The claim as a standalone sentence.")
    citation_ids: list[str] = Field(default_factory=list, description="Source IDs it cites.")
    importance: int = Field(ge=1, le=3, description="1 minor, 2 relevant, 3 critical.")
    kind: ClaimKind = Field(
        default="factual", description="Only factual claims count towards completeness."
    )


class Generator(BaseModel):
    """The model and prompt that produced the answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(min_length=1, description="Generator model name.")
    prompt_version: str = Field(min_length=1, description="Version of the generation prompt.")


class Trace(BaseModel):
    """One answer of the RAG application, as published on the traces topic.

    Unknown top-level fields are kept in ``extra`` rather than rejected, so producers can
    evolve ahead of citewatch.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal["1"] = Field(default="1", description="Trace contract version.")
    trace_id: str = Field(description="W3C-style trace ID: 32 lowercase hex digits.")
    timestamp: datetime = Field(description="When the answer was produced.")
    app: str = Field(min_length=1, max_length=128, description="Application name.")
    tenant: str | None = Field(default=None, description="Tenant, if the app is multi-tenant.")
    environment: str | None = Field(default=None, description="e.g. prod, staging.")
    generator: Generator
    question: str = Field(description="The user's question.")
    answer: str = Field(description="The answer text, with citation markers such as [S1].")
    sources: list[Source] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Top-level fields this version does not know."
    )

    @model_validator(mode="before")
    @classmethod
    def _collect_unknown_fields(cls, data: Any) -> Any:
        if not isinstance(data, dict) or _FIELD_NAMES.issuperset(data):
            return data
        unknown = {k: v for k, v in data.items() if k not in _FIELD_NAMES}
        kept = {k: v for k, v in data.items() if k in _FIELD_NAMES}
        extra = dict(kept.get("extra") or {})
        extra.update(unknown)
        kept["extra"] = extra
        return kept

    @field_validator("schema_version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @field_validator("trace_id")
    @classmethod
    def _check_trace_id(cls, value: str) -> str:
        if not value:
            raise ValueError("trace_id is empty")
        lowered = value.lower()
        if _TRACE_ID.fullmatch(lowered) is None:
            raise ValueError("trace_id must be 32 hex digits")
        if lowered == "0" * 32:
            raise ValueError("trace_id must not be all zeros")
        return lowered

    @model_validator(mode="after")
    def _check_unique_ids(self) -> Trace:
        sources, claims = self.sources, self.claims
        if len(set(map(_ID, sources))) == len(sources) and len(set(map(_ID, claims))) == len(
            claims
        ):
            return self  # the common case, without a list of IDs per kind
        for kind, ids in (
            ("source", [s.id for s in self.sources]),
            ("claim", [c.id for c in self.claims]),
        ):
            if len(set(ids)) == len(ids):
                continue
            seen: set[str] = set()
            for index, item_id in enumerate(ids):
                if item_id in seen:  # named by place: an ID may hold personal data
                    raise ValueError(f"duplicate {kind} id at {kind}s[{index}].id")
                seen.add(item_id)
        return self


_FIELD_NAMES = frozenset(Trace.model_fields)
_ID = attrgetter("id")
"""A source's or a claim's ID, read in C."""
_TRACE_ID = re.compile("[0-9a-f]{32}")
