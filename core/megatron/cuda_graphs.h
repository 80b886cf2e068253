// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

// CUDA graphs in training: parts of each step captured once and replayed with one launch, so the
// host no longer issues their kernels one by one (docs/kernels.md §7, "CUDA graphs"). What a plan
// captures is the user's choice (strategy key "cuda_graphs", setting --cuda-graphs), not searched.

namespace stratex::megatron {

enum class CudaGraphs {
    None, // eager: the host issues every kernel
    // Megatron-Core's per-layer graphs (--cuda-graph-impl transformer_engine --cuda-graph-modules
    // ..., Megatron-LM arguments.py @ d98e8a64; Megatron-Bridge cuda_graph_impl / cuda_graph_scope):
    Attention, // attn: TransformerLayer._forward_attention()
    MoeRouter, // moe_router moe_preprocess: a MoE layer's MLP side up to the router and the dispatcher's preprocess
    AttentionMoeRouter, // attn moe_router moe_preprocess: the Megatron-Core MoE README's "Enable CUDA Graphs"
    Layer, // an empty module list: the whole transformer layer (dense layers; a dropless MoE layer has dynamic shapes)
    // The forward and backward of every micro-batch as one graph: Megatron-Core --cuda-graph-impl
    // full_iteration (megatron/core/full_cuda_graph.py); torchtitan's Trainer since #3559 (2026-08,
    // trainer.py wrap_with_cuda_graph, off with training.disable_cuda_graphs).
    FullIteration,
};

// "none", "attn", "moe-router", "attn-moe-router", "layer", "full-iteration"
std::string_view cudaGraphsName(CudaGraphs value);
std::optional<CudaGraphs> parseCudaGraphs(std::string_view name);
std::string cudaGraphsChoices(); // for messages

// Megatron's --cuda-graph-modules for a per-layer choice ("attn moe_router moe_preprocess"; "" for
// Layer, whose list is empty, and for None and FullIteration, which write none).
std::string megatronCudaGraphModules(CudaGraphs value);

// The host operations of one layer's pass by region, as the cost model counts them
// (host_overhead.h layerForwardKernels, moe_kernels.h kMoeLayerHostOps): the attention block, a
// MoE layer's router and dispatcher preprocess, and the rest (the MLP or the experts, the
// dispatch and the combine).
struct LayerHostOps {
    int attention = 0;
    int router = 0;
    int preprocess = 0;
    int rest = 0;
    int total() const { return attention + router + preprocess + rest; }
};

// The operations the host still issues for that pass under `graphs`: a captured region's
// operations become one replay (TE's make_graphed_callables runs a captured region's forward
// graph, and its backward graph, through one autograd function: one host operation each way);
// under FullIteration none per layer (the step's one launch is in the iteration's fixed host
// time). `moeLayer`: moe_router and moe_preprocess capture only MoE layers; Layer captures a
// whole dense layer (a MoE layer keeps its MLP side eager: strategyProblems refuses Layer for a
// MoE model).
int issuedHostOps(CudaGraphs graphs, const LayerHostOps& ops, bool moeLayer);

} // namespace stratex::megatron
