// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The per-micro-batch cost of a pipeline's model chunks and of its two ends, from the layers'
// costs (layer_cost.h): what the estimate (estimate.cpp) simulates and stores. Internal to
// core/megatron.

#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/time_scales.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// One model chunk (a stage's share of layers under interleaving): per-micro-batch times and
// activation bytes, plus the weights it holds.
struct ChunkCost {
    int layers = 0;
    double forward_s = 0;
    double backward_s = 0;
    double activation_bytes = 0; // kept per micro-batch
    double transient_bytes = 0; // one recomputed layer's activations during its backward
    double dense_params = 0; // per GPU, before ZeRO sharding
    double expert_params = 0;
    double linear_params = 0; // the dense layers' linear weights (float8 under torchtitan)
    // CPU activation offload (offloadExposure): the saved activations kept on the host per
    // micro-batch instead of activation_bytes, and the copies' stall in forward_s + backward_s.
    int offloaded_layers = 0;
    double offloaded_bytes = 0;
    double offload_exposed_s = 0;
};

// Embedding lookup and, on the last chunk, final norm + LM head + vocab-parallel cross-entropy.
struct EndCosts {
    double embedding_forward_s = 0;
    double embedding_backward_s = 0;
    double head_forward_s = 0;
    double head_backward_s = 0;
    double logits_bytes = 0;
};

EndCosts endCosts(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw);

// One multi-token-prediction module's own work per micro-batch besides its decoder layer and its
// logits (model_description.h mtp_num_layers): two norms, the 2h -> h eh_proj and the final norm.
struct MtpProjectionCost {
    double forward_s = 0;
    double backward_s = 0;
    double activation_bytes = 0;
    double params = 0; // per GPU
};
MtpProjectionCost mtpProjectionCost(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw);

// The decoder layers' costs chunkCosts() reads, kept for the candidates of a search that differ
// only in fields layerCost() does not read: the pipeline's shape (pp, vpp, the layout), the data
// parallelism, the ZeRO stage, the schedule and the global batch (issue 22: speed). Valid for one
// model and one hardware model; a miss computes, so the costs never depend on the memo. (A change
// that makes layerCost() read one of those fields must take it out of layerCostKey().)
class LayerCostMemo {
public:
    struct Costs {
        LayerCost dense;
        LayerCost dense_recomputed;
        LayerCost moe; // zero without MoE
        LayerCost moe_recomputed;
    };
    const Costs& costs(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw);

private:
    struct Entry {
        bool used = false;
        ParallelStrategy key;
        Costs costs;
    };
    std::vector<Entry> m_entries; // direct-mapped by the key's hash
};

// The four layer costs of `s` (dense and MoE, with and without full recompute's rebuild).
LayerCostMemo::Costs layerCosts(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw);

// CPU activation offload (ParallelStrategy::cpu_offload_layers; docs/memory-model.md, "CPU
// activation offload"): the compute time the copies of `offloaded` of `layers` decoder layers'
// saved activations (bytesPerLayer each) add per micro-batch, over a host link of hostLinkGbPerS
// one way. Transformer Engine's cpu_offload.py (2.16, the one Megatron-Bridge 0.5 pins) copies on
// one side stream from the moment a tensor is saved; layer i's GPU copy is dropped, after the
// compute stream waits for its copy, when layer L - N + i starts, and it comes back from layer
// L - 1 - N + i's backward on: the copies stall compute only when all N take longer than the
// other L - 2 layers' forward (or backward).
struct OffloadExposure {
    double forward_s = 0;
    double backward_s = 0;
};
OffloadExposure offloadExposure(int layers, int offloaded, double bytesPerLayer, double forwardPerLayerS,
    double backwardPerLayerS, double hostLinkGbPerS);

// One entry per model chunk (chunk j of stage i at j * pp + i), `stageLayers` per stage. With a
// memo, the layer costs come from it.
std::vector<ChunkCost> chunkCosts(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, const std::vector<int>& stageLayers, const TimeScales& scales,
    LayerCostMemo* memo = nullptr);

} // namespace stratex::megatron
