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

// What the backward reruns (layer_cost.cpp; docs/kernels.md §12), other work than Megatron's
// --recompute-modules (the core attention): under every-N-th-block checkpointing a checkpointed
// block its whole forward (chunk_costs.cpp asks for those blocks' `recomputed` cost), the others
// nothing; under the op policy, which saves wq, wv, SDPA, w1 and w2, the mms wk, wo and w3 (fc2 of
// a plain MLP), every memory-bound op (norms, RoPE, the activation, residual adds), their launches,
// and under TP the inputs' all-gathers, half the forward's TP traffic (the reduce-scatter outputs
// are saved). Attention is not rerun.

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

// torchtitan's loss compiled with its blocks (compile on, compile_loss; components/loss.py
// build_cross_entropy_loss @ e7c0cae9: torch.compile(loss_fn), the same fn: cross_entropy(
// pred.flatten(0, 1).float(), labels)): Inductor fuses the upcast, log-softmax and NLL into
// reductions over the bf16 logits, keeps them and the rows' log-sum-exp for the backward, and
// writes the bf16 gradient in one fused kernel, so the saved logits and their gradient are alive
// together: 2 + 2 bytes (the bbb1b616e commit: "reduction of memory"). Without TP only: under
// loss_parallel the DTensor decomposition above is what runs.
constexpr double kTorchtitanCompiledLossBytesPerLogit = 4;

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

// The input gradients torch.distributed.pipelining leaves on a stage (docs/memory-model.md,
// "torchtitan's pipeline stages"), in bytes on one GPU at the peak of one model chunk, for
// `microbatches` micro-batches whose received activation is `sendBytes`. stage_backward runs
// torch.autograd.backward on the stage output and reads each input's gradient from `val.grad`
// (torch/distributed/pipelining/_backward.py @ 060ca5d7): the stage input is the receive buffer, a
// leaf that requires grad, so autograd leaves the gradient in the buffer's .grad, and only the next
// step's clear_runtime_states sets it to None (stage.py @ 01386103: "torch.autograd.backward()
// will accumulate gradients into leaf tensors by default"). A later form of stage_backward (read in
// a stored copy whose commit is not named) sets `val.grad = None` right after reading it, "This
// prevents the gradients from persisting in GPU memory for the entire duration of
// step_microbatches"; the form at 060ca5d7, of the records' time (torch 1963fc8, 2024-12), has not. Each
// micro-batch's buffer gets its own gradient, so after k backwards k of them are alive. Counted on
// the model's last chunk, whose peak is its last micro-batch (every output chunk alive): m - 1
// gradients from the earlier backwards. Not on the first chunk (no receive buffer) and not on the
// others, whose peak is the end of their warm-up, before any backward (they hold fewer there: not
// counted, an undercount of interleaved ranks' first chunks).
double torchtitanHeldInputGradientBytes(int microbatches, double sendBytes, bool firstChunk, bool lastChunk);

// The merged output of a pipeline step on the last stage (docs/memory-model.md, "torchtitan's
// pipeline stages"), bytes: PipelineScheduleSingle.step and PipelineScheduleMulti.step end with
// `return self._merge_outputs(stage.output_chunks)` for the last stage
// (torch/distributed/pipelining/schedules.py, every 2024 form read), and merge_chunks concatenates
// the micro-batches' outputs along dim 0 (microbatch.py, the default TensorChunkSpec(0)) into one
// new tensor: m x `outputBytes` (the logits of the local vocabulary shard), made after the last
// backward. torchtitan's train.py @ 9dec370 calls pp_schedule.step(target=labels, losses=losses)
// and drops the result, so it is freed at once: off the allocated peak, but one allocation larger
// than any other of the stage (device_memory.h lateAllocationSegmentMb).
double torchtitanMergedOutputBytes(int microbatches, double outputBytes);

// The largest request a torchtitan last stage makes before that merge, in bytes: the fp32 copy of
// one micro-batch's logits (train.py's loss_fn, cross_entropy(pred.flatten(0, 1).float(), ...)),
// twice the bf16 output, and the loss's fp32 buffers of the same shape.
double torchtitanLargestLossRequestBytes(double outputBytes);

} // namespace stratex::megatron
