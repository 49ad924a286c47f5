#!/usr/bin/env bash
# Builds the libFuzzer targets in build/fuzz and runs each for SECONDS (default 20) from its seed
# corpus, printing one line per target: "fuzz TARGET: ok ..." or "fuzz TARGET: FAILED ...".
# New inputs go to build/fuzz/corpus/TARGET (kept between runs), never into the repository;
# a crashing input is saved as build/fuzz/TARGET-crash-*. Usage: tests/fuzz/run.sh [SECONDS [TARGET...]]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json_lines csv sql table_metadata avro_manifest)

cmake -G Ninja -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
  -DCMAKE_CXX_COMPILER=clang++ -DEMBER_BUILD_FUZZERS=ON \
  -DPython_EXECUTABLE="$root/.venv/bin/python" >/dev/null
cmake --build build/fuzz --target "${targets[@]/#/fuzz_}"

# pyarrow's libraries are not instrumented: container annotations would report false overflows.
export ASAN_OPTIONS=detect_container_overflow=0 UBSAN_OPTIONS=print_stacktrace=1
status=0
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz/corpus/$t"
  log="build/fuzz/$t.log"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
  start=$(date +%s)
  if build/fuzz/tests/fuzz/"fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="build/fuzz/$t-" "${dict[@]}" \
      "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
    echo "fuzz $t: ok, $runs runs in $(( $(date +%s) - start )) s, $cov, 0 crashes"
  else
    tail -n 60 "$log"
    echo "fuzz $t: FAILED (log $log, input build/fuzz/$t-crash-*)"
    status=1
  fi
done
exit $status
