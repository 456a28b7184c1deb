"""Requests and prompt tokens per judged trace: citewatch against Ragas and DeepEval.

    python -m bench.judge_cost [--traces 50] [--replies minimal|realistic]

The same example traces go through the same counting server (tests/support/openai_server.py;
one token rule for every client). citewatch sends one request per judged trace with only
the passages each claim cites, after the offline screen has settled what it is sure of; it
runs twice, with the screen (the default) and LLM only, and prints the share of cited claims
resolved without the LLM and the prompt tokens per judged trace of both. The baselines,
Ragas ``Faithfulness`` and DeepEval ``FaithfulnessMetric``, are given the question, the
answer and all retrieved sources, as their APIs expect, and are pointed at the server by
base_url. For them the server answers
every request with a minimal instance of the JSON schema the request asks for (from
``response_format`` / ``text.format`` or a schema embedded in the prompt), which is enough
for them to finish; the verdicts are meaningless, the request and token counts are not.

Prompt tokens are the message text of every request (one rule for every client). The output
schema and tools a request sends are counted apart by the same rule (providers bill them
too). The content floor is what any judge of these claims must read (question, cited
passages, claims) with no instructions at all: it bounds how lean a prompt can be without
cutting passages. The baselines' later requests carry what their earlier replies said; the
minimal replies keep those short, so their counts here are if anything low;
``--replies realistic`` answers them with the trace's claims and source sentences instead.

Ragas and DeepEval are not project dependencies. Install them into a separate environment
(``pip install ragas deepeval``); when one is missing or cannot run against the server, this
prints why and leaves it out. Target: one request per judged trace and at most a third of
the prompt tokens of the cheaper baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bench._traces import make_trace
from schemas import Trace
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from tests.support.openai_server import (
    Action,
    FakeOpenAI,
    Recorded,
    Reply,
    count_tokens,
    packet_of,
    prompt_text,
    supported_everything,
)

MODEL = "judge-model-2026-01-01"
BASELINE_MODEL = "gpt-4.1-mini"
"""The baselines are told a model they know supports structured outputs, so they use their
cheapest well-formed path; the server answers any model name alike."""


@dataclass(frozen=True)
class Cost:
    name: str
    traces: int
    requests: int
    prompt_tokens: int
    schema_tokens: int

    @property
    def requests_per_trace(self) -> float:
        return self.requests / self.traces

    @property
    def tokens_per_trace(self) -> float:
        return self.prompt_tokens / self.traces

    @property
    def schema_tokens_per_trace(self) -> float:
        return self.schema_tokens / self.traces


def schema_tokens(body: dict[str, Any]) -> int:
    """Tokens of the output schema and tools a request sends outside its messages (providers
    bill them as prompt tokens too); counted by the same rule, for every client alike."""
    sent = {k: body[k] for k in ("response_format", "text", "tools", "functions") if k in body}
    return count_tokens(json.dumps(sent)) if sent else 0


def _cost(name: str, traces: int, sent: list[Recorded]) -> Cost:
    return Cost(
        name,
        traces,
        len(sent),
        sum(count_tokens(r.text) for r in sent),
        sum(schema_tokens(r.body) for r in sent),
    )


def content_floor(traces: list[Trace]) -> float:
    """Tokens per trace of what any judge of these claims must read: the question, each
    cited passage once and the claim texts, with no instructions and no framing."""
    total = 0
    for trace in traces:
        texts = {source.id: source.text for source in trace.sources}
        judged = [c for c in trace.claims if any(i in texts for i in c.citation_ids)]
        cited = {i for claim in judged for i in claim.citation_ids if i in texts}
        total += count_tokens(trace.question) + sum(count_tokens(texts[i]) for i in cited)
        total += sum(count_tokens(claim.text) for claim in judged)
    return total / len(traces)


# -- a server reply for any framework: the minimal instance of the requested schema ----------


def _minimal(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    if "$ref" in schema:
        return _minimal(defs[schema["$ref"].split("/")[-1]], defs)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return _minimal(schema[key][0], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {name: _minimal(sub, defs) for name, sub in props.items()}
    if kind == "array":
        return [_minimal(schema.get("items", {"type": "string"}), defs)]
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "yes"


def _requested_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or (body.get("text") or {}).get("format")
    if isinstance(fmt, dict):
        if "json_schema" in fmt and isinstance(fmt["json_schema"], dict):
            return fmt["json_schema"].get("schema")
        if "schema" in fmt:
            return fmt["schema"]
    text = prompt_text(body)
    for match in re.finditer(r"(?i)json[ _]?schema[^{]{0,80}", text):
        start = text.find("{", match.end() - 1)
        if start < 0:
            continue
        try:
            schema, _ = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            continue
        if isinstance(schema, dict):
            return schema
    return None


def any_framework(body: dict[str, Any]) -> Action:
    """citewatch packets get verified verdicts; anything else a minimal schema instance."""
    if packet_of(body) is not None:
        return supported_everything(body)
    schema = _requested_schema(body)
    if schema is None:
        return Reply(text="{}")
    return Reply(text=json.dumps(_minimal(schema, schema.get("$defs", {}))))


_SENTENCE = re.compile(r"[^.]+\.")


class RealisticReplies:
    """Replies of the size a model would give the baselines' multi-step prompts.

    The minimal replies leave each baseline's later prompts nearly empty (they quote what the
    earlier replies said). Here a list of strings named like statements or claims holds the
    claims of the trace in the prompt, one named like truths holds its sources' sentences,
    and a list of objects holds one item per claim. citewatch's replies do not change.
    """

    def __init__(self, traces: list[Trace]) -> None:
        self._traces = traces

    def _trace_in(self, text: str) -> Trace | None:
        for trace in self._traces:
            if any(claim.text[:-1] in text for claim in trace.claims) or any(
                source.text[:80] in text for source in trace.sources
            ):
                return trace
        return None

    def _fill(self, schema: dict[str, Any], defs: dict[str, Any], name: str, trace: Trace) -> Any:
        if "$ref" in schema:
            return self._fill(defs[schema["$ref"].split("/")[-1]], defs, name, trace)
        claims = [claim.text for claim in trace.claims]
        kind = schema.get("type")
        if kind == "object" or "properties" in schema:
            return {
                key: self._fill(sub, defs, key, trace)
                for key, sub in schema.get("properties", {}).items()
            }
        if kind == "array":
            items = schema.get("items", {"type": "string"})
            if items.get("type") == "string":
                if "truth" in name.lower():
                    return [m.strip() for s in trace.sources for m in _SENTENCE.findall(s.text)]
                return claims
            return [self._fill(items, defs, "item", trace) for _ in claims]
        if kind == "string" and "enum" not in schema:
            if name.lower() in ("statement", "claim"):
                return claims[0]
            return "The context states this directly."
        return _minimal(schema, defs)

    def __call__(self, body: dict[str, Any]) -> Action:
        if packet_of(body) is not None:
            return supported_everything(body)
        schema = _requested_schema(body)
        trace = self._trace_in(prompt_text(body))
        if schema is None or trace is None:
            return any_framework(body)
        return Reply(text=json.dumps(self._fill(schema, schema.get("$defs", {}), "", trace)))


# -- the three clients -----------------------------------------------------------------------


@dataclass(frozen=True)
class Resolution:
    """What resolved the cited claims of citewatch's judged traces."""

    screen: int
    llm: int
    cache: int
    abstained: int

    @property
    def without_llm(self) -> int:
        return self.screen + self.cache

    @property
    def with_verdict(self) -> int:
        return self.screen + self.llm + self.cache


