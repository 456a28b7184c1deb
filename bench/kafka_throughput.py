"""Throughput of `citewatch run` (no judge) against a bare kafka-python consumer, same topic,
against the same work done in-process without Kafka, and with several replicas in one group.

    python bench/kafka_throughput.py [--count 10000] [--replicas 1,2] [--rounds 3]
                                     [--partitions 4] [--bootstrap HOST:PORT]

Produces N traces of about 6 KB to a topic of 4 partitions (on a local broker started by
scripts/kafka-local unless --bootstrap is given), then measures in the same run:
  baseline    a bare KafkaConsumer that only polls and commits (explicit offsets) every batch
  in-process  the same N record values through what `citewatch run` does per record, in one
              thread with no Kafka: decode, pipeline (checks, redaction, scoring), metrics,
              the record's JSON
  citewatch   `citewatch run --judge none` over the same topic in its own group: the above,
              plus the evaluation record produced with acks=all and the commit after the ack
  replicas    for each count in --replicas above 1, that many `citewatch run` processes in
              one new group over the same topic (each replica gets partitions / replicas)
Kafka rates are records per second of the whole group, from the moment every replica has
its partitions (after the last rebalance) to the commit of the last record; the CPU time of
the replicas over that window is printed per record. Targets: citewatch / baseline >= 0.5;
citewatch / in-process >= 0.7 (the Kafka runtime's own cost: threads, hand-offs, producing,
committing), printed also as microseconds per record; 2 replicas / 1 replica >= 1.7 on two
free cores; next to it, the bound on this machine: the cores shared by the replicas and
the broker, divided by one replica's CPU per record plus the broker's (no more than n times
one replica), against one replica's rate. A round where a replica became ready only after
the others had committed every record is left out. --rounds repeats the in-process and
citewatch measurements alternately and prints medians, and every round prints the load
average: on a shared machine, a round taken while others load the cores says little.

Profiles behind the numbers in docs/operations.md (py-spy from PyPI: ``pip install
py-spy``): a running service, every thread, 25 s at 200 Hz, as raw collapsed stacks::

    py-spy record -r 200 -d 25 --threads --nonblocking -f raw -o run.txt --pid <pid>

(``--idle`` as well shows where the worker waits). The in-process path alone::

    py-spy record -r 200 -f raw -o inprocess.txt -- \\
        python bench/kafka_throughput.py --in-process-only --count 4000

Every run also prints, for the single replica, the CPU microseconds per record of each of
its threads (medians of the rounds) next to the in-process path's one thread: the poll
thread (MainThread), the worker's event loop (citewatch-worker), kafka-python's producer
sender (citewatch-network-thread) and consumer IO thread (kafka-io-*). They come from
/proc/<pid>/task/*/stat (utime + stime) read when the replica is ready and at the last
commit; the names from a file the replica writes as it starts each thread (Python 3.11
gives its threads no OS-level name).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.structs import OffsetAndMetadata

from tests.support.kafka import create_topics, kafka_local, unique  # noqa: E402


def trace(i: int, size: int = 6000) -> bytes:
    """A valid trace of about ``size`` bytes: three sources, three claims."""
    filler = "The plan terms apply to every customer account in the region. "
    sources = [
        {
            "id": f"S{n}",
            "title": f"Policy {n}",
            "text": (filler * (size // (3 * len(filler)) + 1))[: size // 3 - 120],
        }
        for n in (1, 2, 3)
    ]
    data = {
        "schema_version": "1",
        "trace_id": uuid.uuid5(uuid.NAMESPACE_OID, str(i)).hex,
        "timestamp": "2026-11-30T10:00:00Z",
        "app": "support",
        "generator": {"model": "gen-a", "prompt_version": "v3"},
        "question": "What do the plan terms say?",
        "answer": "The terms apply to every account [S1]. They cover the region [S2, S3].",
        "sources": sources,
        "claims": [
            {
                "id": "c1",
                "text": "The terms apply to every account.",
                "citation_ids": ["S1"],
                "importance": 3,
            },
            {
                "id": "c2",
                "text": "They cover the region.",
                "citation_ids": ["S2", "S3"],
                "importance": 2,
            },
            {"id": "c3", "text": "Refunds take a week.", "citation_ids": [], "importance": 1},
        ],
    }
    return json.dumps(data).encode()


def produce(bootstrap: str, topic: str, count: int, *, partitions: int = 4) -> None:
    create_topics(bootstrap, [topic], partitions)
    create_topics(bootstrap, [topic + ".evals", topic + ".dlt"], 3)
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=20, batch_size=262_144)
    for i in range(count):
        producer.send(topic, trace(i))
    producer.flush()
    producer.close()


def bare_consumer(bootstrap: str, topic: str, count: int) -> float:
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"{topic}-bare",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    seen = 0
    first = 0.0
    while seen < count:
        batch = consumer.poll(timeout_ms=200)
        if not batch:
            continue
        if not first:
            first = time.perf_counter()
        offsets = {}
        for tp, records in batch.items():
            seen += len(records)
            offsets[tp] = OffsetAndMetadata(records[-1].offset + 1, "", -1)
        consumer.commit(offsets=offsets)
    elapsed = time.perf_counter() - first
    consumer.close()
    return count / elapsed


def _committed(bootstrap: str, group: str, topic: str) -> int:
    # A fresh admin client each time: one that failed while the group was being created
    # keeps failing.
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        offsets = admin.list_group_offsets({group: None}).get(group, {})
    except Exception:
        return 0
    finally:
        admin.close()
    return sum(m.offset for tp, m in offsets.items() if tp.topic == topic and m.offset > 0)


def in_process(count: int, *, repeat: int = 3) -> tuple[float, float]:
    """Records per second of `citewatch run`'s per-record work without Kafka (best of
    ``repeat``), with the settings `citewatch run --judge none` gets from an empty
    environment, and the CPU microseconds per record of that best repeat (one thread)."""
    import asyncio

    from prometheus_client import CollectorRegistry

    from exporters.prometheus import CitewatchMetrics
    from sidecar.assembly import build_pipeline
    from sidecar.config import Settings
    from sidecar.decode import decode_trace
    from sidecar.runtime.guard import serialise_record

    env = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("CITEWATCH_")}
    try:
        settings = Settings(judge={"backend": "none"})
    finally:
        os.environ.update(env)
    metrics = CitewatchMetrics(registry=CollectorRegistry(), apps=settings.metrics.apps)
    pipeline = build_pipeline(settings, judge_observer=metrics, on_stage=metrics.observe_stage)
    values = [trace(i) for i in range(count)]

    async def run_all() -> None:
        for value in values:
            started = time.perf_counter()
            evaluated = decode_trace(value)
            metrics.observe_stage("decode", time.perf_counter() - started)
            record = await pipeline.evaluate(evaluated)
            serialise_record(record)
            metrics.observe_record(record)
            metrics.mark_processed(time.time())

    best, best_cpu = float("inf"), 0.0
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.thread_time()
        asyncio.run(run_all())
        elapsed = time.perf_counter() - start
        if elapsed < best:
            best, best_cpu = elapsed, time.thread_time() - cpu
    return count / best, best_cpu / count * 1e6


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_cpu(pid: int) -> dict[int, float]:
    """User + system CPU seconds of every thread of a process so far, by thread ID."""
    times: dict[int, float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return times
    for tid in tids:
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended
        times[int(tid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return times


# Python 3.11 does not give its threads OS-level names: the child process writes the
# native ID and Python name of every thread it starts to a file, read back here.
_NAME_THREADS = """
import os, threading
_names = os.environ.pop("BENCH_THREAD_NAMES")
with open(_names, "a") as _out:
    _out.write(f"{os.getpid()} MainThread\\n")
