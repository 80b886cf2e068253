// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"
#include "core/model/model_presets.h"

// First-principles counts for one decoder layer and the embedding / LM head, the quantities a
// Galvatron profiler would measure. Counts are exact; the two calibration constants below are
// stated where they are used.
namespace stratex::profile::synth {

// Weights of one layer: Q/O (h x h), K/V (h x kv_dim each), the MLP, two norm vectors.
double layerParameters(const model::ModelDescription& model);
// Weights of the input embedding (or of the LM head; they have the same shape).
double embeddingParameters(const model::ModelDescription& model);
// The whole model: layers, embedding, LM head unless tied, final norm.
double modelParameters(const model::ModelDescription& model);

// Forward FLOPs of one layer for one sample of `seq` tokens: 2 per weight per token for the GEMMs
// plus 4·s²·h for the attention scores and their product with V (no causal saving: the profiled
// kernels compute the full square).
double layerForwardFlops(const model::ModelDescription& model, int seq);
// Forward FLOPs of the LM head GEMM for one sample.
double headForwardFlops(const model::ModelDescription& model, int seq);

// Activation bytes one sample of one layer keeps for backward at tensor-parallel degree `tp`,
// with 2-byte (bf16/fp16) or 4-byte (fp32) elements. With Megatron sequence parallelism every
// tensor is split by tp; without it the norm inputs and outputs are replicated. Flash attention is
// assumed (no s² score matrix is stored).
double layerActivationBytes(const model::ModelDescription& model, int seq, int tp, bool sequenceParallel, int elementBytes);
// What a checkpointed (recomputed) layer keeps: its input.
double checkpointBytes(const model::ModelDescription& model, int seq, int elementBytes);

// Galvatron measures activations as torch.cuda.memory_allocated deltas, which come out at twice
// the count of the stored tensors above (fp32 norm and softmax-statistics copies, SiLU inputs,
// allocator rounding): the llama2-7b profile in tests/data reads 514.6 MB per sample at
// seq 2048 against 257.0 MB counted. The synthesizer writes what the profiler would write.
inline constexpr double kAllocatedOverStored = 2.0;

} // namespace stratex::profile::synth
