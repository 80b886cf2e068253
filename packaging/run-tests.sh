#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up a fresh Debian 12 machine, builds Stratex (release preset) and runs every test; then the
# clang `fuzz` build: the core, controller and CLI suites again under AddressSanitizer + UBSan,
# and a smoke run of every libFuzzer target on its seeds (8 s each).
#   STRATEX_ASAN=1 also builds and runs the whole suite, GUI included, under GCC's ASan + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/bootstrap.sh
jobs=$(nproc 2>/dev/null || echo 2)

cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"

cmake --preset fuzz
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz -j "$jobs"
tests/fuzz/run-fuzz.sh build/fuzz 8

if [ "${STRATEX_ASAN:-0}" = "1" ]; then
    cmake --preset asan
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs"
fi
