"""Gemini API / Vertex AI records, built with google-genai's own types and serialised as
the REST API writes them (camelCase) or as the SDK's ``model_dump`` does (snake_case)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from google.genai import types

GEMINI_ANSWER = (
    "Le café coûte 3 € ☕ au comptoir. Refunds are paid within 30 days 🙂. Gift cards never expire."
)
"""An answer with accents, a euro sign and emoji before and between its cited sentences,
so UTF-8 byte offsets and character offsets differ."""
CAFE_URL = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/cafe"


def byte_span(text: str, sentence: str) -> tuple[int, int]:
    """The UTF-8 byte offsets of ``sentence`` in ``text``."""
    start = len(text[: text.index(sentence)].encode())
    return start, start + len(sentence.encode())


def gemini_response(
    *,
    text: str = GEMINI_ANSWER,
    supports: Sequence[tuple[str, Sequence[int]]] | None = None,
    raw_supports: Sequence[types.GroundingSupport] = (),
) -> types.GenerateContentResponse:
    """A grounded response: a Google Search chunk (a page) and a retrieved context chunk
    (text), and a support per ``(sentence, chunk indices)``."""
    if supports is None:
        supports = [
            ("Le café coûte 3 € ☕ au comptoir.", [0]),
            ("Refunds are paid within 30 days 🙂.", [1]),
        ]
    grounding = types.GroundingMetadata(
        web_search_queries=["prix café", "refund policy"],
        grounding_chunks=[
            types.GroundingChunk(
                web=types.GroundingChunkWeb(
                    uri=CAFE_URL, title="cafe.example", domain="cafe.example"
                )
            ),
            types.GroundingChunk(
                retrieved_context=types.GroundingChunkRetrievedContext(
                    uri="gs://shop-docs/refunds.md",
                    title="refunds.md",
                    text="Refunds are paid within 30 days of the return.",
                )
            ),
            types.GroundingChunk(
                retrieved_context=types.GroundingChunkRetrievedContext(
                    uri="gs://shop-docs/cards.md", title="cards.md", text="Gift cards never expire."
                )
            ),
        ],
        grounding_supports=[
            *(
                types.GroundingSupport(
                    segment=types.Segment(
                        start_index=byte_span(text, sentence)[0],
                        end_index=byte_span(text, sentence)[1],
                        text=sentence,
                    ),
                    grounding_chunk_indices=list(indices),
                    confidence_scores=[0.9] * len(indices),
                )
                for sentence, indices in supports
            ),
            *raw_supports,
        ],
    )
    return types.GenerateContentResponse(
        response_id="gem-0001",
        model_version="gemini-2.5-flash",
        candidates=[
            types.Candidate(
                index=0,
                finish_reason=types.FinishReason.STOP,
                content=types.Content(
                    role="model",
                    parts=[
                        types.Part(text="Looking at the sources.", thought=True),
                        types.Part(text=text),
                    ],
                ),
                grounding_metadata=grounding,
            )
        ],
    )


def gemini_record(
    response: types.GenerateContentResponse | None = None,
    *,
    rest: bool = True,
    sources: list[dict[str, str]] | None = None,
) -> bytes:
    """An envelope around ``response`` (:func:`gemini_response` by default), as the REST API
    writes it (``rest``) or as the SDK's ``model_dump`` does."""
    response = response or gemini_response()
    request = types.GenerateContentConfig(tools=[types.Tool(google_search=types.GoogleSearch())])
    record: dict[str, Any] = {
        "app": "cafe",
        "timestamp": "2026-12-01T10:00:00Z",
        "request": {
            "model": "gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "Combien coûte un café ?"}]}],
            "config": request.model_dump(mode="json", exclude_none=True),
        },
        "response": response.model_dump(mode="json", exclude_none=True, by_alias=rest),
    }
    if sources is not None:
        record["sources"] = sources
    return json.dumps(record, ensure_ascii=False).encode()
