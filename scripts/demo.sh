#!/usr/bin/env bash
# Sets everything up and runs Ember's main job (examples/demo.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
TZ=UTC exec .venv/bin/python examples/demo.py "$@"
