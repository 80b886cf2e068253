#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks that packaging/bootstrap.sh installs every Debian package a configured build depends on:
# each CMake package configuration that configure found (Qt6Charts, Qt6OpenGL, nlohmann_json, ...)
# must come from a package in bootstrap.sh's list or from one of their (recursive) dependencies.
# A machine that happens to have a package installed otherwise would hide the gap (Debian's
# qt6-charts-dev does not pull in libqt6opengl6-dev, which Qt6Charts' configuration needs).
#   check-bootstrap.sh BUILD_DIR/CMakeCache.txt
# Exit 0: complete; 1: packages missing from the list; 77: not a Debian system (skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${1:?usage: check-bootstrap.sh BUILD_DIR/CMakeCache.txt}
if ! command -v dpkg-query >/dev/null || ! command -v apt-cache >/dev/null; then
    echo "check-bootstrap: no dpkg/apt-cache here: skipped"
    exit 77
fi

mapfile -t listed < <(sed -n '/^PACKAGES=(/,/^)/p' packaging/bootstrap.sh | sed '1d;$d' | tr -s ' \t' '\n' | sed '/^$/d')
if [ ${#listed[@]} -eq 0 ]; then
    echo "check-bootstrap: no PACKAGES list found in packaging/bootstrap.sh" >&2
    exit 1
fi

# Everything the listed packages bring with them (hard dependencies only, as --no-install-recommends).
closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${listed[@]}" 2>/dev/null | grep -v '^ ' | sed 's/:.*$//' | sort -u)

missing=()
checked=0
while IFS='=' read -r variable dir; do
    name=${variable%_DIR:PATH}
    config="$dir/${name}Config.cmake"
    [ -f "$config" ] || config="$dir/$(tr '[:upper:]' '[:lower:]' <<<"$name")-config.cmake"
    [ -f "$config" ] || continue
    owner=$(dpkg-query -S "$config" 2>/dev/null | head -n 1 | cut -d: -f1) || true
    [ -n "$owner" ] || continue # not from a package (built by hand): nothing to install
    checked=$((checked + 1))
    if ! grep -qx "$owner" <<<"$closure"; then
        missing+=("$owner (for $name)")
    fi
done < <(grep -E '^[A-Za-z0-9_]+_DIR:PATH=/.*/cmake/' "$cache" | sort -u)

if [ ${#missing[@]} -gt 0 ]; then
    echo "check-bootstrap: packaging/bootstrap.sh does not install:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
fi
echo "check-bootstrap: the ${#listed[@]} listed packages provide all $checked CMake packages configure found"
