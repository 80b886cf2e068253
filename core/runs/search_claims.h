// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the search claims over expert-tuned runs (issue 22, "Done when": on expert-tuned flagship
// runs, the searched pick claims at most +15 % over the measured run, and the experts' own layout
// is predicted within 10 %). For each measured run: the search on the run's model, cluster, global
// batch and the choices its team stated (precision, framework, attention kernel, compile, TP
// overlap, gradient and optimizer dtypes), its pick, and how much faster than the measured time the
// pick is predicted to be. docs/evidence.md §5.

#include <optional>
#include <vector>

#include "core/common/progress.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_evidence.h"
#include "core/megatron/strategy_search.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

struct SearchClaimOptions {
    int min_gpus = 512; // the runs that count as flagship: at least this many GPUs
    int threads = 0; // per search; 0: all hardware threads
};

struct SearchClaim {
    const ReferenceRun* run = nullptr;
    double measured_s = 0;
    double expert_predicted_s = 0; // the run's own layout, as `reference` costs it
    double expert_error = 0; // predicted / measured throughput - 1 on the run's own layout
    std::optional<megatron::Estimate> pick; // empty: nothing fits
    megatron::PlanEvidence pick_evidence;
    // measured_s / pick time - 1: how much faster than the experts the search says it is (> 0);
    // 0 without a pick.
    double claim = 0;
    // The Megatron-LM features' year the search was held to (megatron_releases.h); 0: today's.
    int features_year = 0;
    // The pick fits by less than the model's largest under-prediction of memory on its framework's
    // records (megatron::memoryMargin).
    bool pick_memory_tight = false;
};

// The bars: a pick claims at most this much over the measured run, and the experts' own
// layout is predicted within the second.
inline constexpr double kClaimBar = 0.15;
inline constexpr double kExpertLayoutBar = 0.10;

// The claims of one group of runs against the bars.
struct ClaimTally {
    int runs = 0;
    int over_claim_bar = 0; // picks claiming more than kClaimBar
    int layouts_within_bar = 0; // own layouts predicted within kExpertLayoutBar
    const SearchClaim* largest = nullptr; // the largest claim among the runs with a pick (into the claims summarized)
};

// Every claim, and apart the runs whose layout was chosen for speed (LayoutPurpose::Throughput,
// the "expert-tuned" runs) and the demonstrations and ablations, whose layouts were held
// fixed to show something else: a pick beating one of those is no claim over an expert.
struct ClaimSummary {
    ClaimTally all;
    ClaimTally tuned;
    ClaimTally fixed_layouts;
};

ClaimSummary summarizeClaims(const std::vector<SearchClaim>& claims);

// The space a run's search covers: the search's own dimensions, with the choices the run's team
// stated held to the run's (they are not what a search decides), and for Megatron-Core and
// Megatron-Bridge runs only the Megatron-LM features of the run's publication year.
megatron::StrategySpace claimSpace(const ReferenceRun& run);

// One claim per run with a measured time, on at least options.min_gpus GPUs, that the model can
// cost, in the runs' order. Throws Cancelled when asked to stop.
std::vector<SearchClaim> searchClaims(
    const std::vector<ReferenceRun>& runs, const SearchClaimOptions& options, ProgressSink& progress);

} // namespace stratex::runs
