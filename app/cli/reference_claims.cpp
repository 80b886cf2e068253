// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/reference_claims.h"

#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"

namespace stratex::cli {

namespace {

std::string seconds(double value) { return fixed(value, 3) + " s"; }

// How a run's layout was chosen, where it was not for speed (reference_run.h LayoutPurpose).
std::string fixedLayoutText(runs::LayoutPurpose purpose)
{
    switch (purpose) {
    case runs::LayoutPurpose::Demonstration:
        return "a demonstration (its layout held fixed to show a feature), ";
    case runs::LayoutPurpose::Ablation:
        return "an ablation baseline (without a technique its source measures beside it), ";
    case runs::LayoutPurpose::Throughput:
        break;
    }
    return {};
}

std::string largestText(const runs::ClaimTally& tally)
{
    return tally.largest ? " (largest " + signedPercent(tally.largest->claim) + ", " + tally.largest->run->id + ")" : "";
}

nlohmann::ordered_json tallyJson(const runs::ClaimTally& tally)
{
    nlohmann::ordered_json out = { { "runs", tally.runs }, { "claiming_over_15_percent", tally.over_claim_bar },
        { "layouts_within_10_percent", tally.layouts_within_bar } };
    if (tally.largest) {
        out["largest_claim"] = tally.largest->claim;
        out["largest_claim_run"] = tally.largest->run->id;
    }
    return out;
}

} // namespace

int printSearchClaims(const std::vector<runs::ReferenceRun>& runs, const runs::SearchClaimOptions& options, bool json)
{
    std::vector<runs::SearchClaim> claims;
    {
        InterruptProgress progress;
        claims = runs::searchClaims(runs, options, progress);
        progress.finish();
    }
    const runs::ClaimSummary summary = runs::summarizeClaims(claims);
    if (json) {
        nlohmann::ordered_json out;
        out["min_gpus"] = options.min_gpus;
        out["runs"] = nlohmann::ordered_json::array();
        for (const runs::SearchClaim& c : claims) {
            nlohmann::ordered_json row = { { "id", c.run->id }, { "gpus", c.run->cluster.worldSize() },
                { "gpu", c.run->cluster.gpu.name }, { "layout", c.run->strategy.notation() },
                { "measured_iteration_s", c.measured_s }, { "layout_predicted_iteration_s", c.expert_predicted_s },
                { "layout_throughput_error", c.expert_error },
                { "layout_purpose", std::string(runs::layoutPurposeName(c.run->layout_purpose)) } };
            if (c.features_year > 0)
                row["megatron_features_year"] = c.features_year;
            if (c.pick) {
                row["pick"] = c.pick->strategy.notation();
                row["pick_iteration_s"] = c.pick->iteration_ms / 1e3;
                row["claim"] = c.claim;
                row["pick_extrapolated"] = c.pick_evidence.extrapolated;
                row["pick_memory_tight"] = c.pick_memory_tight;
                row["pick_evidence_notes"] = c.pick_evidence.notes;
            }
            out["runs"].push_back(row);
        }
        out["runs_claiming_over_15_percent"] = summary.all.over_claim_bar;
        out["layouts_within_10_percent"] = summary.all.layouts_within_bar;
        out["layouts_chosen_for_throughput"] = tallyJson(summary.tuned);
        out["demonstrations_and_ablations"] = tallyJson(summary.fixed_layouts);
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    std::string text = "What the search claims over measured runs on at least " + std::to_string(options.min_gpus)
        + " GPUs (each searched on its model, cluster, global batch and its team's stated precision, framework, "
          "attention kernel, compile and TP overlap, and for Megatron runs only the Megatron-LM features of the "
          "publication's year; claim = measured / pick - 1):\n";
    for (const runs::SearchClaim& c : claims) {
        text += c.run->id + ": " + std::to_string(c.run->cluster.worldSize()) + " x " + c.run->cluster.gpu.name + ", "
            + fixedLayoutText(c.run->layout_purpose) + "measured " + seconds(c.measured_s) + " with "
            + c.run->strategy.notation() + ", that layout predicted " + seconds(c.expert_predicted_s)
            + " (throughput error " + signedPercent(c.expert_error) + ")\n";
        if (!c.pick) {
            text += "  no plan fits\n";
            continue;
        }
        text += "  pick" + (c.features_year > 0 ? " (Megatron-LM of " + std::to_string(c.features_year) + ")" : std::string())
            + " " + c.pick->strategy.notation() + ": " + seconds(c.pick->iteration_ms / 1e3) + ", claims "
            + signedPercent(c.claim) + (c.claim > runs::kClaimBar ? " (over +15 %)" : "")
            + (c.pick_evidence.extrapolated ? ", extrapolated" : "")
            + (c.pick_memory_tight ? ", memory tight" : "") + "\n";
    }
    text += std::to_string(summary.all.runs) + " runs: " + std::to_string(summary.all.over_claim_bar)
        + " picks claim over +15 %" + largestText(summary.all) + "; "
        + std::to_string(summary.all.layouts_within_bar) + " of the runs' own layouts predicted within 10 %\n";
    text += "  layouts chosen for throughput: " + std::to_string(summary.tuned.runs) + " runs, "
        + std::to_string(summary.tuned.over_claim_bar) + " picks claim over +15 %" + largestText(summary.tuned) + "; "
        + std::to_string(summary.tuned.layouts_within_bar) + " own layouts predicted within 10 %\n";
    text += "  demonstrations and ablations (layouts held fixed to show something else: a faster pick there is no "
            "claim over a tuned layout): "
        + std::to_string(summary.fixed_layouts.runs) + " runs, " + std::to_string(summary.fixed_layouts.over_claim_bar)
        + " picks over +15 %\n";
    printOut(text);
    return kExitOk;
}

} // namespace stratex::cli
