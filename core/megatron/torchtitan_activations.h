// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// What torchtitan's activation checkpointing keeps for one dense transformer block, one
// micro-batch, on one GPU (bytes; docs/memory-model.md, "torchtitan's activation checkpointing").
// Read in pytorch/torchtitan @ 9dec370 (the version of the bundled torchtitan benchmark records),
// torchtitan/parallelisms/parallelize_llama.py `_apply_ac_to_transformer_block`, and its llama
// model torchtitan/models/llama/model.py.
struct TorchtitanBlockActivations {
    double op_sac_saved_bytes = 0; // selective_ac_option "op": the must-save outputs and the block input
    double input_bytes = 0; // what a fully checkpointed block (mode "full") keeps
};

TorchtitanBlockActivations torchtitanBlockActivations(const model::ModelDescription& model, const ParallelStrategy& s);

// torchtitan's layer-level selective checkpointing (selective_ac_option = N, Stratex's
// recompute "selective" with recompute_num_layers N > 0 under framework torchtitan): the block
// with 0-based index `layer` is wrapped in a full checkpoint when its 1-based count is a multiple
// of N (ptd_checkpoint_wrapper._count % ac_freq == 0), else it keeps every activation.
bool torchtitanLayerCheckpointed(const ParallelStrategy& s, int layer);

// Bytes per logit element at the loss's peak under torchtitan's loss_fn (train.py @ 9dec370:
// cross_entropy(pred.flatten(0, 1).float(), labels) after `del pred`): in the backward,
// log_softmax's saved fp32 output, the fp32 gradient arriving from nll_loss and the fp32
// gradient log_softmax_backward writes are alive together: 3 x 4 bytes. (The forward holds the
// bf16 logits, their fp32 copy and log_softmax's fp32 output: 2 + 4 + 4, less.)
constexpr double kTorchtitanLossBytesPerLogit = 12;

// With TP, torchtitan runs the loss in parallel over the vocabulary by default (parallel_dims.py
// @ 9dec370: loss_parallel_enabled = tp > 1 and not training.disable_loss_parallel; the output
// layer's ColwiseParallel keeps the logits Shard(-1)). PyTorch's loss_parallel
// (torch/distributed/tensor/parallel/loss.py, read @ 02eef6b8; the records ran torch 1963fc8)
// replaces the two fused kernels by decompositions over the local shard: the backward
// `_nll_loss_and_log_softmax_backward` computes (zeros_like(x) + exp(x)) * grad_output, so
// log_softmax's saved fp32 output, the zeros, exp(x) and their sum (then the product, once exp
// is freed) are alive together: 4 x 4 bytes. (Its forward peak: bf16 logits, their fp32 copy,
// `shifted` and exp(shifted): 2 + 4 + 4 + 4, less.)
constexpr double kTorchtitanLossParallelBytesPerLogit = 16;

// The bytes per logit element of the local vocabulary shard at torchtitan's loss peak.
double torchtitanLossBytesPerLogit(const ParallelStrategy& s);

// Context parallelism's ring attention as torchtitan runs it (docs/memory-model.md, "torchtitan's
// context parallelism"): the buffers one attention backward allocates on top of what the block
// holds, in bytes on one GPU; 0 without CP. torchtitan @ 9dec370 config_manager.py defaults
// experimental.context_parallel_rotate_method to "allgather" (train.py passes it to
// set_rotate_method), and its llama attention repeats the KV heads to all query heads before
// SDPA (model.py repeat_kv), so K and V each hold T x heads/tp x head_dim. PyTorch's
// _templated_ring_attention_backward (torch/distributed/tensor/experimental/_attention.py, read
// @ 0123248a; _AllGatherRotater, ALL_GATHER the default rotate method, and convert_to_f32 True)
// keeps together: the concatenated local K and V (torch.cat, 2 x bf16), their all-gather over the
// CP group (cp x that), the fp32 accumulators grad_query, grad_key and grad_value (zeros_like
// with accum_dtype float32), and the fp32 concatenated grad K, V the ALL_TO_ALL dkv rotater sends
// and the one it receives (2 x 2 x fp32). Not counted: the contiguous() copies of K and V and the
// bf16 per-step gradients of the op (short-lived).
struct TorchtitanRingAttentionBytes {
    double gathered_kv_bytes = 0; // cat(K, V) + its all-gather: (1 + cp) x 2 x bf16
    double fp32_accumulator_bytes = 0; // grad q, k, v in fp32 + the dkv send and receive buffers
    double total() const { return gathered_kv_bytes + fp32_accumulator_bytes; }
};
TorchtitanRingAttentionBytes torchtitanRingAttentionBytes(const model::ModelDescription& model, const ParallelStrategy& s);

} // namespace stratex::megatron
