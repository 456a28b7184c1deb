"""The screen as it was at an earlier commit, loaded from git into a temporary package.

``previous_screen(commit)`` reads ``sidecar/judge/screen.py`` and its helper modules with
``git show <commit>:path``, rewrites their imports of one another to a private package
name and imports them, so the benchmark runs the old and the new screen in one process on
the same pairs.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["BASE_COMMIT", "previous_screen"]

BASE_COMMIT = "33e8ab2"
"""The last commit of the screen before it was measured on public sets."""

_MODULES = (
    "_lexicon",
    "_screen_numbers",
    "_screen_words",
    "_screen_tokens",
    "_screen_text",
    "_screen_roles",
    "_screen_clauses",
    "_screen_window",
    "_screen_binding",
    "_screen_links",
    "_screen_align",
    "screen",
)
_ROOT = Path(__file__).parents[1]


def _source(commit: str, module: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(_ROOT), "show", f"{commit}:sidecar/judge/{module}.py"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout if done.returncode == 0 else None


def previous_screen(commit: str = BASE_COMMIT) -> Callable[[str, Sequence[str]], str | None]:
    """The screen of ``commit`` as a judge function (verdict or None)."""
    package = f"_screen_at_{commit}"
    if package not in sys.modules:
        folder = Path(tempfile.mkdtemp(prefix="screen-prev-")) / package
        folder.mkdir()
        (folder / "__init__.py").write_text("", encoding="utf-8")
        for module in _MODULES:
            text = _source(commit, module)
            if text is None:
                continue
            text = text.replace(
                "from sidecar.judge import _lexicon", f"from {package} import _lexicon"
            )
            text = text.replace("from sidecar.judge._screen_", f"from {package}._screen_")
            (folder / f"{module}.py").write_text(text, encoding="utf-8")
        sys.path.insert(0, str(folder.parent))
        __import__(package)
    module: ModuleType = __import__(f"{package}.screen", fromlist=["screen_claim"])
    screen_claim = module.screen_claim

    def judge(claim: str, passages: Sequence[str]) -> str | None:
        verdict: str | None = screen_claim(claim, passages).verdict
        return verdict

    return judge
