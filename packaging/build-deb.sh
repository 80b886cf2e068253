#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian package of Stratex: the release preset's binaries (the ones the tests ran),
# stripped, with the desktop entry, AppStream metadata, icon, man pages and copyright file.
#   packaging/build-deb.sh [OUTPUT_DIR]      (default: build/release/packages)
# Check the result with: dpkg-deb -I FILE.deb; dpkg-deb -c FILE.deb; lintian FILE.deb
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/bootstrap.sh
out=$(realpath -m "${1:-build/release/packages}")
cmake --preset release
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)"
mkdir -p "$out"
cpack --config build/release/CPackConfig.cmake -G DEB -B "$out"
rm -rf "$out/_CPack_Packages"
ls -1 "$out"/*.deb