async def citewatch_cost(
    server: FakeOpenAI, traces: list[Trace], *, screen: bool = True
) -> tuple[Cost, Resolution]:
    """citewatch's requests and prompt tokens per judged trace, with the offline screen in
    front of the LLM (the default) or without it, and what resolved each claim."""
    settings = Settings(
        judge={
            "backend": "openai-responses",
            "base_url": server.base_url,
            "api_key": "bench-key",
            "model": MODEL,
            "cache_size": 0,
            "screen": screen,
        },
        sampling={"rate": 1.0, "requests_per_minute": None, "tokens_per_minute": None},
    )
    pipeline = build_pipeline(settings)
    before = len(server.recorded())
    records = [await pipeline.evaluate(t) for t in traces]
    judged = sum(r.judged for r in records)
    if pipeline.judge is not None:
        await pipeline.judge.aclose(5.0)
    by = Counter(
        c.resolved_by or c.not_judged for r in records for c in r.claims if c.status == "cited"
    )
    name = "citewatch" if screen else "citewatch, LLM only"
    return (
        _cost(name, judged, server.recorded()[before:]),
        Resolution(by["screen"], by["llm"], by["cache"], by["abstained"]),
    )


def _contexts(trace: Trace) -> list[str]:
    return [source.text for source in trace.sources]


async def ragas_cost(server: FakeOpenAI, traces: list[Trace]) -> Cost:
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import Faithfulness

    client = AsyncOpenAI(base_url=server.base_url, api_key="bench-key", max_retries=0)
    metric = Faithfulness(llm=llm_factory(BASELINE_MODEL, client=client))
    before = len(server.recorded())
    for trace in traces:
        await metric.ascore(
            user_input=trace.question, response=trace.answer, retrieved_contexts=_contexts(trace)
        )
    return _cost("ragas Faithfulness", len(traces), server.recorded()[before:])


