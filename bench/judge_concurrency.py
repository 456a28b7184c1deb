"""Judge throughput against the concurrency bound, and the cost to non-sampled traces.

    python -m bench.judge_concurrency [--latency 0.5] [--waves 8] [--runs 3]
        [--levels 1,8,32] [--backend openai-responses|openai-chat] [--traces 2000]

Runs the real openai client against the local test server, in its own process, with a fixed
reply latency (from receipt of a request to its reply). (1) judged traces per second at
concurrency 1, 8 and 32 against the bound concurrency / latency (target: at least 90% of the
bound at 32), and the client's CPU time per judged trace; (2) per-trace time of the
deterministic path for traces the sampler skips, with the judge enabled and its slots busy,
against the same pipeline with no judge at all (baseline; target: under 10% slower).

The traces go through the service's own dispatch path, not a loop of the benchmark's: what
``citewatch run --input`` builds (metrics, stage timings, tracer, the pipeline) and its
FileRunner, which reads JSON lines, decodes, keeps ``input.concurrency`` records in
evaluation (here twice the judge's slots) and writes the records in order; the judge stage
bounds the calls with its semaphore, so a freed slot goes to the next waiting trace at once.
The Kafka runtime also starts a task per record, through the same semaphore (it starts a
poll's records together, so their checks run back to back before the loop reads a reply). No
batch waits for its slowest call; only a benchmark that starts a batch of traces together
and times it to the last reply does that: its first wave waits for the whole batch's checks,
redaction and screen, and its last for the slowest call. So the rate that counts is the
steady one: traces finished between the first and the last ``concurrency`` completions of a
run, per second (``steady``; median and best of ``--runs``, as the machine is shared and
other load lowers single runs). ``whole run`` counts the fill and the drain too, from the
first line read to the last record written. Each level first runs one trace and one full
wave, so its connections are open as in a running service. ``client CPU/trace`` is the
process's CPU time per judged trace, decoding and writing included (median of the runs).

What keeps concurrency 32 from the bound is the client's CPU on one event loop: a slot is
held from its request until the loop has parsed the reply, and replies that arrive together
wait for each other (the stage lets a waiting trace send its request before the trace that
freed the slot is scored and written, so they wait only for each other's parsing). The
backends send a request body encoded once per rubric through ``client.post`` and validate
only what they read of the reply (sidecar/judge/openai_backends.py, _openai_reply.py); what
is left is mostly the HTTP stack's (httpx, httpcore, h11: two socket writes per request, the
pool's idle-connection probes) and the openai client's request building. Profile the client
side in its steady state (py-spy from PyPI; attach after the warm-up, the server process is
not sampled)::

    python -m bench.judge_concurrency --levels 32 --traces 0 --runs 8 & sleep 10
    py-spy record -r 250 -o judge.svg --pid $! --duration 20
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from exporters.tracing import configure_tracing, get_tracer
from schemas import EvaluationRecord, Trace
from sidecar.assembly import build_pipeline
from sidecar.config import InputSettings, Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.filesource import FileRunner, JsonLinesSink
from sidecar.runtime.lines import LineSource
from tests.support.traces import refund_trace, trace_id


@dataclass(frozen=True)
class _Server:
    base_url: str


@contextmanager
def _server_process(latency: float) -> Iterator[_Server]:
    """The test server in its own process, so it does not share the client's GIL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "--latency", str(latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield _Server(process.stdout.readline().strip())
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


_BACKEND = "openai-responses"


def _settings(server: _Server, concurrency: int, **sampling: Any) -> Settings:
    return Settings(
        judge={
            "backend": _BACKEND,
            "base_url": server.base_url,
            "api_key": "bench-key",
            "concurrency": concurrency,
            "cache_size": 0,
            "timeout_seconds": 30.0,
        },
        sampling={
            "rate": 1.0,
            "requests_per_minute": None,
            "tokens_per_minute": None,
            "priority_new_generator_traces": 0,
            **sampling,
        },
    )


def _ordinary(n: int) -> Trace:
    """A trace no priority rule picks: one importance-2 claim the pre-screen passes."""
    return refund_trace(
        trace_id=trace_id(n),
        claims=[
            {
                "id": "c1",
                "text": "Pro plan refunds are available within 30 days.",
                "citation_ids": ["S1"],
                "importance": 2,
            }
        ],
    )


@dataclass(frozen=True)
class _Run:
    steady: float
    """Traces per second between the first and the last ``concurrency`` completions."""
    whole: float
    """Traces per second from the first line read to the last record written."""
    cpu_per_trace: float


