"""scripts/install-system-deps as an ordinary user on Debian or Ubuntu: without root or sudo
it says in one line what to install and how (never apt's own "Permission denied"), with sudo
it installs through it. Run as a user created for the test when the suite runs as root (as
CI's own run does), else as the user running it."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_install import _BASICS, _POLICY, RUST_VERSION, _fake_apt

ROOT = Path(__file__).resolve().parents[1]
USER = "citewatch-install-test"


@pytest.fixture(scope="module")
def user() -> Iterator[str | None]:
    """The name of an ordinary user to run as; None to run as the current one (not root)."""
    if os.geteuid() != 0:
        yield None
        return
    useradd = shutil.which("useradd")
    if useradd is None:
        if os.environ.get("CI"):
            pytest.fail("useradd is needed to test the install as an ordinary user")
        pytest.skip("useradd not installed")
    created = False
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run([useradd, "--create-home", "--shell", "/bin/bash", USER], check=True)
        created = True
    try:
        yield USER
    finally:
        if created:
            subprocess.run(["userdel", "--remove", USER], check=False, capture_output=True)


@pytest.fixture
def tree() -> Iterator[Path]:
    """The script and the file it reads, where any user can read them (pytest's tmp_path is
    its owner's only)."""
    base = Path(tempfile.mkdtemp(prefix="citewatch-install-"))
    try:
        for name in ("scripts/install-system-deps", "native/Cargo.toml"):
            (base / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, base / name)
        (base / "bin").mkdir()
        for path in (base, *base.rglob("*")):
            path.chmod(0o777 if path.is_dir() else 0o755)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _link(bin_dir: Path, tools: tuple[str, ...]) -> None:
    for tool in tools:
        found = shutil.which(tool)
        if found is not None:
            (bin_dir / tool).symlink_to(found)


def _run(tree: Path, user: str | None) -> subprocess.CompletedProcess[str]:
    home = pwd.getpwnam(user).pw_dir if user else str(tree)
    return subprocess.run(
        [str(tree / "bin" / "bash"), str(tree / "scripts" / "install-system-deps"), "--build"],
        env={"PATH": str(tree / "bin"), "HOME": home, "LC_ALL": "C"},
        user=user,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_root_or_sudo_one_line_says_what_to_install_and_how(
    tree: Path, user: str | None
) -> None:
    if shutil.which("apt-get") is None or shutil.which("apt-cache") is None:
        pytest.skip("not a Debian or Ubuntu machine (no apt-get)")
    # The machine's own apt-get and apt-cache, no cargo, no sudo.
    _link(tree / "bin", (*_BASICS, "apt-get", "apt-cache"))
    result = _run(tree, user)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    [line] = lines
    assert line.startswith("install-system-deps: ")
    assert "rustup" in line and not line.startswith("E:") and "Permission denied" not in line
    # Either the distribution has a cargo new enough (install it as root) or it has none.
    assert "apt-get install cargo" in line or f"Rust {RUST_VERSION} or later" in line


def test_with_sudo_the_distribution_s_cargo_is_installed_through_it(
    tree: Path, user: str | None
) -> None:
    bin_dir, apt_log, sudo_log = tree / "bin", tree / "apt.log", tree / "sudo.log"
    _link(bin_dir, _BASICS)
    _fake_apt(bin_dir, _POLICY["debian-12"], apt_log)
    (bin_dir / "sudo").write_text(f'#!/bin/bash\necho "$*" >> "{sudo_log}"\nexec "$@"\n')
    (bin_dir / "sudo").chmod(0o755)
    result = _run(tree, user)
    assert result.returncode == 0, result.stderr
    assert sudo_log.read_text().splitlines() == [
        "env DEBIAN_FRONTEND=noninteractive apt-get update -qq",
        "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
        "cargo-web",
    ]
    assert "installing cargo-web from the distribution with sudo" in result.stderr
