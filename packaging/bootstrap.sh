#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the build and test dependencies of Stratex on Debian 12 (bookworm) with apt-get.
#   bootstrap.sh          everything: the release build and every test, fuzz and packaging tool
#   bootstrap.sh --main   only what configuring the release preset and building the programs need
#                         (packaging/run-main.sh; issue 24, finding 12: on a fresh machine the first
#                         window waits for apt, and clang alone is a fifth of the download)
# Idempotent: when everything is already installed it returns at once without touching apt.
set -euo pipefail

# What configure finds (Qt, nlohmann_json, Eigen: the cost model's calibration, Google Benchmark:
# STRATEX_BUILD_BENCHMARKS is on by default) and what the programs need to build and run;
# packaging/check-bootstrap.sh checks that this list covers every CMake package configure found.
PACKAGES=(
    cmake ninja-build g++ pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev qt6-qpa-plugins libgl-dev
    libqt6opengl6-dev
    nlohmann-json3-dev libeigen3-dev
    libbenchmark-dev
    fonts-dejavu-core
    gzip
)
# Only the test command's (and packaging/build-deb.sh's): clang for the `fuzz` preset; help2man for
# the man pages of the `all` build; the freedesktop validators of the desktop metadata (ctest -L
# packaging); dpkg-dev and file for cpack's DEB generator.
TEST_PACKAGES=(
    clang libclang-rt-14-dev
    help2man
    appstream desktop-file-utils
    dpkg-dev file
)

case "${1:-}" in
    --main) wanted=("${PACKAGES[@]}") ;;
    "") wanted=("${PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
    *) echo "usage: bootstrap.sh [--main]" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: all ${#wanted[@]} packages already installed"
    exit 0
fi

echo "bootstrap: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: run as root or install sudo" >&2; exit 1; }
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bootstrap: done"