_bootstrap = threading.Thread._bootstrap_inner
def _named(self):
    with open(_names, "a") as out:
        out.write(f"{threading.get_native_id()} {self.name}\\n")
    _bootstrap(self)
threading.Thread._bootstrap_inner = _named
"""

BROKER = "(broker process)"
"""The key of the broker's CPU per record among a replica's threads (not one of them)."""

THREAD_ROLES = {
    "MainThread": "consumer poll, commits",
    "citewatch-worker": "asyncio loop: decode, pipeline, send",
    "citewatch-network-thread": "kafka-python producer sender",
}


def _thread_role(name: str) -> str:
    if name.startswith("kafka-io"):
        return "kafka-python consumer IO"
    return THREAD_ROLES.get(name, "")


def _per_thread(
    before: dict[int, float], after: dict[int, float], names_file: Path, records: int
) -> dict[str, float]:
    """CPU microseconds per record of each named thread between two snapshots."""
    names: dict[int, str] = {}
    if names_file.exists():
        for line in names_file.read_text().splitlines():
            native_id, _, name = line.partition(" ")
            names[int(native_id)] = name
    usage: dict[str, float] = {}
    for tid, seconds in after.items():
        label = names.get(tid, f"thread {tid}")
        usage[label] = usage.get(label, 0.0) + (seconds - before.get(tid, 0.0)) / records * 1e6
    return usage


def _ready(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class NotReady(RuntimeError):
    """A replica became ready only after the others had committed every record: the round
    has no window in which all of them ran (a slow start on a loaded machine)."""


def sidecar(
    bootstrap: str,
    topic: str,
    count: int,
    *,
    replicas: int = 1,
    redaction: bool = True,
    group: str | None = None,
    broker_pid: int | None = None,
) -> tuple[float, float, dict[str, float]]:
    """Records per second of ``replicas`` `citewatch run --judge none` processes in one new
    consumer group over ``topic``, their CPU microseconds per record, and (one replica) the
    CPU microseconds per record of each of its threads by name (and of the broker's process,
    named ``BROKER``, when ``broker_pid`` is given: it shares the cores).

    The clock starts once every replica is ready at the same moment (partitions assigned
    after the last rebalance), at the records committed by then; it stops when the group's
    committed offsets reach ``count``. Records the first replica took alone while the
    others were starting are outside the window.
    """
    group = group or f"{topic}-citewatch-{replicas}-{'r' if redaction else 'plain'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    if not redaction:
        env["CITEWATCH_REDACTION_ENABLED"] = "false"
    names_file = Path(tempfile.mkdtemp(prefix="bench-threads-")) / "names"
    env["BENCH_THREAD_NAMES"] = str(names_file)
    ports = [_free_port() for _ in range(replicas)]
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _NAME_THREADS + "import sys; from sidecar.cli import main; sys.exit(main())",
                "run",
                "--bootstrap-servers",
                bootstrap,
                "--topic",
                topic,
                "--group",
                group,
                "--evaluations-topic",
                topic + ".evals",
                "--dead-letter-topic",
                topic + ".dlt",
                "--judge",
                "none",
                "--metrics-port",
                str(port),
                "--metrics-address",
                "127.0.0.1",
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    try:
        first_at, first_count, first_cpu = 0.0, 0, 0.0
        first_threads: dict[int, float] = {}
        first_broker = 0.0
        while True:
            for process in processes:
                if process.poll() is not None:
                    raise RuntimeError(f"citewatch run exited with {process.returncode}")
            if not first_at:
                if all(_ready(port) for port in ports):
                    first_cpu = sum(_cpu_seconds(p.pid) for p in processes)
                    first_threads = _thread_cpu(processes[0].pid)
                    first_broker = _cpu_seconds(broker_pid) if broker_pid else 0.0
                    first_at = time.perf_counter()
                    first_count = _committed(bootstrap, group, topic)
                    if first_count >= count:
                        raise NotReady(
                            f"every record was committed before all {replicas} replicas were ready"
                        )
                time.sleep(0.1)
                continue
            done = _committed(bootstrap, group, topic)
            now = time.perf_counter()
            if done >= count:
                cpu = sum(_cpu_seconds(p.pid) for p in processes) - first_cpu
                records = count - first_count
                threads = (
                    _per_thread(first_threads, _thread_cpu(processes[0].pid), names_file, records)
                    if replicas == 1
                    else {}
                )
                if broker_pid and replicas == 1:
                    threads[BROKER] = (_cpu_seconds(broker_pid) - first_broker) / records * 1e6
                return records / (now - first_at), cpu / records * 1e6, threads
            time.sleep(0.25)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def _print_threads(rounds: list[dict[str, float]], in_process_cpu: float) -> None:
    """CPU microseconds per record of each thread of the single replica (medians of the
    rounds), next to the in-process path's one thread: the runtime's own cost, itemised."""
    broker = [usage.pop(BROKER) for usage in rounds if BROKER in usage]
    names = sorted(
        {name for usage in rounds for name in usage},
        key=lambda name: statistics.median(u.get(name, 0.0) for u in rounds),
    )
    shown = [name for name in names if statistics.median(u.get(name, 0.0) for u in rounds) >= 0.5]
    print("CPU us per record by thread (1 replica, medians of the rounds):")
    for name in reversed(shown):
        value = statistics.median(usage.get(name, 0.0) for usage in rounds)
        role = _thread_role(name)
        beside = f"   in-process {in_process_cpu:7.1f}" if name == "citewatch-worker" else ""
        print(f"  {name:26s} {value:7.1f}{beside}   {role}")
    rest = statistics.median(sum(v for n, v in usage.items() if n not in shown) for usage in rounds)
    if rest >= 0.05:
        print(f"  {'(other threads)':26s} {rest:7.1f}")
    total = statistics.median(sum(usage.values()) for usage in rounds)
    print(
        f"  {'total':26s} {total:7.1f}   in-process {in_process_cpu:7.1f}   "
        f"(runtime's own: {total - in_process_cpu:.1f}; ratio by CPU time "
        f"{in_process_cpu / total:.2f})"
    )
    if broker:
        print(
            f"  the broker, same cores:    {statistics.median(broker):7.1f}   (not citewatch's "
            "own; the in-process path runs with the broker idle)"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument(
        "--partitions", type=int, default=4, help="partitions of the input topic (default 4)"
    )
    parser.add_argument(
        "--replicas",
        default="1",
        help="comma-separated replica counts to measure, e.g. 1,2 (default 1)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="repeat every measurement this often, alternating, and print "
        "medians (the machine may be shared)",
    )
    parser.add_argument("--bootstrap", default=None, help="use this broker instead")
    parser.add_argument(
        "--broker-pid",
        type=int,
        default=None,
        help="with --bootstrap on this machine: the broker's pid, to print its CPU per record too",
    )
    parser.add_argument(
        "--no-redaction",
        action="store_true",
        help="also measure citewatch with redaction off (the runtime's own cost)",
    )
    parser.add_argument(
        "--in-process-only",
        action="store_true",
        help="measure only the in-process path (no broker; for profiling)",
    )
    args = parser.parse_args()
    if args.in_process_only:
        rate, cpu = in_process(args.count)
        print(f"in-process path: {rate:9.0f} records/s, {cpu:.0f} CPU us per record")
        return 0
    counts = sorted({int(n) for n in args.replicas.split(",")} | {1})
    broker = None
    bootstrap = args.bootstrap
    if bootstrap is None:
        broker = kafka_local().LocalKafka(Path(tempfile.mkdtemp(prefix="bench-kafka-")))
        bootstrap = broker.start()
    broker_pid = args.broker_pid
    if broker is not None and broker.process is not None:
        broker_pid = broker.process.pid
    try:
        topic = unique("bench")
        from kafka.record.util import crc32c_c

        # Record-batch CRCs dominate kafka-python's per-record cost unless the C crc32c
        # package is installed (a citewatch dependency); say which one both sides ran with.
        print(f"record CRC: {'C (crc32c package)' if crc32c_c else 'pure Python'}")
        print(f"at start: {_load()}")
        print(
            f"producing {args.count} traces of {len(trace(0))} bytes to {topic} "
            f"({args.partitions} partitions)"
        )
        produce(bootstrap, topic, args.count, partitions=args.partitions)
        baseline = bare_consumer(bootstrap, topic, args.count)
        print(f"baseline  bare kafka-python consumer, poll+commit: {baseline:9.0f} records/s")
        local: list[float] = []
        local_cpus: list[float] = []
        threads: list[dict[str, float]] = []
        rates: dict[int, list[float]] = {n: [] for n in counts}
        cpus: dict[int, list[float]] = {n: [] for n in counts}
        ratios: list[float] = []
        # one replica's rate in the round of each measurement of n replicas (paired ratios)
        one_replica: dict[int, list[float]] = {n: [] for n in counts}
        for round_ in range(args.rounds):
            local_rate, local_cpu = in_process(args.count)
            local.append(local_rate)
            local_cpus.append(local_cpu)
            measured: dict[int, str] = {}
            one_rate: float | None = None  # counts are sorted: 1 comes first
            for n in counts:
                try:
                    rate, cpu, per_thread = sidecar(
                        bootstrap,
                        topic,
                        args.count,
                        replicas=n,
                        group=f"{topic}-citewatch-{n}-{round_}",
                        broker_pid=broker_pid,
                    )
                except NotReady as exc:
                    measured[n] = f"not measured ({exc})"
                    continue
                if n == 1:
                    one_rate = rate
                elif one_rate is None:
                    measured[n] = f"{rate:.0f}, left out (1 replica not measured this round)"
                    continue
                rates[n].append(rate)
                cpus[n].append(cpu)
                one_replica[n].append(one_rate)
                measured[n] = f"{rate:.0f}"
                if n == 1:
                    threads.append(per_thread)
                    ratios.append(rate / local[-1])
            print(
                f"round {round_ + 1}: in-process {local[-1]:.0f}, "
                + ", ".join(f"{n} replica(s) {measured[n]}" for n in counts)
                + f" records/s; {_load()}",
                flush=True,
            )
        median = statistics.median
        if not rates[1]:
            print("citewatch run not measured: raise --count")
            return 1
        inproc, rate = median(local), median(rates[1])
        print(f"in-process path (decode, evaluate, metrics, JSON):    {inproc:9.0f} records/s")
        print(
            f"citewatch run --judge none (evaluate, produce, commit): {rate:9.0f} records/s, "
            f"{median(cpus[1]):.0f} CPU us per record"
        )
        print(f"ratio citewatch/baseline: {rate / baseline:.2f} (target >= 0.50)")
        print(
            f"ratio citewatch/in-process: {median(ratios):.2f} (median of the rounds' "
            f"ratios; target >= 0.70); the Kafka runtime adds "
            f"{(1 / rate - 1 / inproc) * 1e6:.0f} us per record"
        )
        broker_us = median(t.get(BROKER, 0.0) for t in threads)  # before the print pops it
        _print_threads(threads, median(local_cpus))
        # What n replicas could do at best on this machine: the cores shared by the replicas
        # and the broker, at one replica's CPU per record and the broker's, and never more
        # than n times one replica.
        cores = os.cpu_count() or 1
        for n in counts[1:]:
            if not rates[n]:
                print(f"{n} replicas: not measured in any round (raise --count)")
                continue
            many = median(rates[n])
            paired = median(r / one for r, one in zip(rates[n], one_replica[n], strict=True))
            bound = min(n * rate, cores / ((median(cpus[1]) + broker_us) / 1e6))
            print(
                f"{n} replicas, one group, {args.partitions} partitions: {many:9.0f} records/s "
                f"({many / n:.0f} per replica, {median(cpus[n]):.0f} CPU us per record); "
                f"{n} replicas / 1 replica: {paired:.2f} (median of the rounds' ratios; "
                f"{many / rate:.2f} by the medians; target >= 1.7); the bound on "
                f"{cores} cores shared with the broker ({broker_us:.0f} CPU us per record): "
                f"{bound / rate:.2f}"
            )
        if args.no_redaction:
            plain, _, _ = sidecar(bootstrap, topic, args.count, redaction=False)
            print(f"citewatch run --judge none, redaction off:             {plain:9.0f} records/s")
            print(f"ratio citewatch (redaction off)/baseline: {plain / baseline:.2f}")
        print(f"at end: {_load()}")
    finally:
        if broker is not None:
            broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
