// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/time_scales.h"

namespace stratex::megatron {

// One transformer layer, one micro-batch, on one GPU (seconds, bytes).
struct LayerCost {
    double forward_compute_s = 0; // GEMMs, flash attention, memory-bound ops, kernel launches
    double forward_comm_s = 0; // TP all-reduce / SP gather+scatter, exposed CP exchange, EP all-to-all
    double backward_compute_s = 0; // the gradients of the above (2x GEMM FLOPs; attention: docs/kernels.md §4)
    double backward_comm_s = 0;
    double recompute_s = 0; // extra forward work done in backward (selective or full recompute)
    double recompute_ep_comm_s = 0; // the expert all-to-alls of a recomputed MoE module
    double activation_bytes = 0; // kept from forward to backward without full recompute
    double transient_bytes = 0; // selective recompute's rebuilt activations, during this layer's backward
    double input_bytes = 0; // the layer's input: all a fully recomputed layer keeps

    // forward_comm_s and backward_comm_s by dimension.
    // The exposed part: all of it, or with tp_comm_overlap what the pipelined GEMMs leave.
    double tp_forward_comm_s = 0;
    double tp_backward_comm_s = 0;
    double ep_comm_s = 0; // each pass
    double cp_forward_comm_s = 0;
    double cp_backward_comm_s = 0;

    double forwardS() const { return forward_compute_s + forward_comm_s; }
    double backwardS() const { return backward_compute_s + backward_comm_s + recompute_s + recompute_ep_comm_s; }
    // The same with each component scaled.
    double forwardS(const TimeScales& k) const
    {
        return k.compute * forward_compute_s + k.tp * tp_forward_comm_s + k.cp * cp_forward_comm_s + k.ep * ep_comm_s;
    }
    double backwardS(const TimeScales& k) const
    {
        return k.compute * (backward_compute_s + recompute_s) + k.tp * tp_backward_comm_s + k.cp * cp_backward_comm_s
            + k.ep * (ep_comm_s + recompute_ep_comm_s);
    }
};

// The norms Megatron's "layernorm" recompute module rebuilds in one layer: those that are their
// own modules in Megatron-Core's Transformer Engine layer spec (gpt_layer_specs.py, d98e8a64) —
// the input norm before MLA's down projections (otherwise fused into linear_qkv) and a MoE layer's
// pre-MLP norm (a dense MLP fuses it into fc1). 0, 1 or 2.
int layernormRecomputeNorms(bool mla, bool moeLayer);

// Per-operation costs of a decoder layer (dense or MoE MLP) under the strategy's TP, SP, CP,
// EP/ETP and precision. Activation bytes follow Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", §4) term by term, generalised to grouped-query
// attention and gated MLPs, with flash attention (no s^2 tensors kept); dropout masks only for
// GPT-style models (plain MLP), which train with dropout.
LayerCost layerCost(const model::ModelDescription& model, const ParallelStrategy& strategy,
    const hardware::HardwareModel& hardware, bool moeLayer, bool recomputed);

} // namespace stratex::megatron
