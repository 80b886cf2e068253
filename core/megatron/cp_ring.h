// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Ring context parallelism's K/V exchange, step by step, as Transformer Engine (Megatron-Core,
// NeMo, Megatron-Bridge) and PyTorch's context_parallel (torchtitan) run it
// (docs/collectives.md, "Ring context parallelism"). Internal to core/megatron.

#include "core/megatron/framework.h"

namespace stratex::megatron {

// One layer's ring: the transfers and the attention they hide under, on one rank.
struct CpRingInput {
    int cp = 1;
    Framework framework = Framework::MegatronCore;
    double forward_attention_s = 0; // the rank's flash-attention forward, all cp steps
    double backward_attention_s = 0; // its backward, all cp steps
    double kv_step_s = 0; // one K/V chunk (the rank's s/cp tokens) to the ring neighbour
    double kv_dkv_step_s = 0; // a K/V chunk and a dK/dV chunk of the same dtype in one batched send
    double kv_all_gather_s = 0; // every rank's K/V chunk gathered at once (PyTorch's ALL_GATHER rotater)
    double dkv_fp32_step_s = 0; // one dK/dV chunk in fp32 to the neighbour (PyTorch's dkv rotater)
    // torchtitan with the transformer blocks under torch.compile (elementwiseForm's Fused): the
    // ring is traced, and a traced functional collective is waited for where it is issued
    // (docs/context-parallel.md, "torchtitan's ring under torch.compile").
    bool compiled = false;
};

struct CpRingExposure {
    double forward_s = 0;
    double backward_s = 0;
};

// What the ring adds to a layer's compute on one rank beyond its one attention kernel a pass:
// each of the cp steps launches its own attention kernel, merges its partial result into the
// rank's output (forward: output and softmax statistics; backward: dQ and dK/dV accumulated)
// and its send/recv (docs/collectives.md, "Ring context parallelism").
struct CpRingWork {
    int forward_kernels = 0;
    int backward_kernels = 0;
    double forward_bytes = 0; // memory-bound traffic of the merges
    double backward_bytes = 0;
};

// The width of the K (= V) a ring step carries, per token, given the layer's query width qWidth
// (heads x head_dim) and its key/value width kvWidth (GQA: kv heads x head_dim). Transformer
// Engine's ring sends K and V with their own kv heads; torchtitan calls SDPA on K and V after
// repeat_kv, and PyTorch's context_parallel rings what SDPA receives: every query head's copy
// (torchtitan 9dec370 torchtitan/models/llama/model.py; docs/context-parallel.md, "torchtitan's
// ring carries repeated K/V").
double ringKvWidth(Framework framework, double qWidth, double kvWidth);

// tokens: the rank's s/cp tokens of the micro-batch; qWidth, kvWidth: the rank's query (= output)
// and key (= value) widths.
CpRingWork ringCpWork(int cp, Framework framework, double tokens, double qWidth, double kvWidth);

// The exposed time of the ring's transfers: each hides under the one attention step it overlaps
// (load-balanced causal attention: cp steps of equal work, docs/collectives.md), what it does not
// cover stays on the critical path.
CpRingExposure ringCpExposure(const CpRingInput& in);

} // namespace stratex::megatron
