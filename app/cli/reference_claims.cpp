// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/reference_claims.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"

namespace stratex::cli {

namespace {

std::string seconds(double value) { return fixed(value, 3) + " s"; }

// The bars: a pick claims at most this much over the measured run, and the experts' own
// layout is predicted within the second.
constexpr double kClaimBar = 0.15;
constexpr double kExpertBar = 0.10;

} // namespace

int printSearchClaims(const std::vector<runs::ReferenceRun>& runs, const runs::SearchClaimOptions& options, bool json)
{
    std::vector<runs::SearchClaim> claims;
    {
        InterruptProgress progress;
        claims = runs::searchClaims(runs, options, progress);
        progress.finish();
    }
    int overBar = 0;
    int expertWithin = 0;
    double largest = 0;
    std::string largestId;
    for (const runs::SearchClaim& c : claims) {
        overBar += c.claim > kClaimBar ? 1 : 0;
        expertWithin += std::abs(c.expert_error) <= kExpertBar ? 1 : 0;
        if (c.pick && (largestId.empty() || c.claim > largest)) {
            largest = c.claim;
            largestId = c.run->id;
        }
    }
    if (json) {
        nlohmann::ordered_json out;
        out["min_gpus"] = options.min_gpus;
        out["runs"] = nlohmann::ordered_json::array();
        for (const runs::SearchClaim& c : claims) {
            nlohmann::ordered_json row = { { "id", c.run->id }, { "gpus", c.run->cluster.worldSize() },
                { "gpu", c.run->cluster.gpu.name }, { "layout", c.run->strategy.notation() },
                { "measured_iteration_s", c.measured_s }, { "layout_predicted_iteration_s", c.expert_predicted_s },
                { "layout_throughput_error", c.expert_error } };
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
        out["runs_claiming_over_15_percent"] = overBar;
        out["layouts_within_10_percent"] = expertWithin;
        printOut(jsonText(out, 2, "the JSON report") + "\n");
        return kExitOk;
    }
    std::string text = "What the search claims over measured runs on at least " + std::to_string(options.min_gpus)
        + " GPUs (each searched on its model, cluster, global batch and its team's stated precision, framework, "
          "attention kernel, compile and TP overlap, and for Megatron runs only the Megatron-LM features of the "
          "publication's year; claim = measured / pick - 1):\n";
    for (const runs::SearchClaim& c : claims) {
        text += c.run->id + ": " + std::to_string(c.run->cluster.worldSize()) + " x " + c.run->cluster.gpu.name
            + ", measured " + seconds(c.measured_s) + " with " + c.run->strategy.notation() + ", that layout predicted "
            + seconds(c.expert_predicted_s) + " (throughput error " + signedPercent(c.expert_error) + ")\n";
        if (!c.pick) {
            text += "  no plan fits\n";
            continue;
        }
        text += "  pick" + (c.features_year > 0 ? " (Megatron-LM of " + std::to_string(c.features_year) + ")" : std::string())
            + " " + c.pick->strategy.notation() + ": " + seconds(c.pick->iteration_ms / 1e3) + ", claims "
            + signedPercent(c.claim) + (c.claim > kClaimBar ? " (over +15 %)" : "")
            + (c.pick_evidence.extrapolated ? ", extrapolated" : "")
            + (c.pick_memory_tight ? ", memory tight" : "") + "\n";
    }
    text += std::to_string(claims.size()) + " runs: " + std::to_string(overBar) + " picks claim over +15 %"
        + (largestId.empty() ? std::string() : " (largest " + signedPercent(largest) + ", " + largestId + ")") + "; "
        + std::to_string(expertWithin) + " of the runs' own layouts predicted within 10 %\n";
    printOut(text);
    return kExitOk;
}

} // namespace stratex::cli
