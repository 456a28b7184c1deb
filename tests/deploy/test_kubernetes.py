"""The Kubernetes manifests: rendered like `kubectl apply -k`, validated offline, cross-checked.

Rendering: `kustomize build` or `kubectl kustomize` when one is installed, else the small
subset of kustomize these manifests use (implemented below); when a real kustomize is there,
a test also proves the subset renders exactly what kustomize renders.

Validation: built-in kinds against the Kubernetes OpenAPI schemas shipped in the
kubernetes-validate wheel (strict: unknown fields fail), the operator CRDs (ServiceMonitor,
PrometheusRule, ScaledObject, TriggerAuthentication) against the minimal JSON schemas in
tests/deploy/schemas/. Then the cross-references a typo would break at run time: selectors,
port names, probe paths, the settings file, secrets, replicas against partitions.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from pydantic import SecretStr

from sidecar.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
KUSTOMIZE_ROOT = ROOT / "deploy" / "kubernetes"
BASE = KUSTOMIZE_ROOT / "base"
OVERLAY = KUSTOMIZE_ROOT / "overlays" / "example"
KEDA = KUSTOMIZE_ROOT / "components" / "keda"
CRD_SCHEMAS = Path(__file__).resolve().parent / "schemas"
CONFIG_PATH = "/etc/citewatch/citewatch.yaml"
PARTITIONS_ANNOTATION = "citewatch/input-topic-partitions"

# Oldest and newest Kubernetes minor versions the manifests must be valid for.
KUBERNETES_VERSIONS = ("1.29.0", "1.37.0")
CRD_KINDS = {
    ("monitoring.coreos.com/v1", "PrometheusRule"): "prometheusrule.json",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): "servicemonitor.json",
    ("keda.sh/v1alpha1", "ScaledObject"): "scaledobject.json",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): "triggerauthentication.json",
}
_CLUSTER_SCOPED = {"Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"}
# Lists a strategic merge patch merges by key instead of replacing (Kubernetes' patchMergeKey).
_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
}

Resource = dict[str, Any]


# ---------------------------------------------------------------- the kustomize subset


def _load_documents(path: Path) -> list[Resource]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def _strategic_merge(target: Any, patch: Any, key: str | None = None) -> Any:
    if isinstance(target, dict) and isinstance(patch, dict):
        merged = dict(target)
        for name, value in patch.items():
            merged[name] = (
                _strategic_merge(target.get(name), value, name)
                if name in target
                else copy.deepcopy(value)
            )
        return merged
    if isinstance(target, list) and isinstance(patch, list) and key in _MERGE_KEYS:
        merge_key = _MERGE_KEYS[key]
        merged_list = list(target)
        for item in patch:
            index = next(
                (i for i, t in enumerate(merged_list) if t.get(merge_key) == item.get(merge_key)),
                None,
            )
            if index is None:
                # kustomize (kyaml) puts new keyed items first
                merged_list.insert(0, copy.deepcopy(item))
            else:
                merged_list[index] = _strategic_merge(merged_list[index], item)
        return merged_list
    return copy.deepcopy(patch)


def _find(resources: list[Resource], kind: str, name: str) -> int:
    matches = [
        i for i, r in enumerate(resources) if r["kind"] == kind and r["metadata"]["name"] == name
    ]
    assert len(matches) == 1, f"patch target {kind}/{name}: {len(matches)} matches"
    return matches[0]


def _pod_specs(resource: Resource) -> Iterator[Resource]:
    template = resource.get("spec", {}).get("template", {})
    if "spec" in template:
        yield template["spec"]


def _transform(kustomization: Resource, folder: Path, resources: list[Resource]) -> None:
    for component in kustomization.get("components", []):
        resources[:] = _build(folder / component, resources)
    for entry in kustomization.get("patches", []):
        assert set(entry) == {"path"}, f"unsupported patch form {entry}"
        for patch in _load_documents(folder / entry["path"]):
            index = _find(resources, patch["kind"], patch["metadata"]["name"])
            resources[index] = _strategic_merge(resources[index], patch)
    namespace = kustomization.get("namespace")
    for resource in resources:
        if namespace and resource["kind"] not in _CLUSTER_SCOPED:
            resource["metadata"]["namespace"] = namespace
    for entry in kustomization.get("labels", []):
        assert not entry.get("includeSelectors") and not entry.get("includeTemplates")
        for resource in resources:
            resource["metadata"].setdefault("labels", {}).update(entry["pairs"])
    for image in kustomization.get("images", []):
        for resource in resources:
            for pod in _pod_specs(resource):
                for container in pod.get("containers", []):
                    name, _, _ = container["image"].partition(":")
                    if name == image["name"]:
                        new = image.get("newName", name)
                        if "digest" in image:
                            container["image"] = f"{new}@{image['digest']}"
                        else:
                            container["image"] = f"{new}:{image['newTag']}"


def _build(folder: Path, inherited: list[Resource] | None = None) -> list[Resource]:
    """Render a kustomization (or apply a Component to ``inherited``)."""
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))
    supported = {
        "apiVersion",
        "kind",
        "resources",
        "components",
        "patches",
        "namespace",
        "labels",
        "images",
    }
    assert set(kustomization) <= supported, f"{folder}: {set(kustomization) - supported}"
    resources = list(inherited or [])
    for entry in kustomization.get("resources", []):
        target = folder / entry
        resources += _build(target) if target.is_dir() else _load_documents(target)
    _transform(kustomization, folder, resources)
    return resources


def _real_kustomize() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


def render(folder: Path, *, subset: bool = False) -> list[Resource]:
    """The overlay's resources, by a real kustomize when there is one (unless ``subset``)."""
    command = None if subset else _real_kustomize()
    if command is None:
        return _build(folder)
    result = subprocess.run(
        [*command, str(folder)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def _keda_overlay(tmp_path: Path) -> Path:
    """The example overlay with the optional KEDA component switched on."""
    folder = tmp_path / "with-keda"
    folder.mkdir()
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [os.path.relpath(OVERLAY, folder)],
        "components": [os.path.relpath(KEDA, folder)],
    }
    (folder / "kustomization.yaml").write_text(yaml.safe_dump(kustomization), encoding="utf-8")
    return folder


def _by_kind(resources: list[Resource], kind: str) -> list[Resource]:
    return [r for r in resources if r["kind"] == kind]


def _one(resources: list[Resource], kind: str) -> Resource:
    (resource,) = _by_kind(resources, kind)
    return resource


@pytest.fixture(scope="module")
def rendered() -> list[Resource]:
    return render(OVERLAY)


@pytest.fixture(scope="module")
def rendered_keda(tmp_path_factory: pytest.TempPathFactory) -> list[Resource]:
    return render(_keda_overlay(tmp_path_factory.mktemp("keda")))


@pytest.fixture(scope="module")
def container(rendered: list[Resource]) -> Resource:
    (only,) = _one(rendered, "Deployment")["spec"]["template"]["spec"]["containers"]
    assert isinstance(only, dict)
    return only


@pytest.fixture()
def settings(
    rendered: list[Resource], container: Resource, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Settings:
    """The settings `citewatch run` would load in the pod: ConfigMap file plus literal env."""
    for key in list(os.environ):
        if key.startswith("CITEWATCH_"):
            monkeypatch.delenv(key)
    for env in container.get("env", []):
        if "value" in env:
            monkeypatch.setenv(env["name"], env["value"])
    config = tmp_path / "citewatch.yaml"
    config.write_text(_one(rendered, "ConfigMap")["data"]["citewatch.yaml"], encoding="utf-8")
    return load_settings(config)


# ---------------------------------------------------------------- rendering


def test_subset_renders_what_kustomize_renders(tmp_path: Path) -> None:
    if _real_kustomize() is None:
        pytest.skip("neither kustomize nor kubectl is installed")
    for folder in (OVERLAY, _keda_overlay(tmp_path)):
        real = render(folder)
        subset = render(folder, subset=True)
        key = lambda r: (r["kind"], r["metadata"]["name"])  # noqa: E731
        assert sorted(real, key=key) == sorted(subset, key=key)


def test_every_manifest_is_used() -> None:
    used: set[Path] = set()
    for kustomization in KUSTOMIZE_ROOT.rglob("kustomization.yaml"):
        used.add(kustomization)
        data = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
        for entry in data.get("resources", []):
            used.add((kustomization.parent / entry).resolve())
        for entry in data.get("patches", []):
            used.add((kustomization.parent / entry["path"]).resolve())
    manifests = {p.resolve() for p in KUSTOMIZE_ROOT.rglob("*.yaml")}
    assert manifests - {u.resolve() for u in used} == set()


# ---------------------------------------------------------------- schemas


def _validate(resource: Resource) -> None:
    schema_file = CRD_KINDS.get((resource["apiVersion"], resource["kind"]))
    if schema_file is not None:
        schema = json.loads((CRD_SCHEMAS / schema_file).read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator(schema).validate(resource)
        return
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate.validate(resource, version, strict=True)


def test_every_resource_matches_its_schema(rendered_keda: list[Resource]) -> None:
    kinds = {r["kind"] for r in rendered_keda}
    assert {
        "Deployment",
        "Service",
        "ConfigMap",
        "PodDisruptionBudget",
        "ServiceMonitor",
        "PrometheusRule",
        "ScaledObject",
        "ServiceAccount",
        "Namespace",
    } <= kinds
    for resource in rendered_keda:
        _validate(resource)


@pytest.mark.parametrize(
    ("mutate", "error"),
    [
        pytest.param(
            lambda r: r["spec"].update(replicas="3"),
            kubernetes_validate.ValidationError,
            id="deployment-replicas-string",
        ),
        pytest.param(
            lambda r: r["spec"]["template"]["spec"].update(terminationGrace=45),
            kubernetes_validate.ValidationError,
            id="deployment-unknown-field",
        ),
    ],
)
def test_kubernetes_schemas_reject_broken_deployments(
    rendered: list[Resource], mutate: Any, error: type[Exception]
) -> None:
    broken = copy.deepcopy(_one(rendered, "Deployment"))
    mutate(broken)
    with pytest.raises(error):
        _validate(broken)


@pytest.mark.parametrize(
    ("kind", "mutate"),
    [
        pytest.param("ServiceMonitor", lambda r: r["spec"].pop("selector"), id="sm-no-selector"),
        pytest.param(
            "ServiceMonitor",
            lambda r: r["spec"]["endpoints"][0].update(interval="30"),
            id="sm-bad-interval",
        ),
        pytest.param(
            "PrometheusRule",
            lambda r: r["spec"]["groups"][0]["rules"][0].pop("expr"),
            id="rule-no-expr",
        ),
        pytest.param(
            "PrometheusRule",
            lambda r: r["spec"]["groups"][0]["rules"][0].update(record="x", alert="y"),
            id="rule-record-and-alert",
        ),
        pytest.param("ScaledObject", lambda r: r["spec"].update(triggers=[]), id="keda-no-trigger"),
        pytest.param(
            "ScaledObject",
            lambda r: r["spec"]["triggers"][0]["metadata"].update(lagThreshold=1000),
            id="keda-metadata-not-string",
        ),
    ],
)
def test_crd_schemas_reject_broken_resources(
    rendered_keda: list[Resource], kind: str, mutate: Any
) -> None:
    broken = copy.deepcopy(_one(rendered_keda, kind))
    mutate(broken)
    with pytest.raises(jsonschema.ValidationError):
        _validate(broken)


# ---------------------------------------------------------------- the Deployment


def test_probes_point_at_the_metrics_endpoint(container: Resource, settings: Settings) -> None:
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["metrics"] == settings.metrics.port
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}


def test_grace_period_outlasts_the_shutdown_deadline(
    rendered: list[Resource], settings: Settings
) -> None:
    pod = _one(rendered, "Deployment")["spec"]["template"]["spec"]
    # After the deadline, `citewatch run` still commits, flushes the producer (up to 5 s) and
    # closes the judge client (up to 5 s): the grace period covers all of it.
    assert pod["terminationGracePeriodSeconds"] >= settings.runtime.shutdown_deadline_seconds + 10


def test_container_is_locked_down(rendered: list[Resource], container: Resource) -> None:
    pod = _one(rendered, "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod["automountServiceAccountToken"] is False
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert "/tmp" in mounts, "a writable /tmp beside the read-only root filesystem"


def test_pod_runs_as_the_image_user(rendered: list[Resource]) -> None:
    dockerfile = (ROOT / "deploy" / "docker" / "Dockerfile").read_text(encoding="utf-8")
    uid, _, gid = re.findall(r"^USER (\S+)", dockerfile, re.M)[-1].partition(":")
    pod = _one(rendered, "Deployment")["spec"]["template"]["spec"]["securityContext"]
    assert (pod["runAsUser"], pod["runAsGroup"]) == (int(uid), int(gid))


def test_resources_have_requests_and_limits(container: Resource) -> None:
    assert set(container["resources"]["requests"]) == {"cpu", "memory"}
    assert set(container["resources"]["limits"]) == {"cpu", "memory"}


def test_settings_file_is_mounted_where_the_args_point(
    rendered: list[Resource], container: Resource
) -> None:
    assert container["args"] == ["--config", CONFIG_PATH]
    pod = _one(rendered, "Deployment")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    folder = str(Path(CONFIG_PATH).parent)
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == folder]
    config_map = _one(rendered, "ConfigMap")
    assert volumes[mount["name"]]["configMap"]["name"] == config_map["metadata"]["name"]
    assert Path(CONFIG_PATH).name in config_map["data"]


def test_image_is_set_by_the_overlay(container: Resource) -> None:
    assert re.fullmatch(r"[\w.\-/:]+(:[\w.\-]+|@sha256:[0-9a-f]{64})", container["image"])
    assert container["image"] != "citewatch"


def test_replicas_do_not_exceed_partitions(
    rendered: list[Resource], rendered_keda: list[Resource]
) -> None:
    deployment = _one(rendered, "Deployment")
    partitions = int(deployment["metadata"]["annotations"][PARTITIONS_ANNOTATION])
    assert 1 <= deployment["spec"]["replicas"] <= partitions
    scaled = _one(rendered_keda, "ScaledObject")
    assert scaled["spec"]["maxReplicaCount"] <= partitions
    assert int(scaled["metadata"]["annotations"][PARTITIONS_ANNOTATION]) == partitions


# ---------------------------------------------------------------- settings and secrets


def _secret_env_names() -> set[str]:
    names = set()
    for section, field in Settings.model_fields.items():
        model = field.annotation
        for name, sub in getattr(model, "model_fields", {}).items():
            if "SecretStr" in str(sub.annotation) or sub.annotation is SecretStr:
                names.add(f"CITEWATCH_{section}_{name}".upper())
    return names


def test_settings_of_the_pod_are_valid(settings: Settings, container: Resource) -> None:
    # load_settings raised on anything invalid; check the env names hit real fields too.
    fields = {
        f"CITEWATCH_{s}_{f}".upper()
        for s, m in Settings.model_fields.items()
        for f in getattr(m.annotation, "model_fields", {})
    }
    assert {e["name"] for e in container["env"]} <= fields


def test_secrets_come_only_from_secret_refs(rendered: list[Resource], container: Resource) -> None:
    secret_names = _secret_env_names()
    assert {"CITEWATCH_JUDGE_API_KEY", "CITEWATCH_KAFKA_SASL_PLAIN_PASSWORD"} <= secret_names
    env = {e["name"]: e for e in container["env"]}
    for name in secret_names:
        assert "secretKeyRef" in env[name]["valueFrom"], name
    for name, entry in env.items():
        if any(word in name for word in ("KEY", "PASSWORD", "SECRET", "TOKEN", "USERNAME")):
            assert "value" not in entry, f"{name} carries a literal value"
    config = yaml.safe_load(_one(rendered, "ConfigMap")["data"]["citewatch.yaml"])
    for section, values in config.items():
        secret_fields = {
            n.removeprefix(f"CITEWATCH_{section}_".upper()).lower() for n in secret_names
        }
        assert not secret_fields & set(values or {}), f"secret in the ConfigMap: {section}"
    assert _by_kind(rendered, "Secret") == [], "Secrets are created out of band, never committed"


# ---------------------------------------------------------------- wiring between resources


def _matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def test_selectors_find_their_targets(rendered: list[Resource]) -> None:
    deployment = _one(rendered, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert _matches(deployment["spec"]["selector"]["matchLabels"], pod_labels)
    service = _one(rendered, "Service")
    assert _matches(service["spec"]["selector"], pod_labels)
    pdb = _one(rendered, "PodDisruptionBudget")
    assert _matches(pdb["spec"]["selector"]["matchLabels"], pod_labels)
    monitor = _one(rendered, "ServiceMonitor")
    assert _matches(monitor["spec"]["selector"]["matchLabels"], service["metadata"]["labels"])
    service_ports = {p["name"] for p in service["spec"]["ports"]}
    assert {e["port"] for e in monitor["spec"]["endpoints"]} <= service_ports
    (target,) = [p["targetPort"] for p in service["spec"]["ports"]]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert target in {p["name"] for p in container["ports"]}


def test_scrape_job_is_the_one_the_alerts_expect(rendered: list[Resource]) -> None:
    # ServiceMonitor jobs are named after the Service unless jobLabel says otherwise.
    monitor = _one(rendered, "ServiceMonitor")
    assert "jobLabel" not in monitor["spec"]
    alerts = (ROOT / "deploy" / "prometheus" / "alerts.yml").read_text(encoding="utf-8")
    jobs = set(re.findall(r'job="([^"]+)"', alerts))
    assert jobs == {_one(rendered, "Service")["metadata"]["name"]}


def test_keda_reads_the_same_topic_and_group(rendered_keda: list[Resource], tmp_path: Path) -> None:
    config = yaml.safe_load(_one(rendered_keda, "ConfigMap")["data"]["citewatch.yaml"])
    kafka = config["kafka"]
    scaled = _one(rendered_keda, "ScaledObject")
    assert (
        scaled["spec"]["scaleTargetRef"]["name"]
        == _one(rendered_keda, "Deployment")["metadata"]["name"]
    )
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "kafka"
    meta = trigger["metadata"]
    assert (meta["topic"], meta["consumerGroup"], meta["bootstrapServers"]) == (
        kafka["input_topic"],
        kafka["group_id"],
        kafka["bootstrap_servers"],
    )
    assert meta["sasl"] == kafka["sasl_mechanism"].lower().replace("-", "_", 1).replace("-", "")
    assert (meta["tls"] == "enable") == kafka["security_protocol"].endswith("SSL")
    auth = _one(rendered_keda, "TriggerAuthentication")
    assert trigger["authenticationRef"]["name"] == auth["metadata"]["name"]
    container = _one(rendered_keda, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    refs = {
        (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in container["env"]
        if "valueFrom" in e
    }
    assert {(r["name"], r["key"]) for r in auth["spec"]["secretTargetRef"]} <= refs
