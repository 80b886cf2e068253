#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prints the README's search-claims table (issue 22, "Done when") from the CLI's own JSON.

    tools/search-claims-table.py build/release/bin/stratex-cli [MIN_GPUS]

Runs `reference --search-claims --json --min-gpus MIN_GPUS` (default 512) and prints one row per
measured run: its layout, the error on it, the search's pick and the pick's claim over the
measured time (measured / pick - 1), the layout's purpose where it was not chosen for speed
(a demonstration or an ablation), then the count of picks claiming over +15 %, of all runs and of
the runs whose layout was chosen for throughput."""
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

    def run_name(r):
        purpose = r.get("layout_purpose", "throughput")
        return r["id"] if purpose == "throughput" else f"{r['id']} ({purpose})"

    over = 0
    for r in report["runs"]:
        if "pick" not in r:
            print(f"| {run_name(r)} | {r['gpus']} | `{r['layout']}` | {r['layout_throughput_error'] * 100:+.1f} % | "
                  "nothing fits | |")
            continue
        claim = r["claim"] * 100
        over += claim > 15
        mark = " (extrapolated)" if r["pick_extrapolated"] else ""
        print(f"| {run_name(r)} | {r['gpus']} | `{r['layout']}` | {r['layout_throughput_error'] * 100:+.1f} % | "
              f"`{r['pick']}`{mark} | {claim:+.1f} % |")
    print()
    print(f"{len(report['runs'])} runs, {over} picks claim over +15 %, "
          f"{report['layouts_within_10_percent']} measured layouts predicted within 10 %.")
    tuned = report["layouts_chosen_for_throughput"]
    print(f"Layouts chosen for throughput: {tuned['runs']} runs, {tuned['claiming_over_15_percent']} picks claim "
          f"over +15 %, {tuned['layouts_within_10_percent']} measured layouts predicted within 10 %.")


if __name__ == "__main__":
    main()
