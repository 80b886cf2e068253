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

DpTraffic dpTrafficTimes(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale)
{
    if (isHybridSharded(s)) // HSDP: shard-group collectives and the replicas' all-reduce (hsdp.h)
        return hsdpTrafficTimes(s, hw, denseParams, expertParams, layers, scale);
    DpTraffic t;
    if (s.zero == 3) {
        const int L = std::max(1, layers);
        t.gather_s
            = scale * (hw.allGatherS(2 * denseParams / L, denseDp) + hw.allGatherS(2 * expertParams / L, expertDp));
        t.reduce_s = scale
            * (hw.reduceScatterS(4 * denseParams / L, denseDp) + hw.reduceScatterS(4 * expertParams / L, expertDp));
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
    const double denseGrad = denseBuckets * reduce(4 * denseParams / denseBuckets, denseDp);
    const double expertGrad = expertBuckets * reduce(4 * expertParams / expertBuckets, expertDp);
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
    const int p = t.p;
    const int v = t.v;
    const int m = t.m;
    double exposedS = 0;
    double commS = 0;
    // The share of the hidden traffic that runs beside compute kernels (below): 1 where the
    // traffic hides under the backwards themselves, less where it also runs through idle slots.
    double besideComputeShare = 1.0;
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
        commS = L * (m * (dp.gather_s + backwardGather) + reductions * dp.reduce_s);
    } else {
        // Megatron's DDP (--overlap-grad-reduce, --overlap-param-gather): gradients are
        // reduced once per iteration in buckets, each launched when the last micro-batch's
        // backward has produced it, so the rest of that backward hides the traffic and the
        // last bucket is always exposed; the parameter all-gathers of the distributed
        // optimizer run bucket by bucket under the next forward, the first exposed.
        // Without overlap everything waits for the end of the backward.
        // The window: a model chunk's gradients are final after its last backward, and under
        // interleaving the last backwards of chunks v-1 .. 1 come (v - 1)·p chunk steps before
        // the last one (Megatron's interleaved 1F1B cooldown, schedules.py); stage i also ends
        // i chunk steps before stage 0 (the pipeline flush). The parameter gathers mirror it in
        // the first forwards: chunk j's first forward comes j·p steps into the warm-up, and
        // stage i starts i steps late.
        const double hide = s.overlap_grad_reduce ? dpOverlap : 0.0;
        const double windowChunks = std::min(double(m) * v, double((v - 1) * p + v + i));
        double gradExposed = std::max(
            s.overlap_grad_reduce ? dp.last_bucket_s : dp.grad_s, dp.grad_s - hide * windowChunks * t.backward_s / v);
        double gatherExposed = dp.gather_total_s <= 0
            ? 0.0
            : std::max(s.overlap_grad_reduce ? dp.first_bucket_s : dp.gather_total_s,
                dp.gather_total_s - hide * windowChunks * t.forward_s / v);
        commS = dp.grad_s + dp.gather_total_s;
        if (reduction.every_microbatch && m > 1) {
            // Megatron-FSDP, DeepSpeed ZeRO 2, FSDP outside pipelining (gradientReduction()):
            // every micro-batch's backward launches its buckets' reduce-scatters, m per
            // iteration, on one communication stream that also carries the gathers when they
            // too come every micro-batch. That stream works independently of the compute
            // stream, through the stage's idle pipeline slots too, from the stage's first
            // backward to the end of the pipeline; whatever does not fit in that window, and
            // the last micro-batch's last bucket, waits at the end of the iteration. The first
            // backward of stage i comes after its warm-up forwards (Megatron's schedules.py:
            // p - i - 1 for 1F1B, (p - i - 1)·2 + (v - 1)·p chunks interleaved), then one
            // more forward, behind the i stages before it, and once the first micro-batch's
            // backward has crossed the p - 1 - i stages after it. Gathered every micro-batch,
            // the weights are prefetched under the forwards from the start.
            const double fChunk = t.forward_s / v;
            const double bChunk = t.backward_s / v;
            const int warmupChunks = std::min(m * v, v > 1 ? (p - i - 1) * 2 + (v - 1) * p : p - i - 1);
            const double firstBackwardS = (i + warmupChunks + 1) * fChunk + (p - 1 - i) * bChunk;
            const double window = std::max(m * t.backward_s, t.pipeline_s - firstBackwardS)
                + (reduction.gather_every_microbatch ? std::min(firstBackwardS, m * t.forward_s) : 0.0);
            const double gathers = reduction.gather_every_microbatch ? m * dp.gather_total_s : 0.0;
            const double perIteration = m * dp.grad_s + gathers;
            const double edges = (s.overlap_grad_reduce ? dp.last_bucket_s : dp.grad_s)
                + (reduction.gather_every_microbatch ? dp.first_bucket_s : 0.0);
            gradExposed = std::max(edges, perIteration - hide * window);
            // The window holds the stage's backwards, its forwards after the warm-up and idle
            // pipeline slots (the bubble, the wait for the stages after it); traffic spread over
            // it meets compute kernels only in the compute's share of the window, and NCCL's CTAs
            // take no SMs from kernels that are not running (the slowdown below, time-weighted).
            const double warmupForwardS = std::min(m * t.forward_s, (warmupChunks + 1) * fChunk);
            const double computeInWindowS = m * t.backward_s + (m * t.forward_s - warmupForwardS)
                + (reduction.gather_every_microbatch ? std::min(warmupForwardS, firstBackwardS) : 0.0);
            if (window > 0)
                besideComputeShare = std::clamp(computeInWindowS / window, 0.0, 1.0);
            if (reduction.gather_every_microbatch)
                gatherExposed = 0;
            commS = perIteration + (reduction.gather_every_microbatch ? 0.0 : dp.gather_total_s);
        }
        exposedS = gradExposed + gatherExposed;
    }
    // The traffic that hides under the compute slows it: NCCL's CTAs take SMs from the overlapped
    // kernels (DpTraffic::compute_slowdown), for as long as the two run together: the hidden
    // traffic's share beside compute kernels, at most the stage's compute.
    const double hiddenS = std::max(0.0, commS - exposedS);
    const double computeS = m * (t.forward_s + t.backward_s);
    exposedS += dp.compute_slowdown * std::min(besideComputeShare * hiddenS, computeS);
    return { exposedS, commS };
}

} // namespace stratex::megatron
