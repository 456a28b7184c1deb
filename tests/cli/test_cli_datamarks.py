"""Evidence quotes never carry the judge request's datamarks (U+02C6) where people read them:
in evaluation records, in the review page (with the quote still marked in its passage) and
in the weekly report, whose cells wrap a long word instead of running off the page. The
quote check itself still reads a datamark as a space."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from schemas import DATAMARK, EvaluationRecord
from sidecar.review.store import ReviewStore
from tests.cli.test_cli_summary import citewatch
from tests.review._items import make_item
from tests.review._server import serve_page
from tests.review.test_web import sign_in
from tests.support.factories import claim, source, trace_dict
from tests.support.openai_server import FakeOpenAI, packet_of, prompt_text, verdicts_reply

CHROMIUM = Path("/usr/bin/chromium")
WEEK_DIR = Path(__file__).parents[1] / "fixtures" / "evaluations" / "week"


def _marked_quotes(body: dict[str, Any]) -> Any:
    """Every claim supported, quoting its first passage exactly as the request shows it: with
    the datamarks between its words."""
    packet = packet_of(body)  # read as a model reads it: marks as spaces
    assert packet is not None
    texts = {p["passage_id"]: p["text"] for p in packet["passages"]}
    quotes = [DATAMARK.join(texts[c["passage_ids"][0]].split()) for c in packet["claims"]]
    sent = prompt_text(body)
    assert all(quote in sent for quote in quotes)  # the request carried them so marked
    return verdicts_reply(
        [
            {"claim_id": c["claim_id"], "verdict": "supported", "evidence_quote": q,
             "reason": "The passage states it."}
            for c, q in zip(packet["claims"], quotes, strict=True)
        ]
    )  # fmt: skip


def test_a_judge_quoting_the_marked_passage_writes_a_plain_quote_and_the_page_marks_it(
    tmp_path: Path,
) -> None:
    passage = "Refunds are accepted within 30 days of purchase."
    traces = tmp_path / "traces.jsonl"
    traces.write_text(
        json.dumps(
            trace_dict(
                answer="Refunds are accepted within 30 days [S1].",
                sources=[source("S1", passage)],
                claims=[claim("c1", "Refunds are accepted within 30 days.", ["S1"], 3)],
            )
        )
        + "\n"
    )
    out, store = tmp_path / "evaluations.jsonl", tmp_path / "review.sqlite"
    with FakeOpenAI(responder=_marked_quotes) as server:
        result = citewatch(
            "check", str(traces), "--judge", "openai-chat", "--sample-rate", "1",
            "--output", str(out),
            env={"OPENAI_API_KEY": "sk-test", "CITEWATCH_JUDGE_BASE_URL": server.base_url,
                 "CITEWATCH_JUDGE_SCREEN": "false"},
        )  # fmt: skip
        assert server.requests, "the judge was asked"
    assert result.returncode == 0, result.stderr
    [record] = [
        EvaluationRecord.model_validate_json(line) for line in out.read_text().split("\n")[:1]
    ]
    [judged] = record.claims
    # the quote check read the marks as spaces (supported, not quote_not_found) ...
    assert (judged.verdict, judged.critical_reason) == ("supported", None)
    # ... and the record, as written, carries none
    assert DATAMARK not in out.read_text()
    assert judged.evidence_quote == passage

    imported = citewatch(
        "review", "import", str(out), "--traces", str(traces), "--store", str(store),
        env={"CITEWATCH_REVIEW_AUDIT_RATE": "1"},
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    with ReviewStore(store) as opened, serve_page(opened) as url:
        with httpx.Client(base_url=url, timeout=10) as client:
            sign_in(client, "ann")
            page = client.get(client.get("/next").headers["location"]).text
    assert DATAMARK not in page
    assert f'<mark id="quote">{passage}</mark>' in page


def test_an_item_stored_with_a_marked_quote_and_no_place_is_shown_plain_and_marked(
    tmp_path: Path,
) -> None:
    # What an item routed before quotes were read plainly looks like: the quote with marks,
    # so its place in the passage was not found when it was routed.
    item = make_item(3, evidence_quote=DATAMARK.join(["within", "3", "days"]))
    passage = item.passages[0].model_copy(update={"quote_start": None, "quote_end": None})
    item = item.model_copy(update={"passages": [passage]})
    assert item.evidence_quote == "within 3 days"
    with ReviewStore(tmp_path / "review.sqlite") as store:
        store.add([item])
        with serve_page(store) as url, httpx.Client(base_url=url, timeout=10) as client:
            sign_in(client, "ann")
            page = client.get(f"/item/{item.item_id}").text
    assert DATAMARK not in page
    assert '<mark id="quote">within 3 days</mark>' in page


def _week_with(tmp_path: Path, quote: str) -> Path:
    """The fixture weeks, with ``quote`` as the evidence of every critical claim of the last."""
    week = tmp_path / "week"
    shutil.copytree(WEEK_DIR, week)
    last = sorted(week.glob("*.jsonl"))[-1]
    records = [json.loads(line) for line in last.read_text().splitlines()]
    changed = 0
    for record in records:
        for item in record["claims"]:
            if item.get("critical_reason"):
                item["evidence_quote"] = quote
                changed += 1
    assert changed, "no critical claim in the fixture week"
    last.write_text("".join(json.dumps(record) + "\n" for record in records))
    return week


def test_the_weekly_report_shows_evidence_without_marks(tmp_path: Path) -> None:
    week = _week_with(tmp_path, DATAMARK.join("the refund window is 30 days".split()))
    result = citewatch("report", "--weekly", "--records", str(week), "--out-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    [page] = tmp_path.glob("weekly-*.html")
    [markdown] = tmp_path.glob("weekly-*.md")
    for text in (page.read_text(), markdown.read_text()):
        assert DATAMARK not in text and "the refund window is 30 days" in text


@pytest.mark.skipif(
    not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None,
    reason="/usr/bin/chromium is absent (apt-get install -y chromium)",
)
def test_a_long_word_in_a_report_cell_wraps_inside_the_page(tmp_path: Path) -> None:
    word = "refund" * 60  # one 360-character word, far wider than the page
    week = _week_with(tmp_path, word)
    result = citewatch("report", "--weekly", "--records", str(week), "--out-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    [page] = tmp_path.glob("weekly-*.html")
    # The page measured by Chromium: how wide the document is laid out against the window.
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text().replace(
            "</body>",
            "<script>document.title = 'width=' + document.documentElement.scrollWidth"
            " + '/' + window.innerWidth;</script></body>",
        )
    )
    dom = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,900",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert word[:150] in dom.stdout  # (clipped to the report's cell limit)
    title = dom.stdout.split("<title>", 1)[1].split("</title>", 1)[0]
    scroll, window = (int(n) for n in title.removeprefix("width=").split("/"))
    assert scroll <= window, title