class _Service:
    """What ``citewatch run --input`` builds: metrics, the pipeline with its judge observer,
    stage timings and a (no-op) tracer; each run reads its lines through a FileRunner."""

    def __init__(self, server: _Server, concurrency: int) -> None:
        self.concurrency = concurrency
        # The file source's window of records in evaluation: twice the judge's slots, so
        # a freed slot always has a trace waiting for it (input.concurrency, 64 by default).
        self.settings = _settings(server, concurrency).model_copy(
            update={"input": InputSettings(concurrency=max(64, 2 * concurrency))}
        )
        self.metrics = CitewatchMetrics(registry=CollectorRegistry())
        self.finished: list[tuple[float, bool]] = []
        self.pipeline = build_pipeline(
            self.settings,
            judge_observer=self.metrics,
            on_stage=self.metrics.observe_stage,
            tracer=get_tracer(configure_tracing(environ={})),
            on_record=self._finished,
        )

    def _finished(self, record: EvaluationRecord) -> None:
        self.finished.append((time.perf_counter(), record.judged))

    async def run(self, traces: list[Trace]) -> _Run:
        lines = b"".join(t.model_dump_json().encode() + b"\n" for t in traces)
        runner = FileRunner(
            settings=self.settings,
            pipeline=self.pipeline,
            metrics=self.metrics,
            source=LineSource(io.BytesIO(lines)),
            sink=JsonLinesSink(io.StringIO()),
        )
        self.finished.clear()
        cpu_start = time.process_time()
        start = time.perf_counter()
        summary = await runner.run(threading.Event())
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        assert summary.evaluated == len(traces), summary
        assert all(judged for _, judged in self.finished), "every trace should be judged"
        done = sorted(when for when, _ in self.finished)
        edge = self.concurrency
        middle = len(done) - 2 * edge
        steady = middle / (done[-edge - 1] - done[edge - 1]) if middle > 0 else 0.0
        return _Run(steady, len(traces) / elapsed, cpu / len(traces))


async def _throughput(server: _Server, concurrency: int, waves: int, runs: int) -> list[_Run]:
    service = _Service(server, concurrency)
    # Warm-up: the client's first request builds its types (seconds), and one full wave
    # opens the connections a running service keeps alive.
    await service.run([refund_trace(trace_id=trace_id(999_999))])
    await service.run([refund_trace(trace_id=trace_id(900_000 + n)) for n in range(concurrency)])
    results = [
        await service.run(
            [
                refund_trace(trace_id=trace_id(100_000 * (run + 1) + 1000 * concurrency + n))
                for n in range(concurrency * waves)
            ]
        )
        for run in range(runs)
    ]
    await _close(service.pipeline)
    return results


async def _close(pipeline: Pipeline) -> None:
    if pipeline.judge is not None:
        await pipeline.judge.aclose(5.0)


async def _deterministic(pipeline: Pipeline, traces: list[Trace], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for trace in traces:
            record = await pipeline.evaluate(trace)
            assert not record.judged
        best = min(best, time.perf_counter() - start)
    return best / len(traces)


async def _non_sampled_cost(server: _Server, count: int, repeat: int) -> tuple[float, float]:
    traces = [_ordinary(n) for n in range(count)]
    baseline = build_pipeline(
        _settings(server, 32).model_copy(
            update={"judge": _settings(server, 32).judge.model_copy(update={"backend": "none"})}
        )
    )
    assert baseline.judge is None
    # Only critical traces are sampled (priority); keep all 32 slots busy with them.
    judged = build_pipeline(_settings(server, 32, rate=0.0, priority_critical=True))
    await _deterministic(baseline, traces, 1)  # warm-up
    await judged.evaluate(refund_trace(trace_id=trace_id(89_999)))
    base = with_judge = float("inf")
    # Alternate the two so drifting load on a shared machine hits both alike.
    for round_ in range(repeat):
        base = min(base, await _deterministic(baseline, traces, 1))
        busy = [
            asyncio.ensure_future(
                judged.evaluate(refund_trace(trace_id=trace_id(90_000 + 100 * round_ + n)))
            )
            for n in range(32)
        ]
        await asyncio.sleep(0.05)
        with_judge = min(with_judge, await _deterministic(judged, traces, 1))
        await asyncio.gather(*busy)
    await _close(judged)
    return base, with_judge


async def main(
    latency: float, waves: int, runs: int, count: int, repeat: int, levels: list[int]
) -> None:
    with _server_process(latency) as server:
        print(
            f"judge throughput ({_BACKEND}) through citewatch run's file source, latency "
            f"{latency * 1000:.0f} ms, {runs} runs of {waves} waves"
        )
        print(
            f"{'concurrency':>11} {'bound':>7} {'steady/s':>9} {'median':>7} {'best':>7} "
            f"{'whole run':>10} {'client CPU/trace':>17}"
        )
        for concurrency in levels:
            results = await _throughput(server, concurrency, waves, runs)
            bound = concurrency / latency
            steady = [r.steady for r in results]
            median, best = statistics.median(steady), max(steady)
            whole = statistics.median(r.whole for r in results)
            cpu = statistics.median(r.cpu_per_trace for r in results)
            print(
                f"{concurrency:>11} {bound:>7.1f} {median:>9.2f} {median / bound:>7.1%} "
                f"{best / bound:>7.1%} {whole / bound:>10.1%} {cpu * 1e3:>14.2f} ms"
            )
        if count <= 0:
            return
        base, with_judge = await _non_sampled_cost(server, count, repeat)
        print()
        print(f"non-sampled traces ({count}, best of {repeat}):")
        print(f"  no judge (baseline)          {base * 1e6:8.1f} us/trace")
        print(f"  judge on, 32 calls in flight {with_judge * 1e6:8.1f} us/trace")
        print(f"  slowdown                     {with_judge / base - 1:+8.1%}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--waves", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--levels",
        type=lambda v: [int(x) for x in v.split(",")],
        default=[1, 8, 32],
        help="concurrency levels, comma-separated",
    )
    parser.add_argument("--backend", choices=["openai-responses", "openai-chat"], default=_BACKEND)
    parser.add_argument(
        "--traces", type=int, default=2000, help="non-sampled traces (0 skips that part)"
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _BACKEND = args.backend
    asyncio.run(main(args.latency, args.waves, args.runs, args.traces, args.repeat, args.levels))
