#!/usr/bin/env bash
# Sets everything up and runs the whole test suite: the C++ unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, a short run of each fuzzer (tests/fuzz), then the Python suite
# (which compares Ember with DuckDB and Spark), then the differential suite again with tiny Arrow
# batches.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bash scripts/setup.sh
# The machine's compiler cache, as setup.sh uses it.
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ember-ccache}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

echo "== C++ unit tests (ASan + UBSan)"
cmake -G Ninja -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DEMBER_BUILD_TESTS=ON \
  -DEMBER_SANITIZE=ON -DPython_EXECUTABLE="$root/.venv/bin/python" >/dev/null
cmake --build build/asan
# pyarrow's libraries are not instrumented: container annotations would report false overflows.
ASAN_OPTIONS=detect_container_overflow=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure

echo "== Fuzzers (libFuzzer, ASan + UBSan, 10 s each; long runs: tests/fuzz/README.md)"
bash tests/fuzz/run.sh 10

echo "== Python tests"
export TZ=UTC
# 30 SIGKILLs per kill test instead of a hundred, to keep within CI's time (EMBER_KILLS=100 for
# the full count).
export EMBER_KILLS="${EMBER_KILLS:-30}"
# A worker per core, each taking whole test files (module fixtures start Spark once per file):
# most tests wait on Spark's or Ember's processes, so two workers on two cores take ~2/3 the time.
.venv/bin/python -m pytest -q -n auto --dist loadfile "$@"

echo "== Differential suite with 3-row Arrow batches"
EMBER_BATCH_SIZE=3 EMBER_DIFF_ROWS=3000 EMBER_TEST_SPARK=0 \
  .venv/bin/python -m pytest -q -n auto --dist loadfile tests/python/differential
