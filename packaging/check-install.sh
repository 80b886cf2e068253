#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs a build into a temporary root, as the Debian package does (stripped), and checks the
# result: the programs run from there and every file of the package is in place.
#   check-install.sh BUILD_DIR APP_ID VERSION GUI(ON|OFF) MAN_PAGES(ON|OFF)
set -euo pipefail

build=${1:?usage: check-install.sh BUILD_DIR APP_ID VERSION GUI MAN_PAGES}
app_id=${2:?app id}
version=${3:?version}
gui=${4:?ON or OFF}
man=${5:?ON or OFF}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
status=0
fail() { echo "check-install: $*" >&2; status=1; }

cmake --install "$build" --prefix "$root" --strip >/dev/null

# The programs run from the installed tree.
out=$("$root/bin/stratex-cli" --version) || fail "installed stratex-cli --version failed"
[ "$out" = "stratex-cli $version" ] || fail "stratex-cli --version printed \"$out\", expected \"stratex-cli $version\""
"$root/bin/stratex-cli" ranks --world 8 --tp 2 --pp 2 --json >/dev/null || fail "installed stratex-cli ranks failed"

expected=(bin/stratex-cli share/doc/stratex/copyright)
binaries=(bin/stratex-cli)
if [ "$gui" = ON ]; then
    expected+=(bin/stratex "share/applications/$app_id.desktop" "share/metainfo/$app_id.metainfo.xml"
        "share/icons/hicolor/scalable/apps/$app_id.svg")
    binaries+=(bin/stratex)
    out=$(QT_QPA_PLATFORM=offscreen "$root/bin/stratex" --version 2>/dev/null) || fail "installed stratex --version failed"
    [ "$out" = "stratex $version" ] || fail "stratex --version printed \"$out\", expected \"stratex $version\""
fi
if [ "$man" = ON ]; then
    expected+=(share/man/man1/stratex-cli.1.gz)
    [ "$gui" = ON ] && expected+=(share/man/man1/stratex.1.gz)
fi
for file in "${expected[@]}"; do
    [ -s "$root/$file" ] || fail "not installed: $file"
done

# Debian's copyright file is machine-readable (DEP-5) and names the licence.
first=$(head -n 1 "$root/share/doc/stratex/copyright")
[ "$first" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ] \
    || fail "copyright: not in the DEP-5 format"
grep -q '^License: GPL-3.0+' "$root/share/doc/stratex/copyright" || fail "copyright: no GPL-3.0+ licence"
# The changelog's newest entry is this version.
if [ -f "$root/share/doc/stratex/changelog.gz" ]; then
    newest=$(zcat "$root/share/doc/stratex/changelog.gz")
    [[ "${newest%%$'\n'*}" == "stratex ($version) "* ]] || fail "changelog.gz: newest entry is not $version"
else
    fail "not installed: share/doc/stratex/changelog.gz"
fi

# Stripped, as in the package: no debug sections left.
if command -v readelf >/dev/null; then
    for binary in "${binaries[@]}"; do
        sections=$(readelf -S "$root/$binary")
        ! grep -q '\.debug_' <<<"$sections" || fail "$binary is not stripped"
    done
fi

# The man pages: a NAME, a SYNOPSIS and the options, and groff reads them without a warning.
if [ "$man" = ON ]; then
    for page in "$root"/share/man/man1/*.1.gz; do
        text=$(zcat "$page")
        grep -q '^\.SH NAME' <<<"$text" || fail "$(basename "$page"): no NAME section"
        grep -q '^\.SH SYNOPSIS' <<<"$text" || fail "$(basename "$page"): no SYNOPSIS section"
        grep -qF -- '\-\-help' <<<"$text" || fail "$(basename "$page"): no options"
        if command -v groff >/dev/null; then
            warnings=$(groff -man -Tutf8 -ww -z <<<"$text" 2>&1)
            [ -z "$warnings" ] || fail "$(basename "$page"): groff: $warnings"
        fi
    done
    text=$(zcat "$root/share/man/man1/stratex-cli.1.gz")
    grep -q 'plan\\-compare' <<<"$text" || fail "stratex-cli.1.gz: no plan-compare command"
fi

[ $status -eq 0 ] && echo "check-install: installed into a temporary root: ${#expected[@]} files, the programs run"
exit $status
