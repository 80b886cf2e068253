// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include "core/common/progress.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// Which strategies the stratex search tries: Megatron-LM's dimensions, every degree that divides
// (not only powers of two). A 0 limit means "as far as the model and cluster allow".
struct StrategySpace {
    int max_tp = 0; // 0: one node's GPUs (TP across nodes is never worth its all-reduces)
    int max_pp = 0; // 0: the layer count
    int max_cp = 0;
    int max_ep = 0;
    int max_vpp = 8; // model chunks per pipeline rank
    int max_micro_batch_size = 8;
    bool uneven_layouts = true; // also lighter first/last stages (--decoder-first/last-pipeline-num-layers)
    bool interleaved = true;
    bool zb_h1 = true;
    bool ulysses = true; // with cp > 1 also Megatron's --cp-comm-type a2a where the heads divide
    std::vector<int> zero_stages { 0, 1, 2, 3 };
    std::vector<Recompute> recomputes { Recompute::None, Recompute::Selective, Recompute::Full };
    Precision precision = Precision::Bf16;
    bool flash_attention = true;
    Framework framework = Framework::MegatronCore; // every candidate's (what it keeps in memory)
};

struct StrategySearchRequest {
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    hardware::Efficiency efficiency;
    int global_batch_size = 0;
    double memory_limit_mb = 0; // 0: the GPU's memory
    StrategySpace space;
    int top = 10; // plans kept, best first
    int threads = 0; // 0: all hardware threads
};

struct StrategySearchStats {
    long long enumerated = 0; // candidate strategies built from the space
    long long refused = 0; // Megatron would not start them (strategyProblems)
    long long over_memory = 0;
    long long bounded = 0; // costed without simulating the pipeline
    long long simulated = 0; // costed with the simulator (the rest were bounded out)
};

struct StrategySearchResult {
    std::vector<Estimate> best; // fastest first, at most `top`, every one fitting in memory
    // When nothing fits: the candidate that needs the least memory, to say how far off the
    // cluster is.
    std::optional<Estimate> least_memory;
    StrategySearchStats stats;
};

// Every strategy of the space for the request's model, cluster and global batch, ranked by
// iteration time. Exact for the top plans: candidates are first costed with a lower bound of their
// pipeline makespan, and simulated in bound order until no bound can beat the last kept plan.
// Deterministic (ties broken by the strategy's fields) whatever the thread count. Reports
// progress and throws Cancelled when asked to stop; throws Error for an unusable request.
StrategySearchResult searchStrategies(const StrategySearchRequest& request, ProgressSink& progress);

// The candidates of the space before any costing (for tests and the work estimate).
std::vector<ParallelStrategy> enumerateStrategies(const StrategySearchRequest& request);

} // namespace stratex::megatron
