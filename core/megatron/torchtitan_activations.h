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

} // namespace stratex::megatron
