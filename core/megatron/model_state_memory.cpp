// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/model_state_memory.h"

#include <algorithm>

#include "core/megatron/deepspeed_memory.h"
#include "core/megatron/dp_traffic.h"

namespace stratex::megatron {

// pytorch/torchtitan @ 9dec370, torchtitan/float8.py Float8Handler.__init__:
// `enable_fsdp_float8_all_gather = parallel_dims.dp_shard_enabled and
// float8_config.enable_fsdp_float8_all_gather`, and parallel_dims.py's dp_shard_enabled is
// `dp_shard > 1`: the data-parallel shard degree alone, without CP. FSDP still shards over
// dp_shard x cp (parallelize_llama.py applies fully_shard on the "dp_shard_cp" mesh whenever
// dp_shard or cp is enabled), but with dp_shard 1 (torchtitan's "FSDP 1, CP 8" rows) the
// Float8Linear weights are all-gathered in bf16 (MixedPrecisionPolicy param_dtype) and cast to
// float8 in each forward: their unsharded copies are 2 bytes, not 1 (docs/memory-model.md,
// "torchtitan (`torchtitan`), FSDP2").
bool torchtitanFloat8AllGather(const ParallelStrategy& s)
{
    return s.framework == Framework::Torchtitan && s.precision == Precision::Fp8 && s.zero >= 1 && s.dpShard() > 1;
}

namespace {

constexpr double kMb = 1e6;

// ZeRO-3 / FSDP with resharding: the layer being computed and the one prefetched are gathered.
double gatheredLayers(double params, int layers)
{
    return params * std::min(1.0, 2.0 / std::max(1, layers));
}

// ZeRO's stages over 16-bit weights, `gradientBytes` per gradient and `optimizerBytes` of optimizer
// state per parameter: stage 1 shards the optimizer, 2 the gradients too, 3 the weights (with the
// gathered layers). DeepSpeed has its own (deepspeed_memory.h).
ModelStateMemory zeroStages(const ParallelStrategy& s, double params, double shard, int layers, double gradientBytes,
    double optimizerBytes = 12)
{
    ModelStateMemory m;
    if (s.zero == 3) {
        m.gathered_mb = 2 * gatheredLayers(params, layers) / kMb;
        m.weights_mb = 2 * shard / kMb + m.gathered_mb;
    } else {
        m.weights_mb = 2 * params / kMb;
    }
    // The gradient buffers the framework's reduction leaves (gradientReduction(), dp_traffic.h).
    const GradientReduction r = gradientReduction(s.framework, s.zero, s.pp);
    // gradient_buffer "step" (docs/memory-model.md, "Gradient buffer lifetime"): the full buffer
    // and, after each chunk's reduce-scatter, its shard; the ledger adds both when they are made
    // (firstBackwardGradientBytes, lastBackwardGradientBytes), not from the start.
    const bool stepShard = s.gradient_buffer == GradientBuffer::Step && r.full_gradients && !r.sharded_gradients;
    m.gradients_mb
        = gradientBytes * ((r.full_gradients ? params : 0.0) + (r.sharded_gradients || stepShard ? shard : 0.0)) / kMb;
    m.optimizer_mb = optimizerBytes * (s.zero >= 1 ? shard : params) / kMb;
    return m;
}

// Megatron-Core (and Megatron-Bridge / NeMo 2 on it). NVIDIA/Megatron-LM @ d98e8a64:
// megatron/training/arguments.py: with --bf16 and the default --main-grads-dtype fp32,
// accumulate_allreduce_grads_in_fp32 is forced on, so the DDP grad buffer
// (megatron/core/distributed/param_and_grad_buffer.py) holds fp32 main gradients for every
// parameter of the rank; the distributed optimizer (optimizer/distrib_optimizer.py) reduce-scatters
// inside that full buffer and shards only the fp32 main weights and Adam's moments over the
// data-parallel x context-parallel group: 2 + 4 + 12 / d bytes per parameter. ZeRO 2 (Megatron-FSDP
// optim_grads, reduced every micro-batch: gradientReduction()) keeps only the gradient shard; ZeRO 3
// is Megatron-FSDP optim_grads_params with gathered layers.
//
// The two dtype settings (docs/memory-model.md, "Megatron-Core"), same commit:
// - main_grads_dtype bf16: --grad-reduce-in-bf16 turns accumulate_allreduce_grads_in_fp32 off
//   (arguments.py), and group_params_for_buffers (param_and_grad_buffer.py) then gives the grad
//   buffer the parameters' dtype: 2 bytes.
// - optimizer_state_dtype bf16: --use-precision-aware-optimizer --exp-avg-dtype bf16
//   --exp-avg-sq-dtype bf16 (optimizer/__init__.py: Transformer Engine's FusedAdam with
//   master_weights and store_param_remainders, default True in optimizer_config.py: "store the
//   16-bit FP32 parameter remainders ... excluding the 16 bits shared with the BF16 parameters"):
//   2 + 2 + 2 bytes over d instead of 4 + 4 + 4. NeMo 1's Apex distributed_fused_adam with
//   dtype bf16 keeps the same six (NVIDIA/apex apex/contrib/optimizers/distributed_fused_adam.py
//   @ 6424da3b: params_shard, exp_avg_shard, exp_avg_sq_shard in `dtype`).
ModelStateMemory megatronCore(const ParallelStrategy& s, double params, double shard, int layers)
{
    const double gradientBytes = s.main_grads_dtype == StateDtype::Bf16 ? 2 : 4;
    const double optimizerBytes = s.optimizer_state_dtype == StateDtype::Bf16 ? 6 : 12;
    return zeroStages(s, params, shard, layers, gradientBytes, optimizerBytes);
}

// torchtitan's FSDP2 groups on one GPU of a stage, in the bytes of their unsharded copies
// (pytorch/torchtitan @ 9dec370, torchtitan/parallelisms/parallelize_llama.py apply_fsdp, lines
// 325-339): one group per transformer block (fully_shard(transformer_block)) and the root group
// (fully_shard(model)) with the parameters outside the blocks: embeddings, final norm, output,
// which stay bf16 under float8 (and here also the blocks' norm weights, 2h per layer: noise).
// `linearParams`: the blocks' linear weights, the rest of `params` is the root's.
struct TorchtitanGroups {
    double root_bytes = 0;
    double layer_bytes = 0; // one block
};

TorchtitanGroups torchtitanGroups(const ParallelStrategy& s, double params, double linearParams, int layers)
{
    const double linear = std::clamp(linearParams, 0.0, params);
    TorchtitanGroups g;
    g.root_bytes = 2 * (params - linear);
    g.layer_bytes = (torchtitanFloat8AllGather(s) ? 1.0 : 2.0) * linear / std::max(1, layers);
    return g;
}

// Gathered at the peak with reshard after forward (no PP): the root group and two blocks. FSDP2's
// lazy init keeps the root unsharded from its forward to its backward ("For the root, do not
// reshard after forward since for training, the parameters would be freed and all-gathered
// immediately": torch/distributed/_composable/fsdp/_fsdp_state.py FSDPState._lazy_init sets the
// root group's post_forward_mesh_info to None, unconditionally in the 2024 form the records' torch
// 1963fc8 (2024-12-23) ran; the condition on reshard_after_forward=None came in 2025), and
// torchtitan does not reshard the last block after forward (apply_fsdp: layer_id < n_layers - 1):
// at the loss the root and the last block are gathered, in the backward a block and the prefetched
// next one.
double torchtitanGatheredBytes(const TorchtitanGroups& g)
{
    return g.root_bytes + 2 * g.layer_bytes;
}

// FSDP2 allocates each group's flat all-gather output on its all-gather copy-in stream
// (torch/distributed/_composable/fsdp/_fsdp_collectives.py foreach_all_gather: torch.empty inside
// `with stream(all_gather_copy_in_stream)`), copies it out into the parameters on the compute
// stream and keeps it (comm_ctx.all_gather_state) until the next group's copy-in is issued: two
// flat outputs are alive at once, the first being the root's (it runs first). The caching
// allocator keeps freed blocks per stream, so that pool stays reserved and the compute stream
// never reuses it: reserved, not allocated, at the compute stream's peak.
double torchtitanAllGatherPoolBytes(const TorchtitanGroups& g)
{
    return std::max(g.root_bytes, g.layer_bytes) + g.layer_bytes;
}

// torchtitan with FSDP2 (pytorch/torchtitan @ b5bcd76c, torchtitan/distributed/fsdp.py): every
// parameter is an fp32 DTensor shard (the optimizer steps on it: no separate master copy), bf16
// unsharded copies are gathered for compute (MixedPrecisionPolicy param_dtype bf16, reduce_dtype
// fp32), gradients are fp32 shards, AdamW keeps two fp32 moments: 4 + 4 + 8 bytes over the FSDP
// group. reshard_after_forward (zero 3 here) frees a layer's gathered copy after its forward;
// get_fsdp_reshard_after_forward_policy defaults it off with PP (zero 2: the stage's bf16 copies
// stay). With PP, torch/distributed/pipelining/stage.py backward_maybe_with_nosync sets
// set_requires_gradient_sync(False) and set_reshard_after_backward(False) for every micro-batch
// but the last: the unsharded gradients accumulate, upcast to reduce_dtype fp32
// (FSDPParam.to_accumulated_grad_if_needed), and the bf16 copies stay gathered until the last
// backward. Zero 0: no FSDP, fp32 weights, gradients and moments replicated.
//
// Float8 (precision fp8; torchtitan/float8.py @ 9dec370 with enable_fsdp_float8_all_gather, as the
// bundled torchtitan fp8 records ran): Float8Linear's weights stay fp32 shards
// (WeightWithDynamicFloat8CastTensor); FSDP casts them to float8 before the all-gather
// (torchao/float8/fsdp_utils.py fsdp_pre_all_gather @ eab345c), so the unsharded copy of a
// transformer layer's linear weight is one byte, and Float8Linear.forward saves that copy's
// transpose (a view) for backward rather than a new cast. The embedding and the output layer stay
// bf16 (torchtitan converts every nn.Linear but "output").
ModelStateMemory torchtitan(const ParallelStrategy& s, double params, double shard, int layers, double float8Params)
{
    // Bytes of one unsharded copy of the stage's parameters, per parameter (float8 linears only
    // where FSDP gathers them in float8: torchtitanFloat8AllGather()).
    const double fp8 = torchtitanFloat8AllGather(s) ? std::clamp(float8Params, 0.0, params) : 0.0;
    const double unshardedBytes = params > 0 ? (2 * (params - fp8) + fp8) / params : 2.0;
    ModelStateMemory m;
    const bool fsdp = s.zero >= 1;
    const double owned = fsdp ? shard : params;
    m.weights_mb = 4 * owned / kMb;
    // fp32 gradient shards, and under PP the unsharded ones accumulated across micro-batches
    // (gradientReduction(), dp_traffic.h).
    const GradientReduction r = gradientReduction(s.framework, s.zero, s.pp);
    m.gradients_mb = 4 * ((r.full_gradients ? params : 0.0) + (r.sharded_gradients ? shard : 0.0)) / kMb;
    m.optimizer_mb = 8 * owned / kMb;
    if (!fsdp)
        return m;
    const bool heldAcrossMicrobatches = s.pp > 1 || s.zero <= 2;
    const TorchtitanGroups groups = torchtitanGroups(s, params, float8Params, layers);
    if (heldAcrossMicrobatches) {
        m.weights_mb += unshardedBytes * params / kMb;
    } else {
        m.gathered_mb = std::min(unshardedBytes * params, torchtitanGatheredBytes(groups)) / kMb;
        m.weights_mb += m.gathered_mb;
    }
    m.staging_mb = torchtitanAllGatherPoolBytes(groups) / kMb;
    if (s.pp > 1 && r.sharded_gradients) {
        // The fp32 gradient shards are the reduce-scatter's output, allocated on FSDP's
        // reduce-scatter stream (foreach_reduce: `reduce_output = reduce_scatter_input.new_empty(...)`
        // inside `with stream(reduce_scatter_stream)`, _fsdp_collectives.py; sharded_param.grad is a
        // view of it) at the chunk's last backward, and freed by the next step's zero_grad: the
        // ledger adds them there (lastBackwardGradientBytes), but their blocks stay in that stream's
        // pool, which the compute stream cannot reuse: reserved at its peak, not allocated.
        m.staging_mb += 4 * shard / kMb;
    }
    if (s.pp > 1) {
        // The unsharded weights and the accumulated fp32 gradients (counted above through
        // gradientReduction()) are allocated anew and freed every step: the last micro-batch's backward runs FSDP's
        // post_backward with reshard_after_backward True (stage.py's last-backward hook), which
        // frees the unsharded weights, hands each unsharded_accumulated_grad to foreach_reduce and
        // sets it to None (torch/distributed/_composable/fsdp/_fsdp_param_group.py post_backward);
        // the next step all-gathers the weights again and to_accumulated_grad_if_needed
        // (_fsdp_param.py) allocates a new fp32 gradient with `unsharded_grad.to(reduce_dtype)`.
        m.freed_each_step_mb = (unshardedBytes + 4) * params / kMb;
    }
    return m;
}

} // namespace

// torchtitan's unsharded gradients do not exist before a step's first backward: the previous
// step's last backward freed them (post_backward sets each unsharded_accumulated_grad to None,
// torch/distributed/_composable/fsdp/_fsdp_param_group.py, as read for torchtitan() above), and the
// first backward of this step creates them: autograd writes the bf16 unsharded_param.grad, and
// FSDPParamGroup.post_backward (with reduce_grads False, set by stage.py's
// backward_maybe_with_nosync for every micro-batch but the last) calls
// FSDPParam.to_accumulated_grad_if_needed, which allocates the fp32
// `unsharded_accumulated_grad = unsharded_param.grad.to(reduce_dtype)`; later micro-batches add into
// it. Each model chunk is its own FSDP root (torchtitan's train.py @ 9dec370 runs the parallelize
// function, hence apply_fsdp's root fully_shard, on every one of its model_parts), so an
// interleaved rank's chunks get theirs at their own first backward. Under
// torch.distributed.pipelining's Interleaved1F1B a rank runs every backward of its later chunk
// before the first of its earlier chunk (backward_stage_index walks the local stages in reverse,
// schedules.py): on the last rank, the later chunk's forwards (with the logits) run while the
// earlier chunk holds its warm-up activations but no gradients yet.
//
// gradient_buffer "step" under Megatron-Core's / Megatron-Bridge's zero 1 (docs/memory-model.md,
// "Gradient buffer lifetime"): the same lifetime for the full main-gradient buffer, in its dtype.
// Llama 3's FSDP (Dubey et al. 2024, section 3.3.2) "shards optimizer states and gradients" and uses
// "FP32 gradient accumulation during backward computation over multiple micro-batches" with one
// FP32 reduce-scatter per step: the unsharded FP32 gradients exist from a chunk's first backward
// of the step to its reduce-scatter after the last, the FP32 shard from then to the step. Megatron-
// Core's DDP instead allocates its buffer once (param_and_grad_buffer.py @ d98e8a64) and zeroes it
// each step (zero_grad_buffer): persistent, the default.
double firstBackwardGradientBytes(const ParallelStrategy& s, double chunkParams)
{
    if (s.gradient_buffer == GradientBuffer::Step && s.zero == 1
        && (s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge))
        return (s.main_grads_dtype == StateDtype::Bf16 ? 2.0 : 4.0) * chunkParams;
    if (s.framework != Framework::Torchtitan || s.zero < 1 || s.pp <= 1)
        return 0;
    return gradientReduction(s.framework, s.zero, s.pp).full_gradients ? 4 * chunkParams : 0.0;
}

// At the chunk's last backward of the step, stage.py's backward_maybe_with_nosync runs FSDP's
// post_backward with reduce_grads True: each unsharded_accumulated_grad goes to foreach_reduce and
// is set to None (freed once copied into the reduce-scatter input), and the reduce-scatter output
// becomes the fp32 sharded gradient (sharded_param.grad). That shard lives through the optimizer
// step to the next step's `optimizers.zero_grad()`, which torchtitan's train.py @ 9dec370 calls
// before the forward: during a step's forwards and backwards it does not exist.
double lastBackwardGradientBytes(const ParallelStrategy& s, double chunkParams, double chunkShardParams)
{
    const double unsharded = firstBackwardGradientBytes(s, chunkParams);
    if (unsharded <= 0)
        return 0;
    if (s.gradient_buffer == GradientBuffer::Step) // the shard the reduce-scatter leaves, same dtype
        return unsharded * (chunkShardParams / std::max(chunkParams, 1.0)) - unsharded;
    const GradientReduction r = gradientReduction(s.framework, s.zero, s.pp);
    return (r.sharded_gradients ? 4 * chunkShardParams : 0.0) - unsharded;
}

ModelStateMemory modelStateMemory(
    const ParallelStrategy& s, double params, double shardParams, int layers, double float8Params)
{
    switch (s.framework) {
    case Framework::Torchtitan:
        return torchtitan(s, params, shardParams, layers, float8Params);
    case Framework::DeepSpeed:
        // DeepSpeed's own buffers beyond the ZeRO paper's 2 + 2 + 12 (deepspeed_memory.h).
        return deepSpeedModelState(s, params, shardParams, layers);
    case Framework::Composer:
        // The ZeRO paper's 2 + 2 + 12 over the FSDP group (docs/memory-model.md, "Composer").
        return zeroStages(s, params, shardParams, layers, 2);
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        break;
    }
    return megatronCore(s, params, shardParams, layers);
}

bool launcherExpandableSegments(Framework framework, int numNodes)
{
    // pytorch/torchtitan @ 9dec370 (the version of the bundled torchtitan records): the one-node
    // launcher run_llama_train.sh runs torchrun under PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"
    // (run_train.sh since, @ b5bcd76c); the multi-node launcher multinode_trainer.slurm (lines
    // 32-62: its exports and `srun torchrun --nnodes 4`) sets no allocator configuration, so a run
    // over several nodes gets PyTorch's default, expandable segments off. Megatron-Bridge's
    // performance launcher sets it for every workload (NVIDIA-NeMo/Megatron-Bridge
    // scripts/performance: setup_experiment.py in v0.1.0, perf_plugins.py from v0.2.0 and
    // utils/executors.py's default env from v0.3.0, "expandable_segments:True"), and so does the
    // Megatron-Bridge export's script (megatron_bridge_recipe.cpp). Megatron-Core's and
    // DeepSpeed's launchers leave the allocator's default.
    if (framework == Framework::MegatronBridge)
        return true;
    return framework == Framework::Torchtitan && numNodes <= 1;
}

} // namespace stratex::megatron
