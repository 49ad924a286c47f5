import os
import sys

# Arrow picks its default allocator once, at its first allocation. jemalloc, which Arrow bundles,
# gives Ember's workloads back their freed memory sooner than mimalloc does; one arena (not four
# per core) keeps fewer freed pages around (W3's peak 470 -> 325 MB), and freed pages go back
# within 200 ms, not 2 s (Nexmark's 444 -> 364 MB); docs/activate.md. A user's own choices stand.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
os.environ.setdefault("JE_ARROW_MALLOC_CONF", "narenas:1,dirty_decay_ms:200,muzzy_decay_ms:0")

# Python opens extension modules with RTLD_NOW, binding every symbol the core and Arrow's libraries
# use before the first is called; bound on first call instead, a fresh process's first answer comes
# about 2 ms sooner (W6 in docs/benchmarks.md: 35 against 37 ms, medians of 15 runs each).
_flags = sys.getdlopenflags()
sys.setdlopenflags(_flags & ~os.RTLD_NOW | os.RTLD_LAZY)
try:
    from ember import _core  # noqa: E402, F401
finally:
    sys.setdlopenflags(_flags)

from ember._activate import activate, deactivate  # noqa: E402
