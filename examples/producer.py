"""Publish citewatch traces from a RAG application to Kafka (see docs/producing.md).

What a producer does for each sampled answer:

1. ask the answering model for structured output: the answer text with markers such as
   [S1], plus its atomic claims, each with the source IDs it cites and an importance
   (ANSWER_SCHEMA below);
2. build the trace v1 from the question, the retrieved passages and that output;
3. check it against the JSON Schema citewatch publishes (schemas/trace.v1.json);
4. send it keyed by trace_id, with the W3C ``traceparent`` of the current OpenTelemetry
   span in the record headers, so citewatch's span links to the answer's span.

Run it against a broker (no LLM needed: the model output below is canned):

    python examples/producer.py --bootstrap-servers localhost:9092 --topic rag.traces --count 5

Needs kafka-python, opentelemetry-sdk and jsonschema (``pip install kafka-python
opentelemetry-sdk jsonschema``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
from kafka import KafkaProducer
from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "trace.v1.json"

# The structured output asked of the answering model. Strict-mode compatible (OpenAI
# structured outputs, vLLM guided decoding, Ollama's format): every object closes its
# properties and requires all of them.
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answer", "claims"],
    "properties": {
        "answer": {
            "type": "string",
            "description": "The answer for the user, with a marker such as [S1] right after "
            "each statement taken from a source.",
        },
        "claims": {
            "type": "array",
            "description": "Every factual statement of the answer, one atomic fact each.",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text", "citation_ids", "importance"],
                "properties": {
                    "text": {
                        "type": "string",
                        "description": "The statement, standalone (no pronouns).",
                    },
                    "citation_ids": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "IDs of the sources it is taken from; "
                        "empty when none supports it.",
                    },
                    "importance": {
                        "type": "integer",
                        "enum": [1, 2, 3],
                        "description": "3: the user acts on it (amounts, dates, "
                        "eligibility, dosage, safety); 2: relevant "
                        "detail; 1: background or courtesy.",
                    },
                },
            },
        },
    },
}

ANSWER_INSTRUCTIONS = (
    "Answer only from the numbered sources. After each statement taken from a source, put "
    "its ID in brackets, e.g. [S1]. Then list every factual statement of your answer as a "
    "claim with the IDs it cites (none if no source supports it) and its importance: 3 if "
    "the user would act on it (amounts, dates, deadlines, eligibility, dosage, safety), 2 "
    "for a relevant detail, 1 for background."
)


@dataclass(frozen=True)
class Passage:
    """One retrieved passage, as the retriever returned it."""

    id: str
    title: str
    text: str
    url: str | None = None


@dataclass(frozen=True)
class RagAnswer:
    """What a typical RAG request leaves behind: question, passages, the model's output."""

    app: str
    question: str
    passages: list[Passage]
    model_output: dict[str, Any]
    """The answering model's structured output, shaped by ANSWER_SCHEMA."""
    generator_model: str
    prompt_version: str


def build_trace(answer: RagAnswer, *, trace_id: str, environment: str = "prod") -> dict[str, Any]:
    """A trace v1 (JSON-ready) from one answer. Claims keep the model's citation IDs as
    they are, even unknown ones: finding those is citewatch's job, not the producer's."""
    claims = [
        {
            "id": f"c{number}",
            "text": claim["text"],
            "citation_ids": list(claim["citation_ids"]),
            "importance": int(claim["importance"]),
        }
        for number, claim in enumerate(answer.model_output.get("claims", []), start=1)
    ]
    return {
        "schema_version": "1",
        "trace_id": trace_id,
        "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "app": answer.app,
        "environment": environment,
        "generator": {"model": answer.generator_model, "prompt_version": answer.prompt_version},
        "question": answer.question,
        "answer": answer.model_output["answer"],
        "sources": [
            {"id": p.id, "title": p.title, "text": p.text, **({"url": p.url} if p.url else {})}
            for p in answer.passages
        ],
        "claims": claims,
    }


def load_validator(path: Path = SCHEMA_PATH) -> jsonschema.protocols.Validator:
    """A validator of the trace JSON Schema citewatch publishes."""
    schema = json.loads(path.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def traceparent_headers() -> list[tuple[str, bytes]]:
    """The W3C trace context of the current span, as Kafka record headers."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return [(name, value.encode("ascii")) for name, value in carrier.items()]


def publish(
    producer: KafkaProducer,
    topic: str,
    record: dict[str, Any],
    validator: jsonschema.protocols.Validator,
) -> None:
    """Validate ``record`` and send it keyed by trace_id with the trace context headers.

    Raises jsonschema.ValidationError for a trace citewatch would dead-letter."""
    validator.validate(record)
    producer.send(
        topic,
        key=record["trace_id"].encode("ascii"),
        value=json.dumps(record, ensure_ascii=False).encode("utf-8"),
        headers=traceparent_headers(),
    )


def example_answer(number: int) -> RagAnswer:
    """A canned answer, as the answering model would return it under ANSWER_SCHEMA."""
    return RagAnswer(
        app="support",
        question="Can I get a refund on the annual Pro plan?",
        passages=[
            Passage(
                "S1",
                "Refund policy",
                "Annual Pro plans can be refunded within 30 days of purchase.",
                "https://example.com/help/refunds",
            ),
            Passage(
                "S2",
                "Payments FAQ",
                "Approved refunds are returned to the original "
                "payment method within 5 business days.",
            ),
        ],
        model_output={
            "answer": "Yes: annual Pro plans can be refunded within 30 days of purchase [S1]. "
            "The money goes back to your original payment method within 5 "
            f"business days [S2]. (request {number})",
            "claims": [
                {
                    "text": "Annual Pro plans can be refunded within 30 days of purchase.",
                    "citation_ids": ["S1"],
                    "importance": 3,
                },
                {
                    "text": "Refunds go back to the original payment method within 5 business "
                    "days.",
                    "citation_ids": ["S2"],
                    "importance": 2,
                },
            ],
        },
        generator_model="gen-large-2026-09",
        prompt_version="support-v7",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap-servers", default="localhost:9092")
    parser.add_argument("--topic", default="rag.traces")
    parser.add_argument("--count", type=int, default=1)
    args = parser.parse_args(argv)

    trace.set_tracer_provider(TracerProvider())  # your app has its own, with an exporter
    tracer = trace.get_tracer("rag-app")
    validator = load_validator()
    producer = KafkaProducer(bootstrap_servers=args.bootstrap_servers, acks="all")
    try:
        for number in range(args.count):
            # The span of answering the request; its trace ID doubles as the trace's ID.
            with tracer.start_as_current_span("rag.answer") as span:
                trace_id = format(span.get_span_context().trace_id, "032x")
                record = build_trace(example_answer(number), trace_id=trace_id)
                publish(producer, args.topic, record, validator)
                print(trace_id)  # noqa: T201
        producer.flush(30)
    finally:
        producer.close(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
