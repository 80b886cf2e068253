#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prints the README's memory-accuracy table (issue 23) from the CLI's own JSON.

    tools/memory-accuracy-table.py build/release/bin/stratex-cli

Runs `reference --json` and `reference --cross-validate --json`, and prints one row per framework
and kind of published number (allocated, reserved, device) with the mean absolute, signed mean and
largest memory error, in both (cross-validation fits no memory parameter, so the two agree unless
a fold's efficiencies move memory)."""
import json
import subprocess
import sys


def summaries(cli, *args):
    report = json.loads(subprocess.run([cli, "reference", "--json", *args], check=True,
                                       capture_output=True, text=True).stdout)
    return report["memory_by_framework"], report["memory_by_framework_and_kind"]


def cell(s):
    return f"{s['mean_absolute_memory_error'] * 100:.1f} % ({s['mean_memory_error'] * 100:+.1f} %)"


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin/stratex-cli"
    frameworks, kinds = summaries(cli)
    cv_frameworks, cv_kinds = summaries(cli, "--cross-validate")
    cv = {(s["framework"], s.get("kind")): s for s in cv_frameworks + cv_kinds}
    print("| framework | number published | records | error (signed mean) | largest | cross-validated |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for f in frameworks:
        own = [k for k in kinds if k["framework"] == f["framework"]]
        # One kind: one row; several: the framework's row, then one per kind.
        rows = own if len(own) == 1 else [f] + own
        for s in rows:
            kind = s.get("kind")
            name = f"**{s['framework']}**" if kind is None or len(own) == 1 else ""
            other = cv.get((s["framework"], kind))
            print(f"| {name} | {kind or 'all'} | {s['records']} | {cell(s)} | "
                  f"{s['max_absolute_memory_error'] * 100:.1f} % | {cell(other) if other else '-'} |")
    named = {f["framework"] for f in frameworks}
    for framework in ("megatron-core", "megatron-bridge", "torchtitan", "deepspeed", "composer"):
        if framework not in named:
            print(f"| **{framework}** | - | 0 | no record publishes memory | - | - |")

if __name__ == "__main__":
    main()
