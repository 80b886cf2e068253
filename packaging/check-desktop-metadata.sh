#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Validates the desktop integration files in resources/ with the freedesktop tools, and checks
# that they name each other and the project's version.
#   check-desktop-metadata.sh desktop  APP_ID VERSION   # desktop-file-validate
#   check-desktop-metadata.sh metainfo APP_ID VERSION   # appstreamcli validate --no-net
# Exit 0: valid; 1: invalid; 77: the validator is not installed (skipped; packaging/bootstrap.sh
# installs both).
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:?usage: check-desktop-metadata.sh desktop|metainfo APP_ID VERSION}
app_id=${2:?app id}
version=${3:?version}
desktop=resources/$app_id.desktop
metainfo=resources/$app_id.metainfo.xml
status=0
fail() { echo "check-desktop-metadata: $*" >&2; status=1; }

case "$kind" in
desktop)
    command -v desktop-file-validate >/dev/null || { echo "desktop-file-validate not installed: skipped"; exit 77; }
    [ -f "$desktop" ] || { echo "check-desktop-metadata: no $desktop" >&2; exit 1; }
    # Warnings are failures too; hints (suggestions) are shown.
    output=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate failed"
    [ -n "$output" ] && echo "$output"
    grep -q -E ': (error|warning):' <<<"$output" && fail "$desktop has errors or warnings"
    grep -qx "Icon=$app_id" "$desktop" || fail "$desktop: Icon must be $app_id (the installed icon's name)"
    grep -q '^Exec=stratex ' "$desktop" || fail "$desktop: Exec must run stratex"
    grep -q '^MimeType=.*application/json' "$desktop" || fail "$desktop: MimeType must list application/json"
    ;;
metainfo)
    command -v appstreamcli >/dev/null || { echo "appstreamcli not installed: skipped"; exit 77; }
    [ -f "$metainfo" ] || { echo "check-desktop-metadata: no $metainfo" >&2; exit 1; }
    # Fails on errors and warnings; infos and pedantic notes are shown.
    appstreamcli validate --no-net "$metainfo" || fail "appstreamcli validate failed"
    grep -q "<id>$app_id</id>" "$metainfo" || fail "$metainfo: <id> must be $app_id"
    grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" \
        || fail "$metainfo: the launchable must be $app_id.desktop"
    newest=$(grep -o -m 1 '<release version="[^"]*"' "$metainfo" | cut -d'"' -f2)
    [ "$newest" = "$version" ] || fail "$metainfo: newest release $newest, but the project is version $version"
    ;;
*)
    echo "usage: check-desktop-metadata.sh desktop|metainfo APP_ID VERSION" >&2
    exit 2
    ;;
esac
[ $status -eq 0 ] && echo "check-desktop-metadata: $kind valid"
exit $status
