"""AWS Bedrock records: response bodies parsed by botocore's own parser against the
service model (what boto3 returns), requests validated against it, serialised as an app
logs them (JSON, the response metadata left out)."""

from __future__ import annotations

import json
from typing import Any

import botocore.session
from botocore.parsers import create_parser
from botocore.validate import ParamValidator

_SESSION = botocore.session.get_session()

RAG_ANSWER = "Refunds are paid within 30 days. Gift cards never expire. Shipping is free."
KB_TEXTS = (
    "Refunds are paid within 30 days of the return.",
    "Gift cards issued by the shop never expire.",
)


def _boto3_returns(service: str, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    """What boto3 returns for an HTTP response with ``body``, parsed by botocore."""
    model = _SESSION.get_service_model(service).operation_model(operation)
    parsed = create_parser(model.metadata["protocol"]).parse(
        {"body": json.dumps(body).encode(), "headers": {}, "status_code": 200},
        model.output_shape,
    )
    parsed.pop("ResponseMetadata", None)
    return dict(parsed)


def _checked_request(service: str, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    model = _SESSION.get_service_model(service).operation_model(operation)
    report = ParamValidator().validate(request, model.input_shape)
    assert not report.has_errors(), report.generate_report()
    return request


def rag_citation(sentence: str, references: list[int], *, inclusive: bool = True) -> dict[str, Any]:
    """A RetrieveAndGenerate citation of ``sentence`` of :data:`RAG_ANSWER` by the
    knowledge base texts ``references`` (indices of :data:`KB_TEXTS`)."""
    start = RAG_ANSWER.index(sentence)
    end = start + len(sentence) - (1 if inclusive else 0)
    return {
        "generatedResponsePart": {
            "textResponsePart": {"text": sentence, "span": {"start": start, "end": end}}
        },
        "retrievedReferences": [
            {
                "content": {"text": KB_TEXTS[index], "type": "TEXT"},
                "location": {
                    "type": "S3",
                    "s3Location": {"uri": f"s3://shop-kb/policy-{index + 1}.md"},
                },
                "metadata": {"x-amz-bedrock-kb-chunk-id": f"chunk-{index + 1}"},
            }
            for index in references
        ],
    }


def retrieve_and_generate_record(
    citations: list[dict[str, Any]] | None = None, *, answer: str = RAG_ANSWER
) -> bytes:
    """A Knowledge Bases RetrieveAndGenerate exchange in an envelope."""
    if citations is None:
        citations = [
            rag_citation("Refunds are paid within 30 days.", [0]),
            rag_citation("Gift cards never expire.", [1]),
        ]
    request = _checked_request(
        "bedrock-agent-runtime",
        "RetrieveAndGenerate",
        {
            "input": {"text": "What are the refund terms?"},
            "retrieveAndGenerateConfiguration": {
                "type": "KNOWLEDGE_BASE",
                "knowledgeBaseConfiguration": {
                    "knowledgeBaseId": "KB12345678",
                    "modelArn": "arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-pro-v1:0",
                },
            },
        },
    )
    response = _boto3_returns(
        "bedrock-agent-runtime",
        "RetrieveAndGenerate",
        {"output": {"text": answer}, "citations": citations, "sessionId": "sess-0001"},
    )
    return json.dumps(
        {
            "app": "shop",
            "timestamp": "2026-12-01T10:00:00Z",
            "request": request,
            "response": response,
        }
    ).encode()


CONVERSE_POLICY = "Refunds are paid within 30 days. Store credit never expires."


def converse_record(*, source_text: str = "Refunds are paid within 30 days.") -> bytes:
    """A Converse exchange: a text document with citations on, and a response whose
    citationsContent block cites it (documentChar) with ``source_text`` as its source."""
    request = _checked_request(
        "bedrock-runtime",
        "Converse",
        {
            "modelId": "anthropic.claude-sonnet-4-5-v1:0",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "document": {
                                "format": "txt",
                                "name": "Refund policy",
                                "source": {"text": CONVERSE_POLICY},
                                "citations": {"enabled": True},
                            }
                        },
                        {
                            "document": {
                                "format": "pdf",
                                "name": "Contract",
                                "source": {"s3Location": {"uri": "s3://shop-kb/contract.pdf"}},
                            }
                        },
                        {"text": "When are refunds paid?"},
                    ],
                }
            ],
        },
    )
    response = _boto3_returns(
        "bedrock-runtime",
        "Converse",
        {
            "output": {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"text": "Per the policy, "},
                        {
                            "citationsContent": {
                                "content": [
                                    {"text": "refunds are paid within 30 days. "},
                                    {"text": "Store credit never expires."},
                                ],
                                "citations": [
                                    {
                                        "title": "Refund policy",
                                        "sourceContent": [{"text": source_text}],
                                        "location": {
                                            "documentChar": {
                                                "documentIndex": 0,
                                                "start": 0,
                                                "end": 32,
                                            }
                                        },
                                    }
                                ],
                            }
                        },
                    ],
                }
            },
            "stopReason": "end_turn",
            "usage": {"inputTokens": 50, "outputTokens": 20, "totalTokens": 70},
            "metrics": {"latencyMs": 800},
        },
    )
    return json.dumps(
        {
            "app": "shop",
            "timestamp": "2026-12-01T10:00:00Z",
            "request": request,
            "response": response,
        }
    ).encode()
