"""OpenAI records (Responses and Chat Completions), built with the openai SDK's own
response models and serialised as the API returns them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from openai.types.chat import ChatCompletion
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import (
    Annotation,
    AnnotationURLCitation,
    ChatCompletionMessage,
)
from openai.types.responses import (
    Response,
    ResponseFileSearchToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_file_search_tool_call import Result
from openai.types.responses.response_output_text import (
    AnnotationFileCitation,
)
from openai.types.responses.response_output_text import (
    AnnotationURLCitation as ResponsesURLCitation,
)

from tests.support.payloads._base import LINK, RETURNS_TEXT, WARRANTY_TEXT, WARRANTY_URL


def responses_record(**envelope: Any) -> bytes:
    """A Responses API exchange: a url_citation (inline link) and a file_citation whose
    text comes from file_search_call results; one sentence is left uncited."""
    text = (
        f"The warranty lasts 24 months {LINK}. Returns are free within 30 days. "
        "Shipping is always free."
    )
    start = text.index(LINK)
    file_at = text.index(" Shipping")
    response = Response(
        id="resp_0001",
        created_at=1764700000,
        model="gpt-4.1",
        object="response",
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        output=[
            ResponseFileSearchToolCall(
                id="fs_1",
                queries=["returns"],
                status="completed",
                type="file_search_call",
                results=[
                    Result(
                        file_id="file-returns", filename="returns.md", score=0.9, text=RETURNS_TEXT
                    )
                ],
            ),
            ResponseOutputMessage(
                id="msg_1",
                role="assistant",
                status="completed",
                type="message",
                content=[
                    ResponseOutputText(
                        type="output_text",
                        text=text,
                        annotations=[
                            ResponsesURLCitation(
                                type="url_citation",
                                start_index=start,
                                end_index=start + len(LINK),
                                url=WARRANTY_URL,
                                title="Warranty",
                            ),
                            AnnotationFileCitation(
                                type="file_citation",
                                file_id="file-returns",
                                filename="returns.md",
                                index=file_at,
                            ),
                        ],
                    )
                ],
            ),
        ],
    )
    record = {
        "app": "shop",
        "request": {"model": "gpt-4.1", "input": "What are the warranty and returns?"},
        "response": json.loads(response.model_dump_json()),
        "sources": [{"url": WARRANTY_URL, "text": WARRANTY_TEXT}],
        **envelope,
    }
    return json.dumps(record).encode()


def chat_record(**envelope: Any) -> bytes:
    """A Chat Completions exchange with one url_citation annotation over an inline link."""
    text = f"The warranty lasts 24 months {LINK}."
    start = text.index(LINK)
    completion = ChatCompletion(
        id="chatcmpl-0001",
        created=1764700000,
        model="gpt-4o-search-preview",
        object="chat.completion",
        choices=[
            Choice(
                index=0,
                finish_reason="stop",
                message=ChatCompletionMessage(
                    role="assistant",
                    content=text,
                    annotations=[
                        Annotation(
                            type="url_citation",
                            url_citation=AnnotationURLCitation(
                                start_index=start,
                                end_index=start + len(LINK),
                                url=WARRANTY_URL,
                                title="Warranty",
                            ),
                        )
                    ],
                ),
            )
        ],
    )
    request = {
        "model": "gpt-4o-search-preview",
        "messages": [
            {"role": "system", "content": "Answer with sources."},
            {"role": "user", "content": "How long is the warranty?"},
        ],
    }
    record = {
        "app": "shop",
        "request": request,
        "response": json.loads(completion.model_dump_json()),
        "sources": [{"url": WARRANTY_URL, "text": WARRANTY_TEXT}],
        **envelope,
    }
    return json.dumps(record).encode()


POLICY_SOURCES = [
    {"id": "S1", "title": "Refund policy", "text": "Refunds are paid within 30 days."},
    {"id": "S2", "title": "Shipping", "text": "Standard shipping is free."},
    {"id": "S3", "title": "Gift cards", "text": "Gift cards never expire."},
]
"""The passages an app retrieved and numbered in its prompt, in that order."""
OWN_MARKERS = "Refunds are paid within 30 days [S1]. Standard shipping is free [S2]."
"""An answer whose markers the app's prompt asked for (no API annotations)."""


def chat_exchange(
    text: str,
    *,
    citations: Sequence[tuple[int, int, str]] = (),
    sources: list[dict[str, str]] | None = None,
) -> bytes:
    """A Chat Completions exchange answering ``text``, with a url_citation annotation per
    ``(start_index, end_index, url)``, and the envelope's ``sources`` if given."""
    completion = ChatCompletion(
        id="chatcmpl-0002",
        created=1764700000,
        model="gpt-4.1",
        object="chat.completion",
        choices=[
            Choice(
                index=0,
                finish_reason="stop",
                message=ChatCompletionMessage(
                    role="assistant",
                    content=text,
                    annotations=[
                        Annotation(
                            type="url_citation",
                            url_citation=AnnotationURLCitation(
                                start_index=start, end_index=end, url=url, title="Page"
                            ),
                        )
                        for start, end, url in citations
                    ],
                ),
            )
        ],
    )
    record: dict[str, Any] = {
        "app": "shop",
        "request": {
            "model": "gpt-4.1",
            "messages": [{"role": "user", "content": "What are the refund terms?"}],
        },
        "response": json.loads(completion.model_dump_json()),
    }
    if sources is not None:
        record["sources"] = sources
    return json.dumps(record).encode()


def responses_exchange(
    messages: list[tuple[str | None, str]],
    *,
    citations: Sequence[tuple[int, int, str]] = (),
    sources: list[dict[str, str]] | None = None,
) -> bytes:
    """A Responses API exchange with one output message per ``(phase, text)``; the last
    message's text carries a url_citation per ``(start_index, end_index, url)``."""
    output = [
        ResponseOutputMessage(
            id=f"msg_{number}",
            role="assistant",
            status="completed",
            type="message",
            phase=phase,  # type: ignore[arg-type]
            content=[
                ResponseOutputText(
                    type="output_text",
                    text=text,
                    annotations=[
                        ResponsesURLCitation(
                            type="url_citation",
                            start_index=start,
                            end_index=end,
                            url=url,
                            title="Page",
                        )
                        for start, end, url in (citations if number == len(messages) else ())
                    ],
                )
            ],
        )
        for number, (phase, text) in enumerate(messages, start=1)
    ]
    response = Response(
        id="resp_0002",
        created_at=1764700000,
        model="gpt-5",
        object="response",
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        output=output,  # type: ignore[arg-type]
    )
    record: dict[str, Any] = {
        "app": "shop",
        "request": {"model": "gpt-5", "input": "What are the refund terms?"},
        "response": json.loads(response.model_dump_json()),
    }
    if sources is not None:
        record["sources"] = sources
    return json.dumps(record).encode()
