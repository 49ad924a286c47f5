import os

# Arrow picks its default allocator once, at its first allocation. jemalloc, which Arrow bundles,
# gives Ember's workloads back their freed memory sooner than mimalloc does, and one arena (not
# four per core) keeps fewer freed pages around (W3's peak 470 -> 325 MB, docs/activate.md). A
# user's own choices stand.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
os.environ.setdefault("JE_ARROW_MALLOC_CONF", "narenas:1")

from ember._activate import activate, deactivate  # noqa: E402
