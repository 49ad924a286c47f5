"""Make `import pyspark...` load Ember, so PySpark programs run unchanged.

`activate()` puts a finder first on `sys.meta_path` that answers for `pyspark` and every
`pyspark.*` name by importing the matching `ember` module and registering that same module object
under the PySpark name. Nothing is imported ahead of time: a PySpark module that Ember lacks fails
with the usual ModuleNotFoundError when (and only when) a program imports it.
"""

from __future__ import annotations

import sys

# importlib.machinery's ModuleSpec, without importing the importlib package at start-up.
from _frozen_importlib import ModuleSpec

TYPE_CHECKING = False  # typing costs milliseconds at start-up
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Optional, Sequence

_PYSPARK = "pyspark"

# PySpark module paths that live elsewhere in Ember; others map by replacing the first component.
_RENAMED = {
    # Old home of the exception classes (`from pyspark.sql.utils import AnalysisException`).
    "pyspark.sql.utils": "ember.errors",
}


def _ember_name(name: str) -> Optional[str]:
    """The Ember module that stands for PySpark module `name`, or None if not a PySpark name."""
    if name in _RENAMED:
        return _RENAMED[name]
    if name == _PYSPARK or name.startswith(_PYSPARK + "."):
        return "ember" + name[len(_PYSPARK):]
    return None


# The finder and loader implement the protocols without importlib.abc's base classes: importing
# importlib.abc costs tens of milliseconds (importlib.resources, tempfile, ...) at start-up.
class _AliasLoader:
    """Hands the import system an already imported Ember module instead of a new one."""

    def __init__(self, module: ModuleType):
        self._module = module
        self._spec = module.__spec__

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self._module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just set the alias spec on the shared module; Ember's own spec
        # must stay, or `ember.x` would claim to be `pyspark.x` (reloads, pickling by reference).
        module.__spec__ = self._spec


class _PySparkAliasFinder:
    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]] = None,
        target: Optional[ModuleType] = None,
    ) -> Optional[ModuleSpec]:
        ember_name = _ember_name(fullname)
        if ember_name is None:
            return None
        try:
            __import__(ember_name)
            module = sys.modules[ember_name]
        except ModuleNotFoundError as e:
            # Ember has no such module: let the import fail as usual. A module that exists but
            # itself imports something missing is a real error and propagates.
            if e.name is not None and (ember_name + ".").startswith(e.name + "."):
                return None
            raise
        return ModuleSpec(
            fullname, _AliasLoader(module), is_package=hasattr(module, "__path__")
        )


_finder = _PySparkAliasFinder()


def _is_pyspark_name(name: str) -> bool:
    return name == _PYSPARK or name.startswith(_PYSPARK + ".")


def _is_alias(module: Optional[ModuleType]) -> bool:
    name = getattr(module, "__name__", "")
    return name == "ember" or name.startswith("ember.")


def activate() -> None:
    """Route `import pyspark...` to Ember for the rest of the process (until `deactivate()`).

    Raises RuntimeError if the real PySpark is already imported: objects of the two engines must
    not mix, and modules that imported the real one would keep it.
    """
    real = sorted(
        name for name, module in list(sys.modules.items())
        if _is_pyspark_name(name) and not _is_alias(module)
    )
    if real:
        raise RuntimeError(
            "ember.activate() was called after the real PySpark was imported (%s). Call it "
            "before any `import pyspark`, or use Ember directly (`from ember.sql import "
            "SparkSession`)." % ", ".join(real[:3] + (["..."] if len(real) > 3 else []))
        )
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def deactivate() -> None:
    """Undo `activate()`: `import pyspark` finds the real PySpark (if installed) again.

    Modules that already hold Ember objects under PySpark names keep them.
    """
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if _is_pyspark_name(n)]:
        module = sys.modules[name]
        if not _is_alias(module):
            continue
        del sys.modules[name]
        # Importing `pyspark.a.b` set attribute `b` on Ember's `a`; drop it where Ember's own
        # module of that name is a different one (`pyspark.sql.utils` is `ember.errors`).
        parent_name, _, child = name.rpartition(".")
        parent = sys.modules.get(_ember_name(parent_name) or "") if parent_name else None
        if parent is not None and getattr(parent, child, None) is module:
            if module.__name__ != f"{parent.__name__}.{child}":
                delattr(parent, child)