async def deepeval_cost(server: FakeOpenAI, traces: list[Trace]) -> Cost:
    os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model=BASELINE_MODEL, base_url=server.base_url, api_key="bench-key")
    metric = FaithfulnessMetric(model=model, async_mode=True, include_reason=True)
    before = len(server.recorded())
    for trace in traces:
        case = LLMTestCase(
            input=trace.question, actual_output=trace.answer, retrieval_context=_contexts(trace)
        )
        await metric.a_measure(case, _show_indicator=False)
    return _cost("deepeval FaithfulnessMetric", len(traces), server.recorded()[before:])


async def main(count: int, replies: str) -> None:
    traces = [Trace.model_validate(make_trace(i)) for i in range(count)]
    baselines: list[tuple[str, Callable[[FakeOpenAI, list[Trace]], Awaitable[Cost]]]] = [
        ("ragas", ragas_cost),
        ("deepeval", deepeval_cost),
    ]
    responder = RealisticReplies(traces) if replies == "realistic" else any_framework
    with FakeOpenAI(responder=responder) as server:
        ours, resolution = await citewatch_cost(server, traces)
        llm_only, _ = await citewatch_cost(server, traces, screen=False)
        results: list[Cost] = []
        for name, run in baselines:
            try:
                results.append(await run(server, traces))
            except ImportError as exc:
                print(f"{name}: not installed here ({exc.name or exc}); left out")
            except Exception as exc:  # a baseline that cannot run is reported, not fatal
                last = traceback.extract_tb(exc.__traceback__)[-1]
                print(
                    f"{name}: could not run against the local server "
                    f"({type(exc).__name__}: {str(exc)[:160]} at {last.filename}:"
                    f"{last.lineno}); left out"
                )
    print()
    print(
        f"{count} traces, {replies} replies to the baselines, prompt tokens counted by one "
        "rule on the same server "
        "(message text; the schema column is the response format and tools, not included)"
    )
    print(
        f"{'client':<30} {'judged':>6} {'requests/trace':>15} {'prompt tokens/trace':>20} "
        f"{'schema tokens/trace':>20}"
    )
    for cost in (ours, llm_only, *results):
        print(
            f"{cost.name:<30} {cost.traces:>6} {cost.requests_per_trace:>15.2f} "
            f"{cost.tokens_per_trace:>20.1f} {cost.schema_tokens_per_trace:>20.1f}"
        )
    floor = content_floor(traces)
    print(f"{'content floor (no instructions)':<30} {'':>6} {'':>15} {floor:>20.1f}")
    print()
    print("citewatch cascade: the offline screen first, the LLM for what it does not settle")
    share = resolution.without_llm / resolution.with_verdict if resolution.with_verdict else 0.0
    print(
        f"  cited claims resolved without the LLM  {resolution.without_llm} of "
        f"{resolution.with_verdict} ({share:.1%}; screen {resolution.screen}, cache "
        f"{resolution.cache}, LLM {resolution.llm}, abstained {resolution.abstained})"
    )
    print(
        f"  prompt tokens per judged trace         {ours.tokens_per_trace:.1f} against "
        f"{llm_only.tokens_per_trace:.1f} LLM only: ratio "
        f"{ours.tokens_per_trace / llm_only.tokens_per_trace:.3f}"
    )
    if not results:
        print("\nno baseline could run: only citewatch's numbers are shown, no ratio")
        return
    cheaper = min(results, key=lambda c: c.tokens_per_trace)
    print()
    print(f"citewatch / {cheaper.name} (the cheaper baseline):")
    print(f"  requests per trace       {ours.requests_per_trace / cheaper.requests_per_trace:.3f}")
    print(f"  prompt tokens per trace  {ours.tokens_per_trace / cheaper.tokens_per_trace:.3f}")
    with_schema = (ours.tokens_per_trace + ours.schema_tokens_per_trace) / (
        cheaper.tokens_per_trace + cheaper.schema_tokens_per_trace
    )
    print(f"  incl. schema tokens      {with_schema:.3f}")
    print(
        f"  content floor alone      {floor / cheaper.tokens_per_trace:.3f} "
        "(the question, cited passages and claims, before any instruction)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--traces", type=int, default=50)
    parser.add_argument(
        "--replies",
        choices=["minimal", "realistic"],
        default="minimal",
        help="what the server answers the baselines (see RealisticReplies)",
    )
    args = parser.parse_args()
    asyncio.run(main(args.traces, args.replies))
