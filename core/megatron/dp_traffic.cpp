// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/dp_traffic.h"

#include <algorithm>
#include <cmath>

namespace stratex::megatron {

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
