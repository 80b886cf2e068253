// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Ranking of measured layouts (issue 22, "Done when": the measured-best strategy is the top pick
// or within 1 % of it). Among the measured runs of one setting, which layout measured fastest, and
// does the cost model rank it first? Each run is predicted as `reference` predicts it
// (compareWithRun with the presets of its GPU, efficiencyFor); nothing here costs a plan another
// way. docs/evidence.md, "Ranking of measured layouts".

#include <optional>
#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/plan_evidence.h"
#include "core/model/model_description.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

// What two measured runs share to be "the same setting": the problem a user brings to the search.
// - release: the publication and its title (ReferenceRun::release). One publication measures with
//   one software release on one machine room; runs of different releases (torchtitan 2024-12 and
//   2025-06, NeMo 24.07 and Megatron-Bridge 25.11, the Megatron-Bridge archive's 25.11 and 26.04
//   containers, which share one page) are not compared, as a release's own speed-ups are not a
//   layout's.
// - framework and te_version: the software itself (Transformer Engine release where a record
//   states it), for the same reason.
// - model: the whole shape (ModelDescription, its name cleared), sequence length included.
// - gpu and gpus: the GPU preset and the GPU count.
// - global_batch_tokens: global batch size x sequence length (the work of one iteration).
// - precision: only with RankingOptions::precision_is_setting. By default bf16 or fp8 is a choice
//   the user makes, like the layout, torch.compile, the attention kernel, TP overlap, recompute
//   and the MoE dispatcher, which all vary inside a setting: they are what the ranking is about.
struct SettingKey {
    std::string release;
    megatron::Framework framework = megatron::Framework::MegatronCore;
    int te_version = 0;
    model::ModelDescription model;
    std::string gpu;
    int gpus = 0;
    long long global_batch_tokens = 0;
    std::optional<megatron::Precision> precision;

    bool operator==(const SettingKey&) const = default;
};

struct RankingOptions {
    bool precision_is_setting = false; // see SettingKey
    double tolerance = 0.01; // the bar: the measured best predicted within 1 % of the predicted best
    // Also search the measured best's setting (search_claims' search, claimSpace of that run) and
    // report the pick against the measured best. Off by default: a search per group.
    bool search = false;
    int threads = 0; // per search; 0: all hardware threads
};

SettingKey settingKey(const ReferenceRun& run, const RankingOptions& options);

// One measured run of a group, with its prediction.
struct RankedRun {
    const ReferenceRun* run = nullptr;
    double measured_s = 0;
    double predicted_s = 0;
    bool predicted_oom = false; // the model says it does not fit (the search would refuse it)
    // Competition ranks ("1, 1, 3"): runs tied in time (within a relative 1e-9) share the better rank.
    int measured_rank = 0; // 1: fastest measured
    int predicted_rank = 0; // 1: fastest predicted
};

// The search's pick for the measured best's setting (RankingOptions::search).
struct RankingSearch {
    std::optional<megatron::Estimate> pick; // empty: nothing fits
    megatron::PlanEvidence evidence;
    double claim = 0; // measured best / pick - 1, as search_claims' claim
};

struct MeasuredRanking {
    SettingKey setting;
    std::string model_name; // the first run's model name, for titles
    int seq_length = 0;
    // The setting's runs the model could cost, fastest measured first; ties keep the runs' order.
    std::vector<RankedRun> runs;
    // Timed runs of the setting the model cannot cost: "id: first problem", left out of the ranking.
    std::vector<std::string> uncosted;
    // Indices into runs, fastest predicted first.
    std::vector<int> predicted_order;

    // The verdicts, meaningful when ranked() (two or more costed runs).
    // The measured best, an index into runs: of the runs tied at the fastest measured time (a
    // source's table may print two layouts at one time), the one the model predicts fastest.
    int measured_best = 0;
    int measured_best_ties = 1; // runs at the fastest measured time
    bool best_predicted_first = false; // the measured best is the predicted best
    bool best_within_tolerance = false; // or predicted within options.tolerance of the predicted best
    bool best_predicted_oom = false; // the measured best does not fit by the model's memory
    double predicted_gap = 0; // predicted time of the measured best / the predicted best's - 1 (>= 0)
    double measured_loss = 0; // measured time of the predicted best / the measured best's - 1 (>= 0)
    int pairs = 0; // n (n - 1) / 2
    int concordant = 0; // pairs the model orders as measured
    int discordant = 0; // pairs it orders the other way (ties in either count in neither)
    double kendall_tau = 0; // (concordant - discordant) / pairs (tau-a)
    double pairwise_agreement = 0; // concordant / pairs
    std::optional<RankingSearch> search;

    bool ranked() const { return runs.size() >= 2; }
};

// Orders ranking.runs by measured_s and predicted_s (they alone: run may be null) and sets the ranks
// and the verdicts. What measuredRankings does to each group once its runs are predicted.
void rankRuns(MeasuredRanking& ranking, const RankingOptions& options);

// Every setting with two or more timed runs (measured_time, measured_iteration_s > 0), in the
// order of their first run in `runs`. Throws Cancelled when asked to stop.
std::vector<MeasuredRanking> measuredRankings(
    const std::vector<ReferenceRun>& runs, const RankingOptions& options, ProgressSink& progress);

// The verdicts over all ranked groups.
struct RankingTotals {
    int groups = 0; // ranked groups
    int best_first = 0;
    int best_within_tolerance = 0; // includes best_first
    int pairs = 0;
    int concordant = 0;
    int discordant = 0;
    double pairwise_agreement = 0; // concordant / pairs over all groups
};

RankingTotals rankingTotals(const std::vector<MeasuredRanking>& rankings);

} // namespace stratex::runs
