#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prints docs/evidence.md §6's table (issue 22, "Done when": the measured-best strategy is the
top pick or within 1 % of it) from the CLI's own JSON.

    tools/measured-rankings-table.py build/release/bin/stratex-cli

Runs `reference --rankings --rankings-search --json` and prints one row per setting with two or
more measured runs: the runs in measured and in predicted order (seconds per iteration, named by
what follows the setting's common id prefix), where the measured best is predicted, Kendall's tau
and the search's claim over the measured best; then the totals."""
import json
import os
import subprocess
import sys


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else "build/release/bin/stratex-cli"
    report = json.loads(subprocess.run([cli, "reference", "--rankings", "--rankings-search", "--json"],
                                       check=True, capture_output=True, text=True).stdout)
    print("| setting | measured order (fastest first) | predicted order | measured best | "
          "tau (pairs as measured) | search pick claims |")
    print("|---|---|---|---|---:|---:|")
    for g in report["groups"]:
        runs = {r["id"]: r for r in g["runs"]}
        prefix = os.path.commonprefix(list(runs))
        prefix = prefix[:prefix.rfind("-") + 1]

        def name(run_id):
            return run_id[len(prefix):] or run_id

        measured = ", ".join(f"{name(r['id'])} {r['measured_iteration_s']:.2f}" for r in g["runs"])
        predicted = ", ".join(f"{name(i)} {runs[i]['predicted_iteration_s']:.2f}" for i in g["predicted_order"])
        if not g["ranked"]:
            print(f"| {prefix.rstrip('-')} | {measured} | {predicted} | not ranked | | |")
            continue
        best = "first" if g["best_predicted_first"] else f"{g['predicted_gap'] * 100:+.1f} % behind"
        if g["measured_best_ties"] > 1:
            best += f" (of a {g['measured_best_ties']}-way tie)"
        claim = f"{g['search_claim_over_measured_best'] * 100:+.1f} %" if "search_claim_over_measured_best" in g else ""
        setting = (f"{prefix.rstrip('-')}: {g['model']}, {g['gpus']} x {g['gpu']}, seq {g['seq_length']}, "
                   f"{g['global_batch_tokens']} tokens")
        print(f"| {setting} | {measured} | {predicted} | {best} | {g['kendall_tau']:.2f} "
              f"({g['concordant_pairs']}/{g['pairs']}) | {claim} |")
    print()
    print(f"{report['ranked_groups']} settings: the measured best predicted first in {report['best_predicted_first']}, "
          f"within 1 % in {report['best_within_tolerance']}; {report['concordant_pairs']} of {report['pairs']} pairs "
          f"ordered as measured, {report['discordant_pairs']} the other way.")


if __name__ == "__main__":
    main()
