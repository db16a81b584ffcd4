#!/usr/bin/env bash
# Builds the release preset and runs the main job on built-in defaults (see README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
./build/release/bin/hetcim inspect resnet18
