"""Real LlamaIndex and LangChain RAG runs under the OpenInference instrumentors (in-memory
retrieval, mock embeddings, a fixed-answer model; no network), their spans encoded as the
Collector writes them, through `citewatch check` and `citewatch run --input --once`.
Skipped, with the reason, when a framework or its instrumentor is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import otlp_json_record, otlp_proto_record
from tests.support.payloads.frameworks import (
    FRAMEWORK_ANSWER,
    FRAMEWORK_QUESTION,
    langchain_spans,
    llama_index_spans,
)

JSON = DecodeLimits(input_format="otlp_json")


@pytest.fixture(scope="module")
def llama_index_record() -> bytes:
    pytest.importorskip("llama_index.core", reason="llama-index-core is not installed")
    pytest.importorskip("openinference.instrumentation.llama_index")
    return otlp_json_record(llama_index_spans())


@pytest.fixture(scope="module")
def langchain_record() -> bytes:
    pytest.importorskip("langchain_core", reason="langchain-core is not installed")
    pytest.importorskip("openinference.instrumentation.langchain")
    return otlp_json_record(langchain_spans())


def test_llama_index_question_is_the_users_query_and_sources_the_prompts(
    llama_index_record: bytes,
) -> None:
    trace = decode_trace(llama_index_record, limits=JSON)
    assert (trace.question, trace.answer) == (FRAMEWORK_QUESTION, FRAMEWORK_ANSWER)
    # the nodes in the order the prompt presented them (the retriever's order)
    assert [s.id for s in trace.sources] == ["returns-1", "warranty-2"]
    assert trace.generator.model == "fixed-llm"


@pytest.mark.parametrize("command", COMMANDS)
def test_llama_index_run_through_the_cli(
    tmp_path: Path, command: str, llama_index_record: bytes
) -> None:
    [evaluation], letters = evaluate(tmp_path, command, "otlp_json", llama_index_record)
    assert letters == []
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]
    # the follow-up completion after the answer was not taken for it
    assert findings(evaluation, "answer_chosen") == [
        (None, "LLM span 'FixedLLM.complete' of 2: its prompt holds the retrieved documents")
    ]


def test_langchain_answer_is_the_models_text_not_its_result_json(langchain_record: bytes) -> None:
    trace = decode_trace(langchain_record, limits=JSON)
    assert (trace.question, trace.answer) == (FRAMEWORK_QUESTION, FRAMEWORK_ANSWER)
    assert [(s.id, s.title) for s in trace.sources] == [
        ("warranty-2", "Warranty"),
        ("returns-1", "Returns"),
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_langchain_run_through_the_cli(
    tmp_path: Path, command: str, langchain_record: bytes
) -> None:
    [evaluation], letters = evaluate(tmp_path, command, "otlp_json", langchain_record)
    assert letters == []
    assert evaluation.scores.validity == 1.0
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("The warranty lasts 24 months.", ["warranty-2"])
    ]


def test_protobuf_encoding_of_a_framework_run_reads_the_same(langchain_record: bytes) -> None:
    spans = langchain_spans()
    proto = decode_trace(otlp_proto_record(spans), limits=DecodeLimits(input_format="otlp_proto"))
    assert (proto.question, proto.answer) == (FRAMEWORK_QUESTION, FRAMEWORK_ANSWER)
