"""`citewatch review import / status / purge / serve` from the command line."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner

from sidecar.assembly import build_pipeline
from sidecar.cli import cli
from sidecar.config import load_settings
from sidecar.decode import decode_trace
from sidecar.review.store import ReviewStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
ENV = {"CITEWATCH_JUDGE_BACKEND": "lexical", "CITEWATCH_SAMPLING_RATE": "1.0"}


@pytest.fixture
def records(tmp_path: Path) -> Path:
    settings = load_settings(overrides={"judge.backend": "lexical", "sampling.rate": 1.0})
    pipeline = build_pipeline(settings)

    async def run() -> list[str]:
        return [
            (await pipeline.evaluate(decode_trace(line))).model_dump_json()
            for line in EXAMPLES.read_text().splitlines()
            if line.strip()
        ]

    path = tmp_path / "evaluations.jsonl"
    path.write_text("\n".join(asyncio.run(run())) + "\n")
    return path


def test_import_with_traces_keeps_redacted_passages(records: Path, tmp_path: Path) -> None:
    store = tmp_path / "review.sqlite"
    args = ["review", "import", str(records), "--traces", str(EXAMPLES), "--store", str(store)]
    result = CliRunner().invoke(cli, args, env=ENV)
    assert result.exit_code == 0, result.output
    # The examples' critical abstentions and the screen's suspicions (2).
    assert "10 routed claims: 10 stored, 0 already there" in result.output
    again = CliRunner().invoke(cli, args, env=ENV)
    assert "10 routed claims: 0 stored, 10 already there" in again.output
    with ReviewStore(store) as opened:
        items = opened.items()
    assert len(items) == 10
    assert {tuple(i.reasons) for i in items} == {("abstained_critical",), ("suspect",)}
    assert all(p.text for i in items for p in i.passages)
    status = CliRunner().invoke(cli, ["review", "status", "--store", str(store)])
    assert status.exit_code == 0
    assert "abstained_critical 8" in status.output


def test_import_without_traces_keeps_source_ids_only(records: Path, tmp_path: Path) -> None:
    store = tmp_path / "review.sqlite"
    result = CliRunner().invoke(
        cli, ["review", "import", str(records), "--store", str(store)], env=ENV
    )
    assert result.exit_code == 0, result.output
    with ReviewStore(store) as opened:
        items = opened.items()
    assert items and all(p.text == "" and p.source_id for i in items for p in i.passages)


def test_purge_keeps_labelled_items(records: Path, tmp_path: Path) -> None:
    store = tmp_path / "review.sqlite"
    CliRunner().invoke(cli, ["review", "import", str(records), "--store", str(store)], env=ENV)
    with ReviewStore(store) as opened:
        first = opened.items()[0]
        opened.add_label(item_id=first.item_id, reviewer="ann", label="supported", form_token=None)
    result = CliRunner().invoke(
        cli, ["review", "purge", "--older-than", "0", "--store", str(store)]
    )
    assert result.exit_code == 0
    assert "9 unlabelled items deleted" in result.output
    with ReviewStore(store) as opened:
        assert [i.item_id for i in opened.items()] == [first.item_id]


def test_serve_refuses_an_exposed_address_without_a_token(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["review", "serve", "--host", "0.0.0.0", "--store", str(tmp_path / "review.sqlite")]
    )
    assert result.exit_code == 2
    assert "reachable beyond loopback (review.host 0.0.0.0): set review.reviewer_tokens" in (
        result.output
    )
    assert not (tmp_path / "review.sqlite").exists()


def test_serve_refuses_a_weak_token(tmp_path: Path) -> None:
    ReviewStore(tmp_path / "review.sqlite").close()
    result = CliRunner().invoke(
        cli,
        ["review", "serve", "--store", str(tmp_path / "review.sqlite")],
        env={"CITEWATCH_REVIEW_TOKEN": "letmein"},
    )
    assert result.exit_code == 2
    assert result.output == (
        "Error: review.token is too weak (shorter than 20 characters): use citewatch "
        "review token to make one\n"
    )


def test_review_token_prints_a_token_and_the_hash_to_keep() -> None:
    from sidecar.review.access import hash_token, weak_token

    result = CliRunner().invoke(cli, ["review", "token", "ann"])
    assert result.exit_code == 0, result.output
    first, second, *settings = result.output.splitlines()
    token = first.rsplit(": ", 1)[1]
    assert weak_token(token) is None
    assert second == "add to the settings:"
    assert settings == ["review:", "  reviewer_tokens:", f'    "ann": "{hash_token(token)}"']
    assert token not in "\n".join(settings)


def test_commands_need_a_store() -> None:
    result = CliRunner().invoke(cli, ["review", "status"], env={"CITEWATCH_REVIEW_STORE": ""})
    assert result.exit_code == 2
    assert "no review store: pass --store FILE or set review.store" in result.output


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["status"], id="status"),
        pytest.param(["purge", "--older-than", "1"], id="purge"),
        pytest.param(["serve", "--port", "0"], id="serve"),
    ],
)
def test_commands_that_read_a_store_refuse_a_missing_one(tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "reveiw.sqlite"
    result = CliRunner().invoke(cli, ["review", *args, "--store", str(typo)])
    assert result.exit_code == 2
    assert result.output == (
        f"Error: no review store at {typo} (review import or review consume creates one)\n"
    )
    assert not typo.exists()


def test_calibrate_needs_labels_or_a_store() -> None:
    result = CliRunner().invoke(cli, ["calibrate"])
    assert result.exit_code == 2
    assert "give exactly one of LABELS or --from-review STORE" in result.output


def test_run_with_a_file_writes_routed_claims_to_the_store(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    store = tmp_path / "review.sqlite"
    env = {
        **os.environ,
        **ENV,
        "CITEWATCH_REVIEW_STORE": str(store),
        "CITEWATCH_REVIEW_AUDIT_RATE": "0.0",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sidecar.cli",
            "run",
            "--input",
            str(EXAMPLES),
            "--once",
            "--output",
            str(tmp_path / "evaluations.jsonl"),
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    with ReviewStore(store) as opened:
        items = opened.items()
    imported = tmp_path / "imported.sqlite"
    CliRunner().invoke(
        cli,
        [
            "review",
            "import",
            str(tmp_path / "evaluations.jsonl"),
            "--traces",
            str(EXAMPLES),
            "--store",
            str(imported),
        ],
        env=ENV,
    )
    with ReviewStore(imported) as opened:
        again = opened.items()
    # The same claims and the same redacted packets, whether routed live or imported.
    strip = {"evaluated_at"}
    assert sorted((i.model_dump(exclude=strip) for i in items), key=str) == sorted(
        (i.model_dump(exclude=strip) for i in again), key=str
    )
    assert len(items) == 10


def test_run_with_only_a_topic_and_a_file_input_stops_at_start(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--input",
            str(EXAMPLES),
            "--once",
            "--output",
            str(tmp_path / "out.jsonl"),
            "--metrics-port",
            "0",
        ],
        env={**ENV, "CITEWATCH_REVIEW_TOPIC": "citewatch.review"},
    )
    assert result.exit_code == 2
    assert "review.topic needs the Kafka runtime" in result.output
