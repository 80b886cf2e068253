// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// Megatron's asynchronous TP communication in a column-parallel linear's backward (QKV, fc1;
// docs/collectives.md, "TP backward overlap"). Megatron-LM since 2021-09-02 (3f652469, the
// default of --async-tensor-model-parallel-allreduce; unconditional in Megatron-Core, where the
// flag is deprecated and ColumnParallelLinear sets allreduce_dgrad itself, core_v0.8.0
// tensor_parallel/layers.py) and Transformer Engine's LayerNormLinear / Linear (v1.8
// module/layernorm_linear.py: "Overlap input AG with dgrad", "Overlap dgrad-RS/AR with wgrad")
// issue the collectives with async_op=True and wait only after the GEMM beside them:
// - with sequence parallelism, the re-gather of the layer's input (for the weight gradient) runs
//   under the data-gradient GEMM, and the input gradient's reduce-scatter under the
//   weight-gradient GEMM;
// - without it, the input gradient's all-reduce runs under the weight-gradient GEMM.
// The row-parallel linears' backward (proj, fc2) gathers its output gradient synchronously with
// sequence parallelism (_ReduceScatterToSequenceParallelRegion.backward) and has no collective
// without it: that stays exposed, as before.
struct ColumnLinearBackward {
    double dgrad_s = 0; // grad_output x W: the input gradient's GEMM
    double wgrad_s = 0; // grad_output^T x input: the weight gradient's GEMM
    double regather_s = 0; // sequence parallelism: the input's all-gather for wgrad; 0 without
    double grad_reduce_s = 0; // the input gradient's reduce-scatter (SP) or all-reduce (no SP)
};

// The part of the linear's collectives its GEMMs do not cover, plus the time the GEMMs lose to
// NCCL's CTAs while the covered part runs (`slowdown`: ncclComputeSlowdown, ctas / (SMs - ctas);
// docs/collectives.md, "SMs taken by NCCL").
double exposedAsyncTpBackwardS(const ColumnLinearBackward& linear, double slowdown);

// Whether the plan's framework runs Megatron's asynchronous TP backward: Megatron-Core and
// Megatron-Bridge with TP > 1 and without TP communication overlap (which pipelines the same
// collectives chunk by chunk instead, layer_cost.cpp exposedPipelinedTpS), unless the strategy
// says the run's Megatron predates it (tp_async_backward false: Narayanan et al. SC21).
bool runsAsyncTpBackward(const ParallelStrategy& s);

} // namespace stratex::megatron
