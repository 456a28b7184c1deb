"""The citewatch service: checks, redaction, judge, scoring and the runtimes around them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("citewatch")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__", "lazy_names"]


def lazy_names(
    package: str, modules: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """A package's module ``__getattr__`` (PEP 562) that imports each name of ``modules``
    (name -> module) from its module on first use and keeps it in ``namespace`` (the
    package's globals), so a command imports only what it runs."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
