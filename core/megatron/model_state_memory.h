// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// What one GPU of a pipeline stage keeps for the whole iteration: weights, gradients and optimizer
// states, as its framework keeps them (docs/memory-model.md, "Model state"). MB = 1e6 bytes.
struct ModelStateMemory {
    double weights_mb = 0; // every copy of the weights: 16-bit, fp32 shards, gathered layers
    double gradients_mb = 0; // main gradients in their dtype and layout
    double optimizer_mb = 0; // fp32 master weights (where separate) and Adam's two moments
    // Weights gathered and freed layer by layer (ZeRO-3 / FSDP reshard after forward): allocator churn.
    double gathered_mb = 0;
    // Reserved but not allocated at the peak: torchtitan FSDP2's all-gather outputs live in the
    // caching allocator's pool of FSDP's copy-in stream, which the compute stream cannot reuse
    // (torchtitanAllGatherPoolBytes). Not part of totalMb().
    double staging_mb = 0;
    // Part of totalMb() allocated and freed once per step (torchtitan FSDP2 under PP: the stage's
    // unsharded weights and fp32 accumulated gradients): the caching allocator's churn, as the
    // activations are (docs/memory-model.md, "torchtitan's pipeline stages").
    double freed_each_step_mb = 0;
    // Not part of totalMb(): what the optimizer step allocates beyond the state, after the backward
    // has freed the activations and the logits and released the gathered weights (gathered_mb).
    // DeepSpeed ZeRO-3's per-sub-group gradient copies (deepSpeedStepTransientBytes); the stage's
    // allocated peak is the larger of the backward's and the step's (estimate.cpp).
    double step_transient_mb = 0;

    double totalMb() const { return weights_mb + gradients_mb + optimizer_mb; }
    bool operator==(const ModelStateMemory&) const = default;
};

// `params`: this stage's parameters on one GPU (after TP/EP), `shardParams`: its share after the
// data-parallel sharding of the ZeRO stage (dense / (dp x cp) + experts / expert-dp), `layers`: the
// stage's transformer layers, `float8Params`: the part of `params` in the transformer layers'
// linear weights, which torchtitan with float8 all-gathers and keeps unsharded in one byte (the
// rest is torchtitan's FSDP2 root group: embeddings, final norm, output).
ModelStateMemory modelStateMemory(
    const ParallelStrategy& strategy, double params, double shardParams, int layers, double float8Params = 0);

// The part of a stage's gradients (ModelStateMemory::gradients_mb) that is allocated at the
// step's first backward of the model chunk holding `chunkParams` parameters (per GPU) and held
// from then to the step's end, in bytes; 0 where the framework keeps its gradients for the whole
// iteration. torchtitan's FSDP2 under PP: the fp32 unsharded accumulated gradients
// (docs/memory-model.md, "torchtitan's pipeline stages", "first backward").
// `chunkShardParams`: that chunk's share after the data-parallel sharding. Also the change at the
// step's last backward of the chunk (lastBackwardGradientBytes: the unsharded gradients freed, the
// reduce-scattered fp32 shards created, which live to the next step's zero_grad).
double firstBackwardGradientBytes(const ParallelStrategy& strategy, double chunkParams);
double lastBackwardGradientBytes(const ParallelStrategy& strategy, double chunkParams, double chunkShardParams);

// Whether torchtitan all-gathers the transformer blocks' Float8Linear weights in float8 (one byte
// per unsharded parameter) rather than bf16: precision fp8 under FSDP with a data-parallel shard
// degree (dpShard(), without CP) above 1 (torchtitan/float8.py @ 9dec370; docs/memory-model.md).
bool torchtitanFloat8AllGather(const ParallelStrategy& s);

// Whether the framework's own launcher turns the caching allocator's expandable segments on
// (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True) for a run over `numNodes` nodes
// (docs/memory-model.md, "Device memory").
bool launcherExpandableSegments(Framework framework, int numNodes);

} // namespace stratex::megatron
