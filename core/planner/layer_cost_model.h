// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one cost interface the micro-batch DP, the planner and the simulator input builder use
// (docs/dynapipe-planner.md §5): for a micro-batch shape, a tensor-parallel size and a recompute
// type, the per-layer forward/backward time and activation memory, and the parameter sizes.
// Implementations: DynapipeCostModel (profiled JSON grids); a Galvatron-profile adapter plugs in
// through the same interface.
//
// Units follow DynaPipe: times in ms per layer, memory in MB (1e6 bytes) per layer.

#include <limits>
#include <string>
#include <vector>

#include "core/planner/recompute_type.h"

namespace stratex::planner {

enum class ModelArchitecture { DecoderOnly, EncoderDecoder };

struct LayerCostQuery {
    int micro_batch_size = 1;
    int seqlen = 0; // encoder sequence length, or the sequence length of a decoder-only model
    int decoder_seqlen = 0; // encoder-decoder models only
    int tp = 1;
    RecomputeType recompute = RecomputeType::None;
};

// One transformer layer for one micro-batch. A value the model cannot provide (above the
// profiled range, at a point that ran out of memory during profiling) is +infinity: the shape is
// infeasible, never an exception.
struct LayerEstimate {
    static constexpr double kInfeasible = std::numeric_limits<double>::infinity();

    double forward_ms = kInfeasible;
    double backward_ms = kInfeasible;
    double stored_activation_mb = kInfeasible; // kept from forward to backward
    double peak_activation_mb = kInfeasible; // transient while the layer's forward runs

    bool timeFeasible() const;
    bool memoryFeasible() const;
    bool feasible() const { return timeFeasible() && memoryFeasible(); }
};

struct LayerCostEstimate {
    // Decoder-only models: every transformer layer. Encoder-decoder: each encoder layer.
    LayerEstimate encoder;
    // Encoder-decoder only: each decoder layer (all zero for decoder-only models).
    LayerEstimate decoder { 0, 0, 0, 0 };
    // LM head and loss, once per model (after the last encoder layer of a decoder-only model,
    // after the last decoder layer of an encoder-decoder model). No activation memory.
    double postprocess_forward_ms = LayerEstimate::kInfeasible;
    double postprocess_backward_ms = LayerEstimate::kInfeasible;

    bool feasible() const;
};

// fp16 parameter sizes (MB); optimizer state multiplies these (see planner_memory.h).
struct ModelParameterSizes {
    double embedding_param_mb = 0;
    double encoder_layer_param_mb = 0; // per layer (decoder-only models: per layer)
    double decoder_layer_param_mb = 0; // per layer, encoder-decoder models only
};

class LayerCostModel {
public:
    virtual ~LayerCostModel() = default;

    virtual std::string name() const = 0;
    virtual ModelArchitecture architecture() const = 0;
    bool isEncoderDecoder() const { return architecture() == ModelArchitecture::EncoderDecoder; }

    // The (tp, recompute) pairs the model can answer for.
    virtual bool supports(int tp, RecomputeType recompute) const = 0;
    virtual std::vector<int> tensorParallelSizes() const = 0;
    std::vector<RecomputeType> recomputeTypes(int tp) const;

    // Throws stratex::Error when (tp, recompute) is not supported; never throws for a shape.
    virtual LayerCostEstimate estimate(const LayerCostQuery& query) const = 0;
    virtual ModelParameterSizes parameterSizes(int tp, RecomputeType recompute) const = 0;

    // The model's hidden size, which sets the activation messages between pipeline stages
    // (tokens x micro-batch size x hidden x 2 bytes); 0 when the cost model does not say.
    virtual int hiddenSize() const { return 0; }
};

} // namespace stratex::planner
