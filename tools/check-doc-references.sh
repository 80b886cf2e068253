#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks that every Markdown document the source tree cites exists in the repository, and that
# every section it cites as "§n" exists in that document (a heading "## §n ..." or "### §n.m ...").
#   check-doc-references.sh [REPO_ROOT]
# A citation is a word ending in ".md" in any text file of the tree except JSON data. It resolves
# against the citing file's folder, then the repository root; `*` in it is a glob. Sections are
# the "§n" items right after it ("<doc>.md §2, §5.3", "<doc>.md §2-§5", or on the next line when
# the line ends with the name). Not citations: URLs, and upstream paths written
# "owner/name:path/<doc>.md".
# Exit 0: every citation resolves; 1: some do not (each is printed as file:line: problem).
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"

# The files to scan: tracked and untracked-not-ignored ones in a git checkout, otherwise every file
# outside build folders (a source tarball).
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard)
else
    mapfile -t files < <(find . \( -path ./.git -o -path './build*' \) -prune -o -type f -print | sed 's|^\./||')
fi
scan=()
for f in "${files[@]}"; do
    case "$f" in
    *.json | *.png | *.svg | *.ico | *.jpg | *.gz | *.xz | *.zip) ;;
    *) [ -f "$f" ] && scan+=("$f") ;;
    esac
done

errors=0
fail() {
    echo "$1: $2"
    errors=$((errors + 1))
}

# The section numbers a document defines, one a line ("3", "3.1", ...), cached per document.
declare -A sections
sectionsOf() {
    if [ -z "${sections[$1]+set}" ]; then
        sections[$1]=$(sed -nE 's/^#{1,6}[[:space:]]+§[[:space:]]?([0-9]+(\.[0-9]+)*).*/\1/p' "$1")
    fi
    printf '%s\n' "${sections[$1]}"
}

# Resolves a cited name from file $2; prints the documents it names (several for a glob).
resolve() {
    local cited=$1 dir
    dir=$(dirname "$2")
    local base
    for base in "$dir" "."; do
        local matches=()
        if [[ "$cited" == *'*'* ]]; then
            # shellcheck disable=SC2206 # the glob is wanted here
            matches=($base/$cited)
            [ -e "${matches[0]}" ] || matches=()
        elif [ -f "$base/$cited" ]; then
            matches=("$base/$cited")
        fi
        if [ ${#matches[@]} -gt 0 ]; then
            printf '%s\n' "${matches[@]}"
            return 0
        fi
    done
    return 1
}

word='(https?://[^[:space:]]*|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+:)?[A-Za-z0-9_./*-]*[A-Za-z0-9_*-]\.md'
while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    cited=${rest#*:}
    case "$cited" in
    http://* | https://* | *:*) continue ;; # a URL or an upstream owner/name:path
    esac
    docs=$(resolve "$cited" "$file") || {
        fail "$file:$line" "cites $cited, which is not in the repository"
        continue
    }
    # The text after the citation; when it is empty (or a lone punctuation mark), the next line's,
    # without its comment marker.
    text=$(sed -n "${line}p" "$file")
    tail=${text#*"$cited"}
    if [[ "$tail" =~ ^[\`\'\"\)]?[[:space:]]*$ ]]; then
        tail=$(sed -n "$((line + 1))p" "$file" | sed -E 's@^[[:space:]]*(//+|#+|\*|<!--)?[[:space:]]*@@')
    fi
    tail=$(printf '%s' "$tail" | sed -E 's/^[`'\''")]?[[:space:](]*//')
    prefix=$(printf '%s' "$tail" | grep -oE '^(§ ?[0-9]+(\.[0-9]+)*([[:space:]]*(,|and|-|–|to)?[[:space:]]*))*' || true)
    [ -n "$prefix" ] || continue
    while IFS= read -r number; do
        [ -n "$number" ] || continue
        while IFS= read -r doc; do
            defined=$(sectionsOf "$doc")
            if ! grep -qxF "$number" <<<"$defined"; then
                fail "$file:$line" "cites §$number of ${doc#./}, which has no heading §$number"
            fi
        done <<<"$docs"
    done < <(printf '%s' "$prefix" | grep -oE '§ ?[0-9]+(\.[0-9]+)*' | sed -E 's/§ ?//; s/\.$//')
done < <(grep -IonE "$word" "${scan[@]}" || true)

if [ "$errors" -gt 0 ]; then
    echo "check-doc-references: $errors citation(s) of documents or sections not in the repository"
    exit 1
fi
echo "check-doc-references: every cited document and section exists"
