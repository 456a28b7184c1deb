"""The packages import one way: schemas <- exporters <- sidecar, and inside sidecar the
trust tools (quality) and the CLI sit on top; the trust tools never reach into the runtime."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of the file (lazy imports count too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def _offenders(
    folder: str, forbidden: tuple[str, ...], allowed_in: tuple[str, ...] = ()
) -> list[str]:
    found = []
    for path in _modules(folder):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith(allowed_in):
            continue
        for name in _imports(path):
            if name in forbidden or name.startswith(tuple(f + "." for f in forbidden)):
                found.append(f"{relative} imports {name}")
    return found


@pytest.mark.parametrize(
    ("folder", "forbidden", "allowed_in"),
    [
        pytest.param("schemas", ("exporters", "sidecar"), (), id="schemas-import-nothing"),
        pytest.param("exporters", ("sidecar",), (), id="exporters-below-sidecar"),
        pytest.param("sidecar", ("sidecar.cli",), ("sidecar/cli/",), id="cli-on-top"),
        pytest.param(
            "sidecar",
            ("sidecar.quality",),
            ("sidecar/cli/", "sidecar/quality/"),
            id="quality-below-cli-only",
        ),
        pytest.param("sidecar/quality", ("sidecar.runtime",), (), id="quality-not-runtime"),
        pytest.param(
            "sidecar",
            ("sidecar.runtime",),
            ("sidecar/cli/", "sidecar/runtime/"),
            id="runtime-below-cli-only",
        ),
    ],
)
def test_imports_point_one_way(
    folder: str, forbidden: tuple[str, ...], allowed_in: tuple[str, ...]
) -> None:
    assert _offenders(folder, forbidden, allowed_in) == []


def test_only_the_agreed_modules_sit_at_the_top_of_sidecar() -> None:
    top = sorted(p.name for p in (ROOT / "sidecar").glob("*.py"))
    assert top == [
        "__init__.py",
        "_regex.py",
        "_userinfo.py",
        "assembly.py",
        "decode.py",
        "errors.py",
        "pipeline.py",
        "scoring.py",
    ]


def test_every_package_has_an_explicit_front() -> None:
    inits = sorted(ROOT.glob("sidecar/**/__init__.py"))
    missing = [
        init.relative_to(ROOT).as_posix()
        for init in inits
        if "__all__" not in init.read_text(encoding="utf-8")
    ]
    assert missing == []


MAX_LINES = 400
GENERATED = frozenset({"native/src/pytables.rs"})
"""Tables written by a generator, not by hand."""


def _line_counts() -> dict[str, int]:
    paths = [
        *(path for folder in ("schemas", "exporters", "sidecar") for path in _modules(folder)),
        *sorted((ROOT / "native" / "src").rglob("*.rs")),
    ]
    return {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in paths
    }


def test_no_module_is_over_the_line_limit() -> None:
    counts = _line_counts()
    over = {path for path, lines in counts.items() if lines > MAX_LINES} - GENERATED
    assert sorted(over) == [], "split the long module along its seams"


def test_the_tests_mirror_the_packages() -> None:
    # A package's tests live in tests/<package>/; tests/sidecar keeps the modules at the
    # top of sidecar (config, decode, pipeline, scoring) and nothing of a subpackage.
    packages = {p.parent.name for p in ROOT.glob("sidecar/*/__init__.py")}
    assert {p for p in packages if not (ROOT / "tests" / p).is_dir()} == set()
    stray = [
        t.name
        for t in (ROOT / "tests" / "sidecar").glob("test_*.py")
        if any(t.name.startswith(f"test_{name}") for name in packages)
    ]
    assert stray == []


NOT_MIRRORS = frozenset({"fixtures", "integration", "sidecar", "support"})
"""The folders of tests/ that mirror no package: data, tests that need real servers, the
modules at the top of sidecar, and the shared test and benchmark support."""


def test_every_test_folder_mirrors_a_package_or_is_agreed() -> None:
    packages = {p.parent.name for p in ROOT.glob("sidecar/*/__init__.py")}
    mirrored = packages | {"schemas", "exporters", "deploy"}
    folders = {
        p.name
        for p in (ROOT / "tests").iterdir()
        if p.is_dir() and not p.name.startswith((".", "_"))
    }
    assert sorted(folders - mirrored - NOT_MIRRORS) == []


SUPPORT = "tests.support"
"""The shared test and benchmark support: the one part of tests/ that bench/ may use."""


def _module_names(path: Path) -> set[str]:
    """Every module ``path`` imports, and every string in it that names a module of tests/
    (``python -m tests.x`` in a child process's command line imports it too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    named = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("tests.")
        and node.value.replace(".", "").replace("_", "").isalnum()
    }
    return _imports(path) | named


def test_bench_uses_tests_only_through_the_support_package() -> None:
    found = sorted(
        f"{path.relative_to(ROOT).as_posix()} uses {name}"
        for path in _modules("bench")
        for name in _module_names(path)
        if (name == "tests" or name.startswith("tests."))
        and name != SUPPORT
        and not name.startswith(SUPPORT + ".")
    )
    assert found == []
