// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/common/progress.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/plan_evidence.h"

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
    // With ZeRO >= 1 also shard inside a node or NVLink domain and replicate across them (HSDP,
    // hsdp.h), where the framework has it.
    bool hsdp = true;
    std::vector<int> zero_stages { 0, 1, 2, 3 };
    std::vector<Recompute> recomputes { Recompute::None, Recompute::Selective, Recompute::Full };
    Precision precision = Precision::Bf16;
    bool flash_attention = true;
    // TP communication pipelined with the GEMMs (Megatron-Core --tp-comm-overlap, Megatron-Bridge
    // tp_comm_overlap, torchtitan AsyncTP) on every candidate whose framework and layout allow it
    // (tpCommOverlapProblem); off: on none, as before the setting existed.
    bool tp_comm_overlap = false;
    Framework framework = Framework::MegatronCore; // every candidate's (what it keeps in memory)
    StateDtype main_grads_dtype = StateDtype::Fp32; // every candidate's
    StateDtype optimizer_state_dtype = StateDtype::Fp32;
    // Every candidate's attention kernel (docs/kernels.md §6): the user's, not searched.
    hardware::AttentionKernel attention_kernel = hardware::AttentionKernel::Default;
    // Every candidate's torch.compile choice (docs/kernels.md, "Eager and compiled blocks"): the
    // user's, not searched.
    Compile compile = Compile::Default;
    // Every candidate's CUDA graphs (docs/kernels.md §7, "CUDA graphs"): the user's, not searched;
    // a candidate its framework or model cannot capture so is skipped (cudaGraphsProblem).
    CudaGraphs cuda_graphs = CudaGraphs::None;
    // Every FP8 candidate's recipe (docs/kernels.md §8): the user's, not searched; Default is the
    // framework's (resolvedFp8Recipe).
    Fp8Recipe fp8_recipe = Fp8Recipe::Default;
    // Only what Megatron-LM's main branch had by the end of this year (megatron_releases.h), for
    // Megatron-Core and Megatron-Bridge plans; 0: today's.
    int features_year = 0;
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
    // What measured runs cover. With it, every plan carries its evidence and an extrapolated plan
    // is ranked by its time raised by kExtrapolationUncertainty (docs/evidence.md §2);
    // resolveStratexSearch sets the bundled reference runs' coverage.
    std::optional<EvidenceCoverage> coverage;
    // The sampled threshold (strategy_search.cpp; docs/search-speed.md): every `stride`-th
    // candidate is costed and simulated first, and a candidate whose pipeline alone is slower
    // than the plans found there is not costed further. Only in spaces of `min_candidates` or
    // more, where it pays for the sample; the plans are the same either way (tests lower both to
    // check that on spaces small enough to rank exhaustively).
    struct Sampling {
        std::size_t stride = 127; // prime: the sample does not fall on one ZeRO stage or recompute choice
        std::size_t min_candidates = std::size_t(1) << 17;
    } sampling;
};

struct StrategySearchStats {
    long long enumerated = 0; // candidate strategies built from the space
    long long refused = 0; // Megatron would not start them (strategyProblems)
    // Left at their pipeline bound: it alone is slower than a threshold that plans of a sample of
    // the space set (strategy_search.cpp, the sampled threshold), so their memory is not costed.
    long long pruned = 0;
    long long over_memory = 0;
    long long bounded = 0; // costed without simulating the pipeline
    long long simulated = 0; // costed with the simulator (the rest were bounded out)
};

struct StrategySearchResult {
    // Fastest first (by rankingTimeMs with a coverage), at most `top`, every one fitting in memory.
    // Twins (plans predicted equal to the ms and the MB, with the same evidence) are one entry: the
    // first of them in the ranking, the others in `twins`.
    std::vector<Estimate> best;
    std::vector<std::vector<ParallelStrategy>> twins; // per plan of best, ranking order
    std::vector<PlanEvidence> evidence; // per plan of best; empty notes without a coverage
    // When nothing fits: the candidate that needs the least memory, to say how far off the
    // cluster is.
    std::optional<Estimate> least_memory;
    StrategySearchStats stats;
};

// Every strategy of the space for the request's model, cluster and global batch, ranked by
// iteration time. Exact for the top plans: candidates are first costed with a lower bound of their
// pipeline makespan, and simulated in bound order until no bound can beat the last kept plan; in a
// large space, a candidate whose pipeline bound alone is slower than plans of a sample of the space
// is not costed further (StrategySearchRequest::sampling).
// Deterministic (ties broken by the strategy's fields) whatever the thread count. Reports
// progress and throws Cancelled when asked to stop; throws Error for an unusable request.
StrategySearchResult searchStrategies(const StrategySearchRequest& request, ProgressSink& progress);

// What sets a twin apart from the plan it is shown with: the fields that differ, in notation()'s
// words, always named ("cp4 mbs2", "cp1" where notation() would leave cp 1 out).
std::string twinDifference(const ParallelStrategy& plan, const ParallelStrategy& twin);
// "also: cp4 mbs2, cp8 mbs4 and 3 more" (the first `shown` twins), "" without twins: how both front
// ends show a plan's twins in one line.
std::string twinsLine(const ParallelStrategy& plan, const std::vector<ParallelStrategy>& twins, std::size_t shown = 4);

// The candidates of the space before any costing (for tests and the work estimate).
std::vector<ParallelStrategy> enumerateStrategies(const StrategySearchRequest& request);

} // namespace stratex::megatron
