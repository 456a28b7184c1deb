"""The PrometheusRule in deploy/kubernetes holds exactly the rules of deploy/prometheus.

deploy/prometheus/*.yml is the source (promtool unit-tests it there); the PrometheusRule is
generated from it by scripts/gen-prometheusrule. These tests fail when someone edits one side
only: the groups extracted from the PrometheusRule equal the rule files' groups as data and
re-serialise to the same bytes, the generator reproduces the checked-in file byte for byte,
and promtool accepts the extracted rules as it accepts the source files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from importlib.machinery import SourceFileLoader
from importlib.util import module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "scripts" / "gen-prometheusrule"
PROMETHEUS_RULE = ROOT / "deploy" / "kubernetes" / "base" / "prometheusrule.yaml"
RULES_DIR = ROOT / "deploy" / "prometheus"
OPERATIONS = ROOT / "docs" / "operations.md"


def _load_generator() -> ModuleType:
    loader = SourceFileLoader("gen_prometheusrule", str(GENERATOR))
    spec = spec_from_loader("gen_prometheusrule", loader)
    assert spec is not None
    module = module_from_spec(spec)
    loader.exec_module(module)
    return module


gen = _load_generator()


@pytest.fixture(scope="module")
def rule_files() -> list[Path]:
    files: list[Path] = gen.rule_files()
    assert files, f"no rule files in {RULES_DIR}"
    return files


@pytest.fixture(scope="module")
def source_groups(rule_files: list[Path]) -> list[dict[str, Any]]:
    """Groups of the rule files, parsed independently of the generator."""
    groups = []
    for path in rule_files:
        groups += yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
    return groups


@pytest.fixture(scope="module")
def extracted_groups() -> list[dict[str, Any]]:
    resource = yaml.safe_load(PROMETHEUS_RULE.read_text(encoding="utf-8"))
    assert (resource["apiVersion"], resource["kind"]) == (
        "monitoring.coreos.com/v1",
        "PrometheusRule",
    )
    groups = resource["spec"]["groups"]
    assert isinstance(groups, list)
    return groups


def test_rule_files_exclude_tests(rule_files: list[Path]) -> None:
    assert all(p.parent == RULES_DIR for p in rule_files)
    assert all("test" not in p.stem for p in rule_files)
    names = {p.name for p in rule_files}
    assert {"alerts.yml", "recording.yml"} <= names


def test_groups_equal_as_data(source_groups: list[Any], extracted_groups: list[Any]) -> None:
    assert extracted_groups == source_groups


def test_rules_reserialise_to_the_same_bytes(
    source_groups: list[Any], extracted_groups: list[Any]
) -> None:
    for dump in (gen.dump_yaml, lambda d: yaml.safe_dump(d, sort_keys=True)):
        assert (
            dump({"groups": extracted_groups}).encode() == dump({"groups": source_groups}).encode()
        )


def test_checked_in_file_is_what_the_generator_writes(rule_files: list[Path]) -> None:
    assert PROMETHEUS_RULE.read_text(encoding="utf-8") == gen.render(rule_files), (
        "deploy/kubernetes/base/prometheusrule.yaml is stale: run scripts/gen-prometheusrule"
    )


def test_generator_check_mode_agrees() -> None:
    assert gen.main(["--check"]) == 0


def test_generator_rejects_duplicate_group_names(tmp_path: Path) -> None:
    for name in ("a.yml", "b.yml"):
        (tmp_path / name).write_text(
            "groups:\n  - name: same\n    rules:\n      - record: x:y:z\n        expr: vector(1)\n",
            encoding="utf-8",
        )
    with pytest.raises(ValueError, match="same"):
        gen.load_groups(gen.rule_files(tmp_path))


def test_generator_skips_tests_and_non_rule_yaml(tmp_path: Path) -> None:
    (tmp_path / "rules.yml").write_text("groups: []\n", encoding="utf-8")
    (tmp_path / "rules_test.yml").write_text("groups: []\n", encoding="utf-8")
    (tmp_path / "prometheus.yml").write_text("scrape_configs: []\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "more.yml").write_text("groups: []\n", encoding="utf-8")
    assert [p.name for p in gen.rule_files(tmp_path)] == ["rules.yml"]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_promtool_accepts_source_and_extracted_rules(
    rule_files: list[Path], extracted_groups: list[Any], tmp_path: Path
) -> None:
    extracted = tmp_path / "extracted.yml"
    extracted.write_text(gen.dump_yaml({"groups": extracted_groups}), encoding="utf-8")
    for path in (*rule_files, extracted):
        result = subprocess.run(
            ["promtool", "check", "rules", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 0, f"{path.name}: {result.stdout}{result.stderr}"


def _github_anchors(markdown: str) -> set[str]:
    """Anchors GitHub derives from the headings: lower case, punctuation dropped, - for space."""
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", markdown, re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def test_every_alert_has_its_runbook_section(source_groups: list[dict[str, Any]]) -> None:
    anchors = _github_anchors(OPERATIONS.read_text(encoding="utf-8"))
    alerts = [r for g in source_groups for r in g.get("rules", []) if "alert" in r]
    assert alerts
    for rule in alerts:
        url = rule["annotations"]["runbook_url"]
        page, _, anchor = url.partition("#")
        assert page.endswith("docs/operations.md"), url
        assert anchor == rule["alert"].lower(), url
        assert anchor in anchors, f"docs/operations.md has no section #{anchor}"


def test_operations_links_resolve() -> None:
    text = OPERATIONS.read_text(encoding="utf-8")
    anchors = _github_anchors(text)
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links and links <= anchors, sorted(links - anchors)
