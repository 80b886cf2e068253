#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up a fresh Debian 12 machine, builds Stratex (release preset) and runs every test.
#   STRATEX_ASAN=1 also builds and runs the suite under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/bootstrap.sh
jobs=$(nproc 2>/dev/null || echo 2)

cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

if [ "${STRATEX_ASAN:-0}" = "1" ]; then
    cmake --preset asan
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs"
fi
