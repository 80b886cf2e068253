#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Writes the tree of a fetched git mirror (a bare repository, e.g. the one the session's `fetch`
# tool gives: /work/.mirror/NVIDIA+Megatron-LM/repo) to a folder, the source files only
# (.py .json .yaml .yml .toml .txt .cfg .md .sh), skipping blobs the mirror lacks (its large files).
#   tools/export-check/checkout.sh MIRROR_GIT_DIR DEST [COMMIT]
# The checks read DEST under $STRATEX_UPSTREAM (default /work/upstream): megatron-lm, torchtitan,
# megatron-bridge, galvatron (docs/export-loaders.md).
set -euo pipefail
git_dir=$1 dest=$2 commit=${3:-HEAD}
rm -rf "$dest" && mkdir -p "$dest"
git --git-dir="$git_dir" ls-tree -r "$commit" | awk '$2 == "blob" { print $3 "\t" $4 }' |
    python3 -c '
import os, subprocess, sys
git_dir, dest = sys.argv[1], sys.argv[2]
rows = [line.rstrip("\n").split("\t", 1) for line in sys.stdin]
keep = (".py", ".json", ".yaml", ".yml", ".toml", ".txt", ".cfg", ".md", ".sh")
rows = [(h, p) for h, p in rows if p.endswith(keep)]
cat = subprocess.Popen(["git", "--git-dir=" + git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
written = 0
for sha, path in rows:
    cat.stdin.write((sha + "\n").encode()); cat.stdin.flush()
    header = cat.stdout.readline().split()
    if header[-1] == b"missing":
        continue
    data = cat.stdout.read(int(header[2])); cat.stdout.read(1)
    target = os.path.join(dest, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    open(target, "wb").write(data)
    written += 1
print(f"{written} files of {len(rows)} written to {dest}")
' "$git_dir" "$dest"
echo "$(git --git-dir="$git_dir" rev-parse "$commit") $(git --git-dir="$git_dir" log -1 --format=%cs "$commit")"
