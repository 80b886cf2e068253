// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/dp_traffic.h"

#include "core/hardware/kernel_shapes.h"
#include "core/megatron/hsdp.h"

#include <algorithm>
#include <cmath>

namespace stratex::megatron {

GradientReduction gradientReduction(Framework framework, int zero, int pp)
{
    GradientReduction r;
    switch (framework) {
    case Framework::Torchtitan:
        // FSDP2 (zero >= 1) or DDP (zero 0). Under PP, torch.distributed.pipelining's stage runs
        // every backward but the last micro-batch's with set_requires_gradient_sync(False) and
        // set_reshard_after_backward(False) (torch/distributed/pipelining/stage.py,
        // backward_maybe_with_nosync; DDP: no_sync()): the gradients accumulate unsharded and are
        // reduce-scattered once, the gathered weights stay. Without PP, torchtitan's train_step
        // runs each gradient-accumulation step's forward_backward_step with gradient sync on
        // (torchtitan/trainer.py, pytorch/torchtitan b5bcd76c): one reduction per micro-batch, and
        // a layer not resharded after forward (zero 1-2: fsdp_reshard_after_forward "never") is
        // still resharded after each backward, so it is gathered again before the next forward.
        r.every_microbatch = pp == 1;
        r.gather_every_microbatch = pp == 1 && zero >= 1;
        // Each pipeline stage module is its own FSDP root: the last micro-batch's backward of a
        // model chunk ends in _root_post_backward_final_callback, which makes the compute stream
        // wait for that chunk's reduce-scatters (is_last_backward; torch/distributed/fsdp/
        // _fully_shard/_fsdp_state.py, pytorch/pytorch 01c9f4fc).
        r.chunk_waits = pp > 1;
        r.sharded_gradients = zero >= 1;
        r.full_gradients = zero == 0 || pp > 1;
        return r;
    case Framework::Composer: // PyTorch FSDP under Composer: reduce-scattered every backward at zero 2-3
    case Framework::DeepSpeed:
        // deepspeed/runtime/zero/stage_1_and_2.py (deepspeedai/DeepSpeed edaa722),
        // reduce_ready_partitions_and_remove_grads: with partition_gradients (ZeRO 2) every
        // backward reduces its IPG buckets (reduce_bucket_size, 5e8 elements) into the rank's
        // gradient partition; ZeRO 1 (and the engine's all-reduce at ZeRO 0) only at the
        // gradient-accumulation boundary, over the full gradients. ZeRO 3 (stage3.py) partitions
        // and reduces every backward too.
        r.every_microbatch = zero >= 2;
        break;
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        // ZeRO 0-1: DDP and the distributed optimizer accumulate into the full grad buffer and
        // reduce once, in the last micro-batch's backward (no_sync for the others; --overlap-grad-
        // reduce launches each bucket as it fills). ZeRO 2-3 is Megatron-FSDP ("optim_grads",
        // "optim_grads_params"), which reduce-scatters after every backward:
        // grad_reduce_every_bprop (megatron/core/distributed/fsdp/src/megatron_fsdp/megatron_fsdp.py
        // lines 757-767, NVIDIA/Megatron-LM d98e8a64).
        r.every_microbatch = zero >= 2;
        break;
    }
    r.sharded_gradients = zero >= 2;
    r.full_gradients = zero <= 1;
    return r;
}

double ncclComputeSlowdown(const hardware::HardwareModel& hw, hardware::GroupShape group)
{
    // A CTA of NCCL's kernel stays resident for the whole collective (it polls its peers' flags),
    // and a large GEMM's CTA needs most of an SM's shared memory, so the two do not share an SM:
    // the compute's waves run on SMs - ctas while the collective runs (the rule moe_dispatch.cpp
    // applies to DeepEP's SMs).
    const int sms = hardware::presetSmCount(hw.cluster().gpu.name);
    const int ctas = hw.collectives().ringCtas(group);
    if (sms <= 0 || ctas <= 0 || ctas >= sms)
        return 0;
    return double(ctas) / double(sms - ctas);
}

DpTraffic dpTraffic(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale)
{
    DpTraffic t = dpTrafficTimes(s, hw, denseDp, expertDp, denseParams, expertParams, layers, scale);
    // The dense group's rings carry most of the bytes; an expert-only stage uses the expert group's.
    t.compute_slowdown = ncclComputeSlowdown(hw, denseParams > 0 || expertParams <= 0 ? denseDp : expertDp);
    return t;
}

// Bytes a gradient element is reduced in: Megatron-Core's grad buffer dtype (the main gradients,
// model_state_memory.cpp): fp32 by default, bf16 under --grad-reduce-in-bf16 (Megatron-Bridge's
// ddp.grad_reduce_in_fp32 = False), whose buffer both DDP's / the distributed optimizer's
// reduce-scatter and Megatron-FSDP's run in (param_and_grad_buffer.py, NVIDIA/Megatron-LM d98e8a64).
// The other frameworks reduce in fp32 here (torchtitan's mixed_precision_reduce "float32").
double gradientReduceBytes(const ParallelStrategy& s)
{
    const bool megatron = s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge;
    return megatron && s.main_grads_dtype == StateDtype::Bf16 ? 2.0 : 4.0;
}

DpTraffic dpTrafficTimes(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale)
{
    const double gradBytes = gradientReduceBytes(s);
    if (isHybridSharded(s)) // HSDP: shard-group collectives and the replicas' all-reduce (hsdp.h)
        return hsdpTrafficTimes(s, hw, denseParams, expertParams, layers, scale);
    DpTraffic t;
    if (s.zero == 3) {
        const int L = std::max(1, layers);
        t.gather_s
            = scale * (hw.allGatherS(2 * denseParams / L, denseDp) + hw.allGatherS(2 * expertParams / L, expertDp));
        t.reduce_s = scale
            * (hw.reduceScatterS(gradBytes * denseParams / L, denseDp)
                + hw.reduceScatterS(gradBytes * expertParams / L, expertDp));
        if (s.framework == Framework::Torchtitan)
            // FSDP2 gathers each group's shards into one flat buffer and copies them out into the
            // unsharded parameters on the compute stream (torch/distributed/fsdp/_fully_shard/
            // _fsdp_param_group.py wait_for_unshard -> foreach_all_gather_copy_out,
            // torch.split_with_sizes_copy; pytorch/pytorch 1fd7abc2): a memory-bound read and write
            // of the gathered bytes per all-gather. Megatron-FSDP and FSDP1's flat parameters are
            // views of the gathered buffer and copy nothing. The reduce-scatter's copy-in
            // (_chunk_cat into the fp32 input) runs on the reduce-scatter stream: not charged.
            t.copy_out_s = hw.memoryBoundS(2 * 2 * (denseParams + expertParams) / L);
        return t;
    }
    // Megatron-Core's default bucket: max(40,000,000, 1,000,000 x DP size) parameters
    // (megatron/core/distributed/distributed_data_parallel.py, NVIDIA/Megatron-LM d98e8a6); one
    // bucket for everything without --overlap-grad-reduce. Each bucket is one collective call.
    auto buckets = [&s](double params, int dpSize) {
        if (!s.overlap_grad_reduce || params <= 0)
            return 1.0;
        return std::max(1.0, std::ceil(params / std::max(40e6, 1e6 * dpSize)));
    };
    const double denseBuckets = buckets(denseParams, denseDp.size);
    const double expertBuckets = buckets(expertParams, expertDp.size);
    auto reduce = [&](double bytes, hardware::GroupShape group) {
        return s.zero == 0 ? hw.allReduceS(bytes, group) : hw.reduceScatterS(bytes, group);
    };
    const double denseGrad = denseBuckets * reduce(gradBytes * denseParams / denseBuckets, denseDp);
    const double expertGrad = expertBuckets * reduce(gradBytes * expertParams / expertBuckets, expertDp);
    t.grad_s = scale * (denseGrad + expertGrad);
    t.last_bucket_s = scale * (expertParams > 0 ? expertGrad / expertBuckets : denseGrad / denseBuckets);
    if (s.zero >= 1) {
        const double denseGather = denseBuckets * hw.allGatherS(2 * denseParams / denseBuckets, denseDp);
        const double expertGather = expertBuckets * hw.allGatherS(2 * expertParams / expertBuckets, expertDp);
        t.gather_total_s = scale * (denseGather + expertGather);
        t.first_bucket_s = scale * denseGather / denseBuckets;
    }
    return t;
}

DpExposure dpExposure(const ParallelStrategy& s, const DpTraffic& dp, const GradientReduction& reduction,
    double dpOverlap, const DpStageTiming& t)
{
    const int i = t.stage_index;
    const int v = t.v;
    const int m = t.m;
    double exposedS = 0;
    double commS = 0;
    double copyOutS = 0; // compute-stream work the gathers add (ZeRO 3 under FSDP2), not traffic
    if (s.zero == 3) {
        // FSDP2 / Megatron-FSDP: one unit per layer, all-gathered before its forward with a
        // prefetch depth of 1 (the next layer's gather runs under this layer's compute), and
        // again before its backward, where it shares the communication stream with the
        // reduce-scatter of the layer just done; the first gather and the last reduce-scatter
        // have nothing to hide under. torchtitan keeps the weights unsharded between forward
        // and backward under pipeline parallelism (reshard_after_forward "default" is
        // `not pp_enabled`, torchtitan/distributed/fsdp.py, pytorch/torchtitan b5bcd76).
        // The reduce-scatters run in every backward, or (torchtitan under PP, gradientReduction())
        // only in the last micro-batch's, the others accumulating unsharded.
        const int L = std::max(1, t.layers);
        const double f = dpOverlap * t.forward_s / L;
        const double b = dpOverlap * t.backward_s / L;
        const double backwardGather = s.pp > 1 ? 0.0 : dp.gather_s;
        const double forwardExposed = dp.gather_s + (L - 1) * std::max(0.0, dp.gather_s - f);
        auto backwardExposed = [&](double reduce) {
            return backwardGather + (L - 1) * std::max(0.0, backwardGather + reduce - b) + reduce;
        };
        const int reductions = reduction.reductions(m);
        exposedS = m * forwardExposed + reductions * backwardExposed(dp.reduce_s)
            + (m - reductions) * backwardExposed(0.0);
        // FSDP2's copy-out of every all-gather, on the compute stream (dpTrafficTimes).
        copyOutS = L * m * (1 + (backwardGather > 0 ? 1 : 0)) * dp.copy_out_s;
        commS = L * (m * (dp.gather_s + backwardGather) + reductions * dp.reduce_s);
    } else {
        // Megatron's DDP and distributed optimizer (--overlap-grad-reduce, --overlap-param-gather):
        // one reduction per iteration. Megatron's interleaved schedule lifts no_sync for a model
        // chunk at that chunk's last micro-batch (schedules.py, backward_step_helper_preprocess:
        // is_last_microbatch_for_model_chunk -> enable_grad_sync), each bucket's reduce is
        // launched on the communication stream as its gradients are ready
        // (param_and_grad_buffer.py, register_grad_ready -> start_grad_sync, async_op) and only
        // finalize_model_grads waits (finish_grad_sync), before the optimizer: a chunk's traffic
        // hides under the rest of the schedule, the later chunks' backwards included
        // (NVIDIA/Megatron-LM d98e8a64). In the cooldown the backwards run in groups of g = min(m, N)
        // micro-batches per chunk, N the micro-batch group (microbatch_group_size_per_vp_stage, p by
        // default; get_schedule_table), chunk v - 1 first (get_model_chunk_id), so the last k chunks
        // to complete start their last backward (k - 1)·g + 1 chunk steps before the stage's end,
        // and stage i ends i chunk steps before stage 0 (the pipeline flush). The chunks queue on
        // one stream (FIFO): whatever of the last k chunks' traffic does not fit in that time is
        // exposed, the worst k binding; at least the last bucket. The parameter gathers mirror it
        // in the first forwards (chunk k's first forward comes k·g steps in, stage i i steps late).
        // Without overlap everything waits for the end of the backward.
        const double hide = s.overlap_grad_reduce ? dpOverlap : 0.0;
        const int g = std::max(1, std::min(m, s.microbatchGroupSize()));
        auto queueExposed = [&](double traffic, double chunkComputeS, double edge) {
            double exposed = s.overlap_grad_reduce ? edge : traffic;
            for (int k = 1; k <= v; ++k) {
                const double windowChunks = std::min(double(m) * v, double((k - 1) * g + 1 + i));
                exposed = std::max(exposed, traffic * k / v - hide * windowChunks * chunkComputeS);
            }
            return exposed;
        };
        double gradExposed = queueExposed(dp.grad_s, t.backward_s / v, dp.last_bucket_s);
        if (reduction.chunk_waits && v > 1) {
            // FSDP2 under pipelining (GradientReduction::chunk_waits): the end of each chunk's
            // last backward waits for its reduce-scatters, so each chunk's traffic hides under
            // that backward only; the last chunk to complete also under stage i's flush.
            const double chunkGradS = dp.grad_s / v;
            const double chunkBackwardS = t.backward_s / v;
            const double edge = s.overlap_grad_reduce ? std::min(dp.last_bucket_s, chunkGradS) : chunkGradS;
            gradExposed = (v - 1) * std::max(edge, chunkGradS - hide * chunkBackwardS)
                + std::max(edge, chunkGradS - hide * (1 + i) * chunkBackwardS);
        }
        double gatherExposed
            = dp.gather_total_s <= 0 ? 0.0 : queueExposed(dp.gather_total_s, t.forward_s / v, dp.first_bucket_s);
        commS = dp.grad_s + dp.gather_total_s;
        if (reduction.every_microbatch && m > 1) {
            // Megatron-FSDP, DeepSpeed ZeRO 2, FSDP outside pipelining (gradientReduction()):
            // every backward of a model chunk launches its buckets' reduce-scatters on a side
            // stream as its gradients are ready, and the end of that backward waits for them
            // on the compute stream, so they hide under that backward only, never under the
            // later micro-batches or the pipeline's idle slots:
            // - Megatron-FSDP: _root_post_backward -> GradReducePipeline.reset() ->
            //   wait_for_previous_grad_reduce(0), event.wait() for every queued bucket
            //   (megatron_fsdp.py, param_and_grad_buffer.py, NVIDIA/Megatron-LM d98e8a64);
            // - FSDP2: _root_post_backward_final_callback waits for the last reduce-scatter's
            //   events when is_last_backward (the default: every backward syncs)
            //   (torch/distributed/fsdp/_fully_shard/_fsdp_state.py, pytorch/pytorch 01c9f4fc);
            // - DeepSpeed ZeRO 2 (overlap_comm): independent_gradient_partition_epilogue after
            //   every backward synchronizes the device (deepspeed/runtime/zero/stage_1_and_2.py,
            //   deepspeedai/DeepSpeed 02aa38c3).
            // Per chunk backward: its traffic (the stage's over v) less what that backward hides,
            // at least its last bucket; m·v of them. Gathered every micro-batch (FSDP2 reshards
            // after the backward), the weights are prefetched under the next forward, the
            // first bucket exposed.
            const double chunkGradS = dp.grad_s / v;
            const double edge = s.overlap_grad_reduce ? std::min(dp.last_bucket_s, chunkGradS) : chunkGradS;
            gradExposed = double(m) * v * std::max(edge, chunkGradS - hide * t.backward_s / v);
            if (reduction.gather_every_microbatch) {
                const double gatherEdge = s.overlap_grad_reduce ? dp.first_bucket_s : dp.gather_total_s;
                gatherExposed = m * std::max(gatherEdge, dp.gather_total_s - hide * t.forward_s);
            }
            commS = m * dp.grad_s + (reduction.gather_every_microbatch ? m : 1) * dp.gather_total_s;
        }
        exposedS = gradExposed + gatherExposed;
    }
    // The traffic that hides under the compute slows it: NCCL's CTAs take SMs from the overlapped
    // kernels (DpTraffic::compute_slowdown), for as long as the two run together: the hidden
    // traffic, at most the stage's compute (every rule above hides it under compute kernels).
    const double hiddenS = std::max(0.0, commS - exposedS);
    const double computeS = m * (t.forward_s + t.backward_s);
    exposedS += dp.compute_slowdown * std::min(hiddenS, computeS);
    return { exposedS + copyOutS, commS };
}

} // namespace stratex::megatron
