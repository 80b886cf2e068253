// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Context parallelism's other exchanges beside the ring (cp_ring.h): Transformer Engine's
// all-gather CP and the hierarchical a2a+p2p (docs/context-parallel.md). Internal to core/megatron.

#include "core/megatron/cp_ring.h"

namespace stratex::megatron {

// The a2a level of Megatron's hierarchical CP (--cp-comm-type a2a+p2p with
// --hierarchical-context-parallel-sizes a p): Megatron-Core transformer_config.py puts the a2a on
// the low level, "e.g., via NVLink", the ring on the high level "via IBLink", so a is the largest
// divisor of cp whose a x tp ranks fit in a node and over which each TP rank's query and
// key/value heads divide (Transformer Engine's a2a asserts that). 1 when none does: TE then runs
// the plain ring (context_parallel.py attn_forward_func_with_cp), cp when the whole CP group is in
// the node: plain Ulysses.
int cpA2aGroupSize(int cp, int tp, int gpusPerNode, int headsPerTpRank, int kvHeadsPerTpRank);

// Transformer Engine's AttnFuncWithCPAndKVAllGather (cp_comm_type all_gather): the forward
// all-gathers K and V on the compute stream before its two attention steps (the rank's two
// load-balanced chunks), the backward gathers them again and reduce-scatters dK and dV after its
// steps. Megatron-Core transformer_config.py: "The all-gather is not async, and cannot be
// overlapped": every transfer is exposed.
CpRingExposure allGatherCpExposure(double kvAllGatherS, double dkvReduceScatterS);

// The work all-gather CP adds beyond the layer's one attention kernel a pass: the second step's
// attention kernel, the reorders of the gathered K/V (index_select: read and write the gathered
// bytes) and in the backward the steps' dK/dV added into full-sequence buffers and reordered back.
// gatheredKvBytes: every rank's K and V on one rank (cp x the rank's chunk).
CpRingWork allGatherCpWork(double gatheredKvBytes);

} // namespace stratex::megatron
