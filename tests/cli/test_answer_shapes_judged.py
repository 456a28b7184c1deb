"""Answers as real apps write them, end to end through `citewatch check` and `citewatch run`:
marker-first sentences, bullets and numbered-by-position markers in trace v1, through the
OpenAI Responses adapter (a citation at index 0 puts its marker first), the Anthropic adapter
and OpenInference spans, each derive one claim per cited sentence with the right citation,
and an honest LLM judge's "unsupported" on an importance-3 claim is a critical claim (it
pages)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic.types as anthropic_types
import pytest
from click.testing import CliRunner, Result
from openai.types.responses import (
    Response,
    ResponseFileSearchToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_file_search_tool_call import Result as SearchResult
from openai.types.responses.response_output_text import AnnotationFileCitation
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sidecar.cli import cli
from tests.support.factories import make_trace, source
from tests.support.openai_server import Action, FakeOpenAI, Reply, packet_of, verdicts_reply
from tests.support.payloads import otlp_json_record

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = json.loads(
    (ROOT / "tests" / "checks" / "data" / "numbered_prompts.json").read_text(encoding="utf-8")
)
PRICE = "The Basic plan costs 20 EUR a month."
UPGRADE_PASSAGE = "Upgrades take effect at the start of the next billing cycle."
UPGRADE_CLAIM = "Upgrades take effect at once."


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - {"the", "a", "of", "at", "and"}


def honest(body: dict[str, Any]) -> Action:
    """A judge that reads: supported when every content word of the claim is in one of its
    passages (quoting that passage), unsupported otherwise."""
    packet = packet_of(body)
    if packet is None:
        return Reply(text="{}")
    texts = {p["passage_id"]: p["text"] for p in packet["passages"]}
    verdicts = []
    for claim in packet["claims"]:
        found = [
            texts[i] for i in claim["passage_ids"] if _words(claim["claim"]) <= _words(texts[i])
        ]
        verdicts.append(
            {
                "claim_id": claim["claim_id"],
                "verdict": "supported" if found else "unsupported",
                "evidence_quote": found[0] if found else "",
                "reason": "Stated." if found else "The passage says otherwise.",
            }
        )
    return verdicts_reply(verdicts)


@pytest.fixture
def judge() -> Any:
    with FakeOpenAI(responder=honest) as server:
        yield server


def _env(server: FakeOpenAI) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        "CITEWATCH_JUDGE_BASE_URL": server.base_url,
        "CITEWATCH_JUDGE_API_KEY": "dummy",
        "CITEWATCH_JUDGE_MAX_RETRIES": "0",
        "CITEWATCH_CLAIMS_IMPORTANCE": "3",
    }


def _check(server: FakeOpenAI, tmp_path: Path, payload: bytes, *extra: str) -> list[Any]:
    path = tmp_path / "in.jsonl"
    path.write_bytes(payload + b"\n")
    out = tmp_path / "out.jsonl"
    result: Result = CliRunner().invoke(
        cli,
        [
            "check",
            str(path),
            "--judge",
            "openai-chat",
            "--sample-rate",
            "1",
            "--output",
            str(out),
            *extra,
        ],
        env=_env(server),
    )
    assert result.exit_code in (0, 1), result.output
    return [json.loads(line) for line in out.read_text().splitlines()]


def _claims(record: dict[str, Any]) -> list[tuple[str, list[str], str | None, str | None]]:
    return [
        (c["text"], c["citation_ids"], c.get("verdict"), c.get("critical_reason"))
        for c in record["claims"]
    ]


def _trace(answer: str, sources: list[dict[str, Any]] | None = None) -> bytes:
    sources = sources or [source("S1", PRICE), source("S2", UPGRADE_PASSAGE)]
    return make_trace(answer=answer, claims=[], sources=sources).model_dump_json().encode()


EXPECTED = [
    (PRICE, ["S1"], "supported", None),
    (UPGRADE_CLAIM, ["S2"], "unsupported", "judged_unsupported"),
]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(f"[S1] {PRICE} [S2] {UPGRADE_CLAIM}", id="marker-first"),
        pytest.param(f"- [S1] {PRICE}\n- [S2] {UPGRADE_CLAIM}", id="bullets"),
        pytest.param(f"1. [S1] {PRICE}\n2. [S2] {UPGRADE_CLAIM}", id="numbered-items"),
        pytest.param(f"**[S1]** {PRICE}\n\n**[S2]** {UPGRADE_CLAIM}", id="bold"),
        pytest.param(f"[S1]{PRICE} [S2]{UPGRADE_CLAIM}", id="glued"),
        pytest.param(f"{PRICE[:-1]} [1]. {UPGRADE_CLAIM[:-1]} [2].", id="numbered-by-position"),
        pytest.param(f"[1] {PRICE}\n[2] {UPGRADE_CLAIM}", id="numbered-marker-first"),
    ],
)
def test_trace_v1_shapes_are_judged_and_page(
    judge: FakeOpenAI, tmp_path: Path, answer: str
) -> None:
    sources = None
    if "[1]" in answer:
        sources = [source("kb-pricing-2", PRICE), source("kb-upgrades-7", UPGRADE_PASSAGE)]
    [record] = _check(judge, tmp_path, _trace(answer, sources))
    expected = EXPECTED
    if sources is not None:
        expected = [
            (PRICE, ["kb-pricing-2"], "supported", None),
            (UPGRADE_CLAIM, ["kb-upgrades-7"], "unsupported", "judged_unsupported"),
        ]
    assert _claims(record) == expected
    assert record["scores"]["critical_unsupported"] == 1
    assert record["scores"]["validity"] == 1.0


@pytest.mark.parametrize("style", ["llamaindex", "langchain"])
def test_library_prompts_numbered_by_position_resolve_every_marker(
    judge: FakeOpenAI, tmp_path: Path, style: str
) -> None:
    fixture = FIXTURES[style]
    # The prompt numbers the passages in the order the trace lists its sources.
    context = fixture["prompt"].split("Now it's your turn.")[-1]  # LlamaIndex's example first
    numbered = re.findall(r"(?:Source (\d+):|\[(\d+)\] [^\n]*)\n([^\n]+)", context)
    passages = {int(a or b): text for a, b, text in numbered}
    assert passages == {n: s["text"] for n, s in enumerate(fixture["sources"], 1)}
    trace = make_trace(
        question=fixture["question"],
        answer=fixture["answer"],
        claims=[],
        sources=fixture["sources"],
    )
    [record] = _check(judge, tmp_path, trace.model_dump_json().encode())
    ids = [s["id"] for s in fixture["sources"]]
    assert [c["citation_ids"] for c in record["claims"]] == [[ids[0]], [ids[1]]]
    assert record["scores"]["validity"] == 1.0
    assert record["scores"]["marker_ids"] == ids[:2]
    assert [
        (f["code"], f["detail"]) for f in record["findings"] if f["code"] == "citation_numbering"
    ] == [("citation_numbering", "by_position")]


def _responses_record() -> bytes:
    """A Responses exchange whose file citations sit at the start of their sentences (index
    0 and the index of the second sentence): the adapter writes their markers first."""
    text = f"{PRICE} {UPGRADE_CLAIM}"
    second = text.index(UPGRADE_CLAIM)
    response = Response(
        id="resp_1",
        created_at=1764700000,
        model="gpt-4.1",
        object="response",
        parallel_tool_calls=False,
        tool_choice="auto",
        tools=[],
        output=[
            ResponseFileSearchToolCall(
                id="fs_1",
                queries=["plans"],
                status="completed",
                type="file_search_call",
                results=[
                    SearchResult(file_id="file-price", filename="price.md", score=0.9, text=PRICE),
                    SearchResult(
                        file_id="file-upgrade",
                        filename="upgrade.md",
                        score=0.8,
                        text=UPGRADE_PASSAGE,
                    ),
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
                            AnnotationFileCitation(
                                type="file_citation",
                                file_id="file-price",
                                filename="price.md",
                                index=0,
                            ),
                            AnnotationFileCitation(
                                type="file_citation",
                                file_id="file-upgrade",
                                filename="upgrade.md",
                                index=second,
                            ),
                        ],
                    )
                ],
            ),
        ],
    )
    record = {
        "app": "shop",
        "request": {"model": "gpt-4.1", "input": "What does the Basic plan cost?"},
        "response": json.loads(response.model_dump_json()),
    }
    return json.dumps(record).encode()


def test_openai_responses_citations_at_index_zero_are_judged_and_page(
    judge: FakeOpenAI, tmp_path: Path
) -> None:
    [record] = _check(judge, tmp_path, _responses_record(), "--input-format", "openai_responses")
    texts = [(c["text"], c.get("verdict"), c.get("critical_reason")) for c in record["claims"]]
    assert texts == [
        (PRICE, "supported", None),
        (UPGRADE_CLAIM, "unsupported", "judged_unsupported"),
    ]
    assert all(len(c["citation_ids"]) == 1 for c in record["claims"])
    assert record["scores"]["critical_unsupported"] == 1


def _anthropic_record() -> bytes:
    """A Messages exchange answered as a bulleted list, each bullet citing one document."""
    documents = [
        {
            "type": "document",
            "title": title,
            "citations": {"enabled": True},
            "source": {"type": "text", "media_type": "text/plain", "data": data},
        }
        for title, data in (("Pricing", PRICE), ("Upgrades", UPGRADE_PASSAGE))
    ]
    content = [anthropic_types.TextBlock(type="text", text="Here is what I found:\n\n- ")]
    for index, (claim, passage) in enumerate(
        ((PRICE[:-1], PRICE), (UPGRADE_CLAIM[:-1], UPGRADE_PASSAGE))
    ):
        content.append(
            anthropic_types.TextBlock(
                type="text",
                text=claim,
                citations=[
                    anthropic_types.CitationCharLocation(
                        type="char_location",
                        cited_text=passage,
                        document_index=index,
                        document_title=None,
                        start_char_index=0,
                        end_char_index=len(passage),
                    )
                ],
            )
        )
        content.append(anthropic_types.TextBlock(type="text", text=".\n- " if index == 0 else "."))
    message = anthropic_types.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="end_turn",
        stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=10, output_tokens=10),
        content=content,
    )
    record = {
        "app": "shop",
        "timestamp": "2026-12-01T10:00:00Z",
        "request": {
            "model": "claude-sonnet-4-5",
            "max_tokens": 256,
            "messages": [
                {"role": "user", "content": [*documents, {"type": "text", "text": "Prices?"}]}
            ],
        },
        "response": json.loads(message.model_dump_json()),
    }
    return json.dumps(record).encode()


def test_anthropic_bulleted_citations_are_judged_and_page(
    judge: FakeOpenAI, tmp_path: Path
) -> None:
    [record] = _check(judge, tmp_path, _anthropic_record(), "--input-format", "anthropic_messages")
    texts = [(c["text"], c.get("verdict"), c.get("critical_reason")) for c in record["claims"]]
    assert texts == [
        (PRICE, "supported", None),
        (UPGRADE_CLAIM, "unsupported", "judged_unsupported"),
    ]
    assert record["scores"]["critical_unsupported"] == 1


@pytest.mark.integration
def test_citewatch_run_pages_on_a_marker_first_answer(judge: FakeOpenAI, tmp_path: Path) -> None:
    path, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    path.write_bytes(_trace(f"[S1] {PRICE} [S2] {UPGRADE_CLAIM}") + b"\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    env.update({"PYTHONPATH": str(ROOT), **_env(judge), "CITEWATCH_SAMPLING_RATE": "1"})
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from sidecar.cli import main; sys.exit(main())",
            "run",
            "--input",
            str(path),
            "--once",
            "--judge",
            "openai-chat",
            "--output",
            str(out),
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert _claims(record) == EXPECTED
    assert record["scores"]["critical_unsupported"] == 1


def _otlp_record() -> bytes:
    """OpenInference spans of one RAG request whose answer numbers the retrieved documents
    by position, marker first, in a bulleted list."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "support-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("rag-app")
    with tracer.start_as_current_span(
        "rag", attributes={"openinference.span.kind": "CHAIN", "input.value": "Prices?"}
    ):
        with tracer.start_as_current_span(
            "retrieve",
            attributes={
                "openinference.span.kind": "RETRIEVER",
                "retrieval.documents.0.document.id": "kb-pricing-2",
                "retrieval.documents.0.document.content": PRICE,
                "retrieval.documents.1.document.id": "kb-upgrades-7",
                "retrieval.documents.1.document.content": UPGRADE_PASSAGE,
            },
        ):
            pass
        with tracer.start_as_current_span(
            "llm",
            attributes={
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-4.1-mini",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": f"- [1] {PRICE}\n- [2] {UPGRADE_CLAIM}",
            },
        ):
            pass
    provider.shutdown()
    return otlp_json_record(list(exporter.get_finished_spans()))


def test_otlp_spans_numbered_by_position_are_judged_and_page(
    judge: FakeOpenAI, tmp_path: Path
) -> None:
    [record] = _check(judge, tmp_path, _otlp_record(), "--input-format", "otlp_json")
    assert _claims(record) == [
        (PRICE, ["kb-pricing-2"], "supported", None),
        (UPGRADE_CLAIM, ["kb-upgrades-7"], "unsupported", "judged_unsupported"),
    ]
    assert record["scores"]["critical_unsupported"] == 1
