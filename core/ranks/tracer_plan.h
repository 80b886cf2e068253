// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/ranks/batch_config.h"
#include "core/ranks/rank_grid.h"

namespace stratex::ranks {

// Which ranks a fake-rank workload tracer must run (docs/megatron-ranks.md §3.3).
enum class TraceSelection {
    Dense, // one rank per pipeline stage: tp = cp = dp = 0
    Moe, // one rank per (pipeline stage, expert-parallel rank): etp = edp = 0
};

std::vector<int> selectTraceRanks(const RankGrid& grid, TraceSelection selection);

// Everything of a tracer run that is not in the "WORLD_SIZE PP TP" line.
struct TracerSettings {
    std::string model = "485"; // as in the seed tracer's log directories
    int cp = 1;
    int ep = 1;
    int etp = 0;
    std::string order = kDefaultOrder;
    int gpusPerNode = 8;
    TraceSelection selection = TraceSelection::Dense;
    int microBatchSize = 1;
    int microBatches = 0; // 0: derived from globalBatch, or 1
    int globalBatch = 0; // 0: microBatches * microBatchSize * DP
};

// The plan for one batch config: valid with its ranks, or invalid with the reason.
struct TraceConfigPlan {
    int index = 0; // 1-based position in the list ("Config<i>")
    BatchConfig input;
    bool valid = false;
    std::string error;
    int dp = 0;
    int microBatches = 0;
    int globalBatch = 0;
    std::vector<int> ranks;
    int originalRanks = 0;
    double savingPercent = 0; // rounded to one decimal
    std::string logDir;
};

// SIM_GPT_<model>_Config<i>_WS<W>_PP<pp>_TP<tp>_DP<dp>_nMICROB<n>_MICROB_SIZE<mbs>_GLOBAL_BATCH<gbs>
std::string traceLogDirName(const std::string& model, int index, int world, int pp, int tp, int dp, int microBatches,
    int microBatchSize, int globalBatch);

TraceConfigPlan planTraceConfig(int index, const BatchConfig& input, const TracerSettings& settings);

// Plans every config; an empty list falls back to the default config, as the seed tracer does.
// Reports progress per config and throws Cancelled when asked to stop. One loop for `trace-ranks`
// and the Ranks page.
std::vector<TraceConfigPlan> planTracer(
    const std::vector<BatchConfig>& configs, const TracerSettings& settings, ProgressSink& progress);
std::vector<TraceConfigPlan> planTracer(const std::vector<BatchConfig>& configs, const TracerSettings& settings);

// What the plans save: the valid configs, the ranks traced against every rank of those configs.
struct TracerSummary {
    int valid = 0;
    long long selected_ranks = 0;
    long long original_ranks = 0;
    double saving_percent = 0; // of the runs, 0 without a valid config
};
TracerSummary summarizeTracer(const std::vector<TraceConfigPlan>& plans);

} // namespace stratex::ranks
