// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/torchtitan_activations.h"

#include <algorithm>

namespace stratex::megatron {

namespace {

constexpr double kBf16 = 2;
constexpr double kFp32 = 4;

} // namespace

// pytorch/torchtitan @ 9dec370ad26b5f8e9a7333a0e36165018262644b,
// torchtitan/parallelisms/parallelize_llama.py: mode "selective", selective_ac_option "op" wraps
// each TransformerBlock in ptd_checkpoint_wrapper with a selective-checkpoint policy that saves
// the outputs of the ops in `_save_list` (aten.mm, _scaled_dot_product_efficient_attention,
// _scaled_dot_product_flash_attention, _c10d_functional.reduce_scatter_tensor, aten.abs,
// aten.max) "except every second mm": a per-block counter of aten.mm calls saves the odd ones.
// The block's forward (torchtitan/models/llama/model.py @ 9dec370) issues its mms in the order
// wq (1), wk (2), wv (3), [SDPA], wo (4), w1 (5), w3 (6), w2 (7): wq, wv, w1 and w2 outputs are
// saved, wk, wo and w3 are recomputed. The checkpoint keeps the block's input too. Under TP
// (torchtitan's plan: ColwiseParallel wq/wk/wv/w1/w3 on the sequence-gathered input,
// RowwiseParallel wo/w2 reduce-scattering to the sequence-sharded residual) a column-parallel
// output holds all T tokens and 1/tp of the features, a row-parallel mm's local output holds all
// T tokens and all h features (partial sums), and the two reduce_scatter outputs (T/tp x h) are
// saved. Flash attention returns its output and an fp32 logsumexp per (batch, head, token).
// The activations are bf16 (FSDP's MixedPrecisionPolicy param_dtype bf16); float8 linears
// (torchao Float8Linear) save their own fp8 inputs inside a recomputed region, so the same set
// is kept (an assumption: docs/memory-model.md says what is not modelled).
TorchtitanBlockActivations torchtitanBlockActivations(const model::ModelDescription& model, const ParallelStrategy& s)
{
    const double tp = s.tp;
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp; // T on this rank
    const double h = model.hidden_size;
    const double kv = model.kvHiddenSize();
    const double q = model.attentionWidth(); // heads x head_dim: wq's output and SDPA's
    const double f = model.ffn_hidden_size;
    const double sp = s.sequence_parallel ? 1.0 / tp : 1.0;
    TorchtitanBlockActivations a;
    a.input_bytes = kBf16 * tokens * h * sp;
    double saved = a.input_bytes;
    saved += kBf16 * tokens * q / tp; // wq (mm 1)
    saved += kBf16 * tokens * kv / tp; // wv (mm 3)
    saved += kBf16 * tokens * q / tp + kFp32 * tokens * model.num_heads / tp; // SDPA output + logsumexp
    if (model.mlp == model::MlpKind::Gated) {
        saved += kBf16 * tokens * f / tp; // w1 (mm 5); w3 (mm 6) recomputed
        saved += kBf16 * tokens * h; // w2 (mm 7): all tokens, all features
    } else {
        // A plain MLP (fc1, fc2): mm 5 (fc1) saved, mm 6 (fc2) recomputed.
        saved += kBf16 * tokens * f / tp;
    }
    if (s.tp > 1)
        saved += 2 * kBf16 * tokens * h / tp; // the reduce_scatter outputs after wo and w2
    a.op_sac_saved_bytes = saved;
    return a;
}

bool torchtitanLayerCheckpointed(const ParallelStrategy& s, int layer)
{
    const int every = std::max(1, s.recompute_num_layers);
    return (layer + 1) % every == 0;
}

double torchtitanLossBytesPerLogit(const ParallelStrategy& s)
{
    if (s.tp > 1)
        return kTorchtitanLossParallelBytesPerLogit;
    return s.compile == Compile::On && s.compile_loss ? kTorchtitanCompiledLossBytesPerLogit
                                                      : kTorchtitanLossBytesPerLogit;
}

TorchtitanRingAttentionBytes torchtitanRingAttentionBytes(const model::ModelDescription& model, const ParallelStrategy& s)
{
    TorchtitanRingAttentionBytes b;
    if (s.cp <= 1)
        return b;
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp; // T on this rank
    // K (or V) after repeat_kv, the local heads of all query heads: T x q / tp elements.
    const double kvElements = tokens * model.attentionWidth() / s.tp;
    b.gathered_kv_bytes = (1.0 + s.cp) * 2 * kBf16 * kvElements;
    b.fp32_accumulator_bytes = 3 * kFp32 * kvElements + 2 * 2 * kFp32 * kvElements;
    return b;
}

double torchtitanHeldInputGradientBytes(int microbatches, double sendBytes, bool firstChunk, bool lastChunk)
{
    if (firstChunk || !lastChunk)
        return 0;
    return std::max(0, microbatches - 1) * std::max(0.0, sendBytes);
}

double torchtitanMergedOutputBytes(int microbatches, double outputBytes)
{
    return std::max(0, microbatches) * std::max(0.0, outputBytes);
}

double torchtitanLargestLossRequestBytes(double outputBytes)
{
    return 2 * std::max(0.0, outputBytes);
}

} // namespace stratex::megatron
