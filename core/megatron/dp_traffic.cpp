// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/dp_traffic.h"

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

DpTraffic dpTraffic(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale)
{
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

} // namespace stratex::megatron
