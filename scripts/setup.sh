#!/usr/bin/env bash
# Installs everything Ember needs on a fresh Debian machine, then builds and installs Ember
# into .venv at the repository root. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Debian packages: the C++ toolchain and libraries (Arrow itself comes from the pyarrow wheel).
debs=(g++ cmake ninja-build ccache libgtest-dev nlohmann-json3-dev zlib1g-dev libsqlite3-dev
      libxxhash-dev libsimdjson-dev libre2-dev pkg-config libabsl-dev libssl-dev avro-bin
      python3-venv openjdk-17-jre-headless clang-format
      clang libclang-rt-14-dev  # clang and its libFuzzer runtime: tests/fuzz
      libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler)  # the Connect server
missing=()
for p in "${debs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python environment with pinned versions (one pyarrow for build and run time).
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
stamp=.venv/.ember-requirements
if ! cmp -s requirements.txt "$stamp" 2>/dev/null; then
  echo "setup: installing Python packages"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements.txt
  cp requirements.txt "$stamp"
fi

# The Iceberg runtime for the real Spark that the tests use as the reference engine.
iceberg_jar="$HOME/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.0_2.13/1.10.0/iceberg-spark-runtime-4.0_2.13-1.10.0.jar"
if [ ! -f "$iceberg_jar" ]; then
  command -v mvn >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null
  echo "setup: fetching the Iceberg runtime for Spark"
  mvn -q dependency:get -Dartifact=org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.10.0 \
    -Dtransitive=false
fi
# SQLite's JDBC driver, for Spark reading Ember's JDBC-catalog tables (type=jdbc).
sqlite_jar="$HOME/.m2/repository/org/xerial/sqlite-jdbc/3.50.3.0/sqlite-jdbc-3.50.3.0.jar"
if [ ! -f "$sqlite_jar" ]; then
  command -v mvn >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven >/dev/null
  echo "setup: fetching SQLite's JDBC driver"
  mvn -q dependency:get -Dartifact=org.xerial:sqlite-jdbc:3.50.3.0 -Dtransitive=false
fi

# Build and install Ember into .venv (incremental: persistent build dir, ninja, ccache). The
# compiler cache is the machine's, shared by every checkout of Ember on it: paths are taken
# relative to the checkout, so a fresh clone compiles from the cache.
export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ember-ccache}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
if ! .venv/bin/pip install -q --no-build-isolation --no-deps \
  -Cbuild-dir=build/python -Ccmake.build-type=Release .; then
  echo "setup: building Ember failed" >&2
  exit 1
fi
