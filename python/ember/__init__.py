import os

# Arrow picks its default allocator once, at its first allocation. jemalloc, which Arrow bundles,
# gives Ember's workloads back their freed memory sooner than mimalloc does (W3's peak 470 -> 385
# MB, docs/benchmarks.md) and spends less time in page faults. A user's own choice stands.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")

from ember._activate import activate, deactivate  # noqa: E402
