#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prints the README's search-claims table (issue 22, "Done when") from the CLI's own JSON.

    tools/search-claims-table.py build/release/bin/stratex-cli [MIN_GPUS]

Runs `reference --search-claims --json --min-gpus MIN_GPUS` (default 512) and prints one row per
measured run: its layout, the error on it, the search's pick and the pick's claim over the
measured time (measured / pick - 1), then the count of picks claiming over +15 %."""
import json
import subprocess
import sys


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin/stratex-cli"
    min_gpus = sys.argv[2] if len(sys.argv) > 2 else "512"
    report = json.loads(subprocess.run([cli, "reference", "--search-claims", "--json", "--min-gpus", min_gpus],
                                       check=True, capture_output=True, text=True).stdout)
    print("| run | GPUs | measured layout | error on it | pick | claim |")
    print("|---|---:|---|---:|---|---:|")
    over = 0
    for r in report["runs"]:
        if "pick" not in r:
            print(f"| {r['id']} | {r['gpus']} | `{r['layout']}` | {r['layout_throughput_error'] * 100:+.1f} % | "
                  "nothing fits | |")
            continue
        claim = r["claim"] * 100
        over += claim > 15
        mark = " (extrapolated)" if r["pick_extrapolated"] else ""
        print(f"| {r['id']} | {r['gpus']} | `{r['layout']}` | {r['layout_throughput_error'] * 100:+.1f} % | "
              f"`{r['pick']}`{mark} | {claim:+.1f} % |")
    print()
    print(f"{len(report['runs'])} runs, {over} picks claim over +15 %, "
          f"{report['layouts_within_10_percent']} measured layouts predicted within 10 %.")


if __name__ == "__main__":
    main()
