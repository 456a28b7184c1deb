"""The container image, without Docker: the Dockerfile's structure and the wheel it installs.

Docker is not available in CI, so these tests check what a build would rely on: the build
context (.dockerignore) holds what the COPY instructions need; the first stage's COPYs are
enough to build the citewatch wheel, which carries every package, its py.typed, the JSON
schemas, the compiled redaction engine and the console script; the first stage has the Rust
toolchain that engine needs and the final stage is non-root, compiler-free, secret-free, and
its HEALTHCHECK command really probes /healthz of the metrics endpoint.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from exporters.http import serve
from sidecar.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"

_SECRET_WORDS = ("KEY", "PASSWORD", "SECRET", "TOKEN", "CREDENTIAL")
_COMPILERS = (
    "gcc",
    "g++",
    "cc",
    "clang",
    "build-essential",
    "make",
    "cmake",
    "rustc",
    "cargo",
    "python3-dev",
    "libc6-dev",
)


@dataclass
class Instruction:
    """One Dockerfile instruction, continuation lines joined."""

    keyword: str
    args: str
    line: int

    def exec_form(self) -> list[str] | None:
        """The JSON array of an exec-form instruction, or None for the shell form."""
        text = self.args.strip()
        if not text.startswith("["):
            return None
        value = json.loads(text)
        assert isinstance(value, list) and all(isinstance(v, str) for v in value)
        return value


@dataclass
class Stage:
    """One FROM ... [AS name] stage and its instructions."""

    base: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]


@dataclass
class Dockerfile:
    """A parsed Dockerfile: global ARGs (before the first FROM) and stages."""

    global_args: dict[str, str]
    stages: list[Stage]
    comments: str


def parse_dockerfile(text: str) -> Dockerfile:
    """Parse the subset of Dockerfile syntax we use: comments, continuations, instructions."""
    logical: list[tuple[int, str]] = []
    comments: list[str] = []
    buffer = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#"):
            comments.append(stripped)
            continue
        if not buffer and not stripped:
            continue
        if not buffer:
            start = number
        if stripped.endswith("\\"):
            buffer += stripped[:-1] + " "
            continue
        buffer += stripped
        logical.append((start, buffer))
        buffer = ""
    assert not buffer, "Dockerfile ends inside a continuation"

    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for number, line in logical:
        keyword, _, args = line.partition(" ")
        instruction = Instruction(keyword.upper(), args.strip(), number)
        if instruction.keyword == "FROM":
            parts = instruction.args.split()
            parts = [p for p in parts if not p.startswith("--")]
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(base=parts[0], name=name))
        elif not stages:
            assert instruction.keyword == "ARG", f"line {number}: only ARG may precede FROM"
            arg_name, _, default = instruction.args.partition("=")
            global_args[arg_name] = default
        else:
            stages[-1].instructions.append(instruction)
    return Dockerfile(global_args, stages, "\n".join(comments))


def _resolve(value: str, args: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: args[m.group(1) or m.group(2)], value)


@pytest.fixture(scope="module")
def dockerfile() -> Dockerfile:
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def final(dockerfile: Dockerfile) -> Stage:
    return dockerfile.stages[-1]


# ---------------------------------------------------------------- Dockerfile structure


def test_multi_stage_on_one_slim_python_311_base(dockerfile: Dockerfile) -> None:
    assert len(dockerfile.stages) >= 2
    bases = {_resolve(stage.base, dockerfile.global_args) for stage in dockerfile.stages}
    assert len(bases) == 1, f"build and runtime stages must share one base, got {bases}"
    (base,) = bases
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?(@sha256:[0-9a-f]{64})?", base), base


def test_base_digest_pinning_is_documented(dockerfile: Dockerfile) -> None:
    (arg,) = [a for a in dockerfile.global_args if a in dockerfile.stages[-1].base]
    pattern = rf"--build-arg {arg}=python:3\.11[\w.-]*@sha256:<digest>"
    assert re.search(pattern, dockerfile.comments), "say how to pin the base image by digest"


def test_first_stage_builds_wheels(dockerfile: Dockerfile) -> None:
    build = dockerfile.stages[0]
    runs = " ".join(i.args for i in build.all("RUN"))
    assert re.search(r"\bpip wheel\b.*--wheel-dir /wheels", runs)


def test_first_stage_has_a_rust_toolchain_for_the_redaction_engine(dockerfile: Dockerfile) -> None:
    build = dockerfile.stages[0]
    runs = " ".join(i.args for i in build.all("RUN"))
    pinned = r"sh\.rustup\.rs .*--default-toolchain \d+\.\d+\.\d+"
    assert re.search(pinned, runs), "a pinned toolchain"
    installed = " ".join(m.group(1) for m in re.finditer(r"apt-get install ([^&;|]+)", runs))
    assert "gcc" in installed.split(), "cargo links the extension with the C compiler"
    assert "/opt/cargo/bin" in " ".join(i.args for i in build.all("ENV"))
    assert ("native/", "native/") in _local_copies(build)
    pip_wheel = [i.line for i in build.all("RUN") if "pip wheel" in i.args]
    toolchain = [i.line for i in build.all("RUN") if "rustup" in i.args]
    assert toolchain and pip_wheel and toolchain[0] < pip_wheel[0]


def test_final_stage_installs_only_the_built_wheels(dockerfile: Dockerfile, final: Stage) -> None:
    build_name = dockerfile.stages[0].name
    installs = [i.args for i in final.all("RUN") if "pip install" in i.args]
    assert len(installs) == 1
    assert f"from={build_name}" in installs[0], "wheels come from the build stage"
    assert "--no-index" in installs[0], "nothing may be fetched in the final stage"


def test_final_stage_runs_as_a_fixed_non_root_uid(final: Stage) -> None:
    users = final.all("USER")
    assert users, "the final stage must set USER"
    uid, _, gid = users[-1].args.partition(":")
    assert uid.isdigit() and int(uid) > 0, "numeric non-root UID, so runAsNonRoot can verify it"
    assert not gid or (gid.isdigit() and int(gid) > 0)
    last_user_line = users[-1].line
    later = [i for i in final.instructions if i.line > last_user_line]
    assert not [i for i in later if i.keyword == "USER"]


def test_final_stage_has_ca_certificates_and_no_compilers(final: Stage) -> None:
    runs = [i.args for i in final.all("RUN")]
    installed: list[str] = []
    for run in runs:
        for match in re.finditer(r"apt-get install ([^&;|]+)", run):
            installed += [w for w in match.group(1).split() if not w.startswith("-")]
    assert "ca-certificates" in installed
    words = {w for run in runs for w in re.split(r"[\s;&|]+", run)}
    assert not words & set(_COMPILERS), f"compilers in the final stage: {words & set(_COMPILERS)}"


def test_no_secrets_in_env_or_args(dockerfile: Dockerfile) -> None:
    names = list(dockerfile.global_args)
    for stage in dockerfile.stages:
        for instruction in stage.all("ENV") + stage.all("ARG"):
            for token in shlex.split(instruction.args):
                names.append(token.partition("=")[0])
    offending = [n for n in names if any(word in n.upper() for word in _SECRET_WORDS)]
    assert offending == []


def test_entrypoint_is_citewatch_run(final: Stage) -> None:
    (entrypoint,) = final.all("ENTRYPOINT")
    assert entrypoint.exec_form() == ["citewatch", "run"]
    (cmd,) = final.all("CMD")
    assert cmd.exec_form() == ["--config", "/etc/citewatch/citewatch.yaml"]


def test_entrypoint_command_accepts_the_config_option() -> None:
    from click.testing import CliRunner

    from sidecar.cli import cli

    result = CliRunner().invoke(cli, ["run", "--help"])
    assert result.exit_code == 0, result.output
    assert "--config" in result.output


def test_default_settings_file_is_empty_and_valid(final: Stage) -> None:
    copies = [shlex.split(i.args) for i in final.all("COPY")]
    targets = {c[-1]: c[-2] for c in copies if not any(a.startswith("--from") for a in c)}
    source = ROOT / targets["/etc/citewatch/citewatch.yaml"]
    settings = load_settings(source)
    assert settings == Settings(), "the image's default file must not change any default"


# ---------------------------------------------------------------- HEALTHCHECK, for real


def _healthcheck_command(final: Stage) -> list[str]:
    (healthcheck,) = final.all("HEALTHCHECK")
    _, _, command = healthcheck.args.partition("CMD ")
    argv = json.loads(command)
    assert isinstance(argv, list)
    return [str(a) for a in argv]


def test_healthcheck_probes_healthz_with_python_only(final: Stage) -> None:
    argv = _healthcheck_command(final)
    assert argv[:2] == ["python", "-c"]
    assert "/healthz" in argv[2]
    assert not {"curl", "wget"} & set(re.findall(r"\w+", argv[2]))


@pytest.fixture()
def metrics_port() -> Iterator[int]:
    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=lambda: False)
    try:
        yield server.port
    finally:
        server.close()


def test_healthcheck_command_passes_against_the_metrics_endpoint(
    final: Stage, metrics_port: int
) -> None:
    argv = [sys.executable, *_healthcheck_command(final)[1:]]
    env = {**os.environ, "CITEWATCH_METRICS_PORT": str(metrics_port)}
    result = subprocess.run(argv, env=env, capture_output=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr.decode()


def test_healthcheck_command_fails_when_nothing_listens(final: Stage) -> None:
    server = serve(CollectorRegistry(), address="127.0.0.1", port=0, ready=lambda: True)
    port = server.port
    server.close()
    argv = [sys.executable, *_healthcheck_command(final)[1:]]
    env = {**os.environ, "CITEWATCH_METRICS_PORT": str(port)}
    result = subprocess.run(argv, env=env, capture_output=True, timeout=30, check=False)
    assert result.returncode != 0


# ---------------------------------------------------------------- build context and wheel


def _dockerignore_patterns() -> list[tuple[bool, re.Pattern[str]]]:
    patterns = []
    for raw in DOCKERIGNORE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line.lstrip("!").strip("/")
        regex = ""
        i = 0
        while i < len(line):
            if line.startswith("**/", i):
                regex += "(?:.*/)?"
                i += 3
            elif line.startswith("**", i):
                regex += ".*"
                i += 2
            elif line[i] == "*":
                regex += "[^/]*"
                i += 1
            elif line[i] == "?":
                regex += "[^/]"
                i += 1
            elif line[i] == "[":
                end = line.index("]", i)
                regex += line[i : end + 1]
                i = end + 1
            else:
                regex += re.escape(line[i])
                i += 1
        patterns.append((negate, re.compile(regex + r"\Z")))
    return patterns


def in_build_context(relative: str) -> bool:
    """Whether Docker would send this path: last matching pattern wins, parents count."""
    parts = relative.split("/")
    candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    included = True
    for negate, pattern in _dockerignore_patterns():
        if any(pattern.match(c) for c in candidates):
            included = negate
    return included


def _local_copies(stage: Stage) -> list[tuple[str, str]]:
    pairs = []
    for instruction in stage.all("COPY"):
        words = shlex.split(instruction.args)
        if any(w.startswith("--from") for w in words):
            continue
        words = [w for w in words if not w.startswith("--")]
        pairs += [(src, words[-1]) for src in words[:-1]]
    return pairs


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("pyproject.toml", True, id="pyproject"),
        pytest.param("native/src/lib.rs", True, id="native-source"),
        pytest.param("native/Cargo.lock", True, id="native-lockfile"),
        pytest.param("native/target/release/lib_native.so", False, id="native-build-output"),
        pytest.param("sidecar/redaction/_native.abi3.so", False, id="in-place-extension"),
        pytest.param("sidecar/cli/_app.py", True, id="package-source"),
        pytest.param("schemas/trace.v1.json", True, id="json-schema"),
        pytest.param("deploy/docker/citewatch.yaml", True, id="default-settings"),
        pytest.param(".git/config", False, id="git"),
        pytest.param("tests/deploy/test_docker.py", False, id="tests"),
        pytest.param(".env", False, id="dotenv"),
        pytest.param("sidecar/__pycache__/cli.cpython-311.pyc", False, id="bytecode"),
        pytest.param("deploy/kubernetes/base/deployment.yaml", False, id="manifests"),
    ],
)
def test_dockerignore(path: str, expected: bool) -> None:
    assert in_build_context(path) is expected


def test_every_copy_source_is_in_the_build_context(dockerfile: Dockerfile) -> None:
    for stage in dockerfile.stages:
        for source, _ in _local_copies(stage):
            assert (ROOT / source).exists(), f"COPY {source}: no such file"
            assert in_build_context(source.rstrip("/")), f"COPY {source}: excluded by .dockerignore"


@pytest.fixture(scope="module")
def wheel(dockerfile: Dockerfile, tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """Build the wheel from exactly what the first stage COPYs, as the image build would."""
    context = tmp_path_factory.mktemp("context")
    for source, target in _local_copies(dockerfile.stages[0]):
        src = ROOT / source
        dest = context / target if target not in ("./", ".") else context / src.name
        if src.is_dir():
            shutil.copytree(
                src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            )
        else:
            shutil.copy(src, dest)
    out = tmp_path_factory.mktemp("wheels")
    # --no-build-isolation: use the installed setuptools and setuptools-rust instead of
    # fetching them. Cargo builds the redaction engine; its target directory is the
    # checkout's, so a test run reuses what an earlier build compiled.
    env = {**os.environ, "CARGO_TARGET_DIR": str(ROOT / "native" / "target")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            ".",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(out),
        ],
        cwd=context,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    (built,) = out.glob("citewatch-*.whl")
    return zipfile.ZipFile(built)


def test_wheel_has_every_package_with_py_typed(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    for package in ("schemas", "exporters", "sidecar"):
        assert f"{package}/__init__.py" in names
        assert f"{package}/py.typed" in names
        sources = {str(p.relative_to(ROOT)) for p in (ROOT / package).rglob("*.py")}
        assert sources <= names, f"missing from the wheel: {sorted(sources - names)}"


def test_wheel_has_the_compiled_redaction_engine_and_its_stub(wheel: zipfile.ZipFile) -> None:
    names = wheel.namelist()
    engines = [n for n in names if re.fullmatch(r"sidecar/redaction/_native\.[\w.-]+\.so", n)]
    assert len(engines) == 1, names
    assert "sidecar/redaction/_native.pyi" in names
    assert not [n for n in names if n.startswith("native/")], "the crate's sources stay out"


def test_wheel_has_the_json_schemas(wheel: zipfile.ZipFile) -> None:
    expected = {f"schemas/{p.name}" for p in (ROOT / "schemas").glob("*.json")}
    assert expected, "schemas/ should hold the checked-in JSON schemas"
    assert expected <= set(wheel.namelist())
    for name in expected:
        assert json.loads(wheel.read(name)) == json.loads((ROOT / name).read_text("utf-8"))


def test_wheel_declares_the_console_script(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert re.search(r"^\[console_scripts\]\s*\ncitewatch = sidecar\.cli:main$", text, re.M)


# ---------------------------------------------------------------- hadolint, when installed


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint not installed")
def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint")
    assert hadolint is not None
    result = subprocess.run(
        [hadolint, "--no-color", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
