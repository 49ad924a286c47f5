"""Modules imported on first use.

pyarrow (with numpy, which it imports when installed) takes a few hundred milliseconds to import,
and many programs never need it: the core converts plain Python rows itself.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any


class LazyModule:
    """Stands for module `name`, imported at the first attribute access."""

    def __init__(self, name: str):
        self.__name = name

    def __getattr__(self, attr: str) -> Any:
        __import__(self.__name)
        module: ModuleType = sys.modules[self.__name]
        # Later lookups find the module's names here and skip __getattr__; names the module
        # gains afterwards (submodules imported later) still reach it through this method.
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)
