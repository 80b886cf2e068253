// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/cp_comm.h"

namespace stratex::megatron {

int cpA2aGroupSize(int cp, int tp, int gpusPerNode, int headsPerTpRank, int kvHeadsPerTpRank)
{
    int best = 1;
    for (int a = 1; a <= cp; ++a) {
        if (cp % a != 0 || a * tp > gpusPerNode || headsPerTpRank % a != 0 || kvHeadsPerTpRank % a != 0)
            continue;
        best = a;
    }
    return best;
}

CpRingExposure allGatherCpExposure(double kvAllGatherS, double dkvReduceScatterS)
{
    // TE context_parallel.py AttnFuncWithCPAndKVAllGather (NVIDIA/TransformerEngine d0067d0):
    // forward gather_along_first_dim(k), (v) before the steps; backward the same two gathers,
    // then reduce_scatter_along_first_dim(dk), (dv) after cp_stream is joined. All on the
    // compute stream.
    return { kvAllGatherS, kvAllGatherS + dkvReduceScatterS };
}

CpRingWork allGatherCpWork(double gatheredKvBytes)
{
    CpRingWork work;
    // Forward: the second step's attention kernel, K and V's index_select into sequence order,
    // the output and LSE of the two steps written into place (counted in the attention kernel).
    work.forward_kernels = 1 + 2;
    work.forward_bytes = 2 * gatheredKvBytes; // index_select reads and writes the gathered K/V
    // Backward: the second step's kernel, K/V's reorder again, each step's dK and dV added into
    // the full-sequence buffers (dk[...].add_(dk_per_step): read both, write one, over the key
    // range of the step, together about the gathered bytes once more in each of three passes),
    // and dK/dV's reorder back before the reduce-scatter.
    work.backward_kernels = 1 + 2 + 4 + 2;
    work.backward_bytes = (2 + 3 + 2) * gatheredKvBytes;
    return work;
}

} // namespace stratex::megatron
