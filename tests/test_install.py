"""Installing citewatch: with the oldest Rust it declares (native/Cargo.toml's rust-version,
whose Cargo.lock that toolchain must read), from a wheel built once on a machine with Rust
onto one with none, and scripts/install-system-deps getting cargo from the distribution
when none is on PATH."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUST_VERSION = re.search(
    r'^rust-version = "([^"]+)"', (ROOT / "native" / "Cargo.toml").read_text(), re.M
).group(1)  # type: ignore[union-attr]


def _oldest_toolchain() -> Path | None:
    rustup_home = Path(os.environ.get("RUSTUP_HOME", Path.home() / ".rustup"))
    for found in sorted((rustup_home / "toolchains").glob(f"{RUST_VERSION}-*")):
        if (found / "bin" / "cargo").is_file():
            return found / "bin"
    return None


def test_the_lock_file_is_one_the_oldest_supported_cargo_reads() -> None:
    lock = (ROOT / "native" / "Cargo.lock").read_text()
    # Lock file version 4 needs cargo 1.78; version 3 is read by every cargo since 1.53.
    assert re.search(r"^version = 3$", lock, re.M)


@pytest.mark.integration
@pytest.mark.timeout(1500)
def test_installs_in_a_fresh_venv_with_the_oldest_supported_rust_only(tmp_path: Path) -> None:
    toolchain = _oldest_toolchain()
    if toolchain is None:
        message = (
            f"Rust {RUST_VERSION} is not installed (rustup toolchain install "
            f"{RUST_VERSION} --profile minimal; .ci/run does)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    tree = tmp_path / "src"
    _tracked_copy(tree)
    lock_before = (tree / "native" / "Cargo.lock").read_bytes()
    venv = tmp_path / "venv"
    # The venv sees this environment's packages (pydantic, kafka-python...) so only citewatch
    # itself is built and installed into it, from PyPI's build tools.
    _venv_seeing_this_environment(venv)
    env = {
        # That toolchain's cargo and rustc and nothing else of Rust (no ~/.cargo/bin).
        "PATH": os.pathsep.join([str(toolchain), str(venv / "bin"), "/usr/bin", "/bin"]),
        "HOME": os.environ.get("HOME", "/root"),
        "CARGO_TARGET_DIR": str(tmp_path / "target"),
        # Compatibility is under test, not speed: a quicker profile than the release one.
        "CARGO_PROFILE_RELEASE_LTO": "off",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(tree)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1400,
    )
    assert install.returncode == 0, install.stderr[-4000:]
    assert (tree / "native" / "Cargo.lock").read_bytes() == lock_before  # used as it is
    smoke = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import json, sidecar.redaction._native as n; "
            "print(json.dumps([n.__file__, n.luhn_valid('4111111111111111'), "
            "n.luhn_valid('4111111111111112')]))",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert smoke.returncode == 0, smoke.stderr[-4000:]
    where, good, bad = json.loads(smoke.stdout)
    assert (where.startswith(str(venv)), good, bad) == (True, True, False)


def _venv_seeing_this_environment(venv: Path) -> None:
    """A new virtual environment whose Python also finds the packages of the one running the
    tests, after its own. `--system-site-packages` alone is not that when the tests run in a
    virtual environment (README's test command): a venv made by a venv's Python sees the base
    interpreter's packages, not the running venv's, where README installed the dependencies."""
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    own = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Plain paths, so the .pth files there (this environment's editable citewatch) stay unread.
    (Path(own) / "_tests_environment.pth").write_text(
        "".join(f"{path}\n" for path in site.getsitepackages() if Path(path).is_dir())
    )


def _tracked_copy(tree: Path) -> None:
    """A copy of the tracked files, as a fresh clone has them."""
    files = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)


@pytest.mark.integration
@pytest.mark.timeout(1500)
def test_a_wheel_built_once_installs_where_there_is_no_rust_at_all(tmp_path: Path) -> None:
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(cargo).is_file():
        message = "no cargo to build the wheel with (scripts/install-system-deps --build)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    tree, dist = tmp_path / "src", tmp_path / "dist"
    _tracked_copy(tree)
    build_env = {
        **os.environ,
        "CARGO_TARGET_DIR": str(tmp_path / "target"),
        "PATH": os.pathsep.join([str(Path(cargo).parent), os.environ["PATH"]]),
        "CARGO_PROFILE_RELEASE_LTO": "off",
        "CARGO_PROFILE_RELEASE_OPT_LEVEL": "1",
        "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(dist),
            str(tree),
        ],
        env=build_env,
        capture_output=True,
        text=True,
        timeout=1400,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    [wheel] = dist.glob("citewatch-*.whl")
    venv = tmp_path / "venv"
    _venv_seeing_this_environment(venv)
    # No Rust anywhere on PATH, no ~/.cargo: the wheel carries the compiled engine. PATH is
    # the venv and an empty directory, not the machine's /usr/bin, which holds a cargo once
    # scripts/install-system-deps --build installed the distribution's.
    nothing = tmp_path / "empty-bin"
    nothing.mkdir()
    env = {
        "PATH": os.pathsep.join([str(venv / "bin"), str(nothing)]),
        "HOME": str(tmp_path / "home"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    assert [shutil.which(tool, path=env["PATH"]) for tool in ("cargo", "rustc")] == [None, None]
    install = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-4000:]
    smoke = subprocess.run(
        [
            str(venv / "bin" / "citewatch"),
            "check",
            str(ROOT / "examples" / "traces.jsonl"),
            "--output",
            str(tmp_path / "evaluations.jsonl"),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert smoke.returncode == 0, smoke.stderr[-4000:]
    lines = (tmp_path / "evaluations.jsonl").read_text().splitlines()
    assert len(lines) == sum(
        1 for line in (ROOT / "examples" / "traces.jsonl").read_text().splitlines() if line.strip()
    )
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sidecar.redaction._native as n; print(n.__file__)",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.stdout.strip().startswith(str(venv)), where.stderr


# -- scripts/install-system-deps --build, with apt-get and apt-cache faked on PATH -----------

_POLICY = {
    # Debian 12: cargo 0.66 is Rust 1.65; cargo-web is the distribution's newer toolchain.
    "debian-12": {"cargo": "0.66.0+ds1-1", "cargo-web": "1.85.0+dfsg3-1~deb12u3"},
    "debian-13": {"cargo": "1.85.0+dfsg2-3", "cargo-web": None},
    "too-old": {"cargo": "0.66.0+ds1-1", "cargo-web": None},
}


def _fake_apt(bin_dir: Path, policy: dict[str, str | None], log: Path) -> None:
    candidates = "\n".join(
        f'  {name}) echo "  Candidate: {version or "(none)"}" ;;'
        for name, version in policy.items()
    )
    (bin_dir / "apt-cache").write_text(
        f'#!/bin/bash\necho "$1:"\ncase "$2" in\n{candidates}\n  *) ;;\nesac\n'
    )
    # "Installing" writes a cargo that reports the package's Rust version.
    installs = "\n".join(
        f'  {name}) printf "#!/bin/sh\\necho cargo {(version or "").split("+")[0]}\\n" '
        f'> "{bin_dir}/cargo"; chmod +x "{bin_dir}/cargo" ;;'
        for name, version in policy.items()
        if version
    )
    (bin_dir / "apt-get").write_text(
        f'#!/bin/bash\necho "$*" >> "{log}"\nif [ "$1" = install ]; then\n'
        f'  for p in "$@"; do case "$p" in\n{installs}\n  esac; done\nfi\n'
    )
    for tool in ("apt-cache", "apt-get"):
        (bin_dir / tool).chmod(0o755)


_BASICS = ("bash", "sed", "awk", "sort", "head", "printf", "dirname", "cat", "chmod", "id", "env")


def _link_basics(bin_dir: Path, sudo_log: Path | None = None) -> None:
    """The tools the script runs, and a sudo that logs what it is asked to run and runs it
    (as the same user: apt is faked, so root is not needed)."""
    for tool in _BASICS:
        found = shutil.which(tool)
        if found is not None and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    log = sudo_log or bin_dir.parent / "sudo.log"
    (bin_dir / "sudo").write_text(f'#!/bin/bash\necho "$*" >> "{log}"\nexec "$@"\n')
    (bin_dir / "sudo").chmod(0o755)


@pytest.mark.parametrize(
    ("distribution", "installed", "code"),
    [
        pytest.param("debian-12", "cargo-web", 0, id="debian-12-cargo-too-old-cargo-web"),
        pytest.param("debian-13", "cargo", 0, id="debian-13-cargo"),
        pytest.param("too-old", None, 1, id="nothing-new-enough"),
    ],
)
def test_install_system_deps_installs_the_distribution_s_cargo_when_none_is_on_path(
    tmp_path: Path,
    distribution: str,
    installed: str | None,
    code: int,
) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    _link_basics(bin_dir)
    _fake_apt(bin_dir, _POLICY[distribution], log)
    result = subprocess.run(
        [str(bin_dir / "bash"), str(ROOT / "scripts" / "install-system-deps"), "--build"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == code, result.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    installs = [c.split()[-1] for c in calls if c.startswith("install")]
    assert installs == ([installed] if installed else [])
    if installed is None:
        assert f"Rust {RUST_VERSION} or later" in result.stderr and "rustup" in result.stderr


def test_install_system_deps_leaves_a_cargo_on_path_alone(tmp_path: Path) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    _link_basics(bin_dir)
    _fake_apt(bin_dir, _POLICY["debian-12"], log)
    (bin_dir / "cargo").write_text("#!/bin/sh\necho 'cargo 1.95.0 (f2d3ce0bd 2026-03-21)'\n")
    (bin_dir / "cargo").chmod(0o755)
    result = subprocess.run(
        [str(bin_dir / "bash"), str(ROOT / "scripts" / "install-system-deps"), "--build"],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, log.exists()) == (0, False), result.stderr
