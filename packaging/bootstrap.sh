#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs every build and test dependency of Stratex on Debian 12 (bookworm) with apt-get.
# Idempotent: when everything is already installed it returns at once without touching apt.
set -euo pipefail

# Build and test tools, Qt and the libraries (Eigen: the cost model's calibration); help2man for the man pages made at build time;
# the freedesktop validators of the desktop metadata (ctest -L packaging); dpkg-dev and file for
# cpack's DEB generator (packaging/build-deb.sh).
PACKAGES=(
    cmake ninja-build g++ pkg-config
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev qt6-qpa-plugins libgl-dev
    libqt6opengl6-dev
    nlohmann-json3-dev libeigen3-dev
    libbenchmark-dev
    clang libclang-rt-14-dev
    fonts-dejavu-core
    help2man gzip
    appstream desktop-file-utils
    dpkg-dev file
)

missing=()
for package in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "bootstrap: all ${#PACKAGES[@]} packages already installed"
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
