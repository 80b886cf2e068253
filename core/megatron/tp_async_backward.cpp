// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/tp_async_backward.h"

#include <algorithm>

#include "core/megatron/framework.h"

namespace stratex::megatron {

double exposedAsyncTpBackwardS(const ColumnLinearBackward& linear, double slowdown)
{
    const double gatherHidden = std::min(linear.regather_s, linear.dgrad_s);
    const double reduceHidden = std::min(linear.grad_reduce_s, linear.wgrad_s);
    return (linear.regather_s - gatherHidden) + (linear.grad_reduce_s - reduceHidden)
        + slowdown * (gatherHidden + reduceHidden);
}

bool runsAsyncTpBackward(const ParallelStrategy& s)
{
    const bool megatron = s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge;
    return megatron && s.tp > 1 && !(s.tp_comm_overlap && s.sequence_parallel) && s.tp_async_backward;
}

} // namespace stratex::megatron
