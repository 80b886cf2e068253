// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Evidence on a plan: whether its dimensions lie inside what measured runs cover (issue 22,
// item 5). The model is checked on the reference runs (resources/reference-runs); a plan that
// goes where none of them went (ZeRO-3 over 2,048 ranks, TP 16, a 0.1 B model) is extrapolated,
// and the search ranks it with that uncertainty (docs/evidence.md).

#include <array>
#include <string>
#include <vector>

#include "core/hardware/cluster_description.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// What a set of measured runs covers, per dimension: the largest degree of each parallelism, the
// largest data-parallel degree per ZeRO stage, and the ranges of world size, model size and
// sequence length; which kinds of model (dense, MoE) and GPU families were measured.
struct EvidenceCoverage {
    int runs = 0;
    int max_tp = 0;
    int max_pp = 0;
    int max_cp = 0;
    int max_ep = 0;
    std::array<int, 4> max_dp_by_zero {}; // 0: no run uses that ZeRO stage
    // The largest CP degree per exchange (indexed by CpCommType: p2p ring, a2a Ulysses, all_gather,
    // a2a+p2p hierarchical); 0: no run exchanges that way. Each exchange is its own mechanism in the
    // model (core/megatron/cp_comm.h): a degree measured with the ring says nothing of Ulysses.
    std::array<int, 4> max_cp_by_comm {};
    // The pipeline schedules measured with pp > 1 (indexed by PipelineSchedule: 1F1B, interleaved,
    // ZB-H1): the bubble and the in-flight memory are the schedule's own.
    std::array<bool, 3> schedules {};
    // HSDP (dp_shard, docs/hsdp.md): the most replicas of a shard group a run used; 0: no run
    // shards inside a group and replicates across groups.
    int max_hsdp_replicas = 0;
    int min_world = 0;
    int max_world = 0;
    double min_params_b = 0; // total parameters, billions
    double max_params_b = 0;
    int min_seq_length = 0;
    int max_seq_length = 0;
    bool dense = false;
    bool moe = false;
    std::vector<std::string> gpu_families; // hardware::presetFamily names, sorted

    bool operator==(const EvidenceCoverage&) const = default;
};

// Adds one measured run to `coverage`.
void addToCoverage(EvidenceCoverage& coverage, const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const ParallelStrategy& strategy);

// The coverage of the bundled reference runs (resources/reference-runs), as of the records in the
// repository; tests/core/megatron/tst_plan_evidence recomputes it from the records and fails when a
// record changes it, printing the new values to paste here.
const EvidenceCoverage& bundledCoverage();

// How far a plan is from the evidence: one note per dimension outside the coverage.
struct PlanEvidence {
    bool extrapolated = false;
    std::vector<std::string> notes; // e.g. "ZeRO-3 across 2,048 ranks: no reference run uses ZeRO-3 beyond 128"

    bool operator==(const PlanEvidence&) const = default;
};

PlanEvidence planEvidence(const EvidenceCoverage& coverage, const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const ParallelStrategy& strategy);

// planEvidence for many strategies of one model and cluster: what depends on them alone (model
// size, sequence length, MoE, world size, GPU) is checked once, so that the search can ask every
// candidate cheaply.
class EvidenceCheck {
public:
    EvidenceCheck(const EvidenceCoverage& coverage, const model::ModelDescription& model,
        const hardware::ClusterDescription& cluster);
    bool extrapolated(const ParallelStrategy& strategy) const;
    PlanEvidence evidence(const ParallelStrategy& strategy) const;

private:
    EvidenceCoverage m_coverage;
    bool m_moe = false;
    std::vector<std::string> m_sharedNotes; // the model's and the cluster's
};

// The uncertainty an extrapolated plan is ranked with: the search orders plans by
// rankingTimeMs(), the iteration time of an extrapolated plan raised by this fraction, so that a
// covered plan within it comes first (docs/evidence.md §2).
inline constexpr double kExtrapolationUncertainty = 0.10;
inline double rankingTimeMs(double iterationMs, bool extrapolated)
{
    return extrapolated ? iterationMs * (1 + kExtrapolationUncertainty) : iterationMs;
}

// "2,048": thousands separated, as the notes print counts.
std::string groupedCount(long long value);

} // namespace stratex::megatron
