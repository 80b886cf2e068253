// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: the fixed per-device compute orders of the static schedules. Comm
// executors get no order (first come, first served).

#include "core/sim/sim_engine.h"

namespace stratex::sim::detail {

// GPipe: F0..F(m-1), then B0..B(m-1). Linear layouts.
ExecutorOrders gpipeOrders(const SimGraph& graph, const PipelineLayout& layout);

// 1F1B: stage s runs min(p-s, m) warm-up forwards, then B/F alternation, then the remaining
// backwards, strictly in micro-batch order. Linear layouts.
ExecutorOrders oneFOneBOrders(const SimGraph& graph, const PipelineLayout& layout);

// Megatron's interleaved 1F1B: warm-up min((p-r-1)*2 + (c-1)*p, (m/p)*p*c) forward chunk-ops
// (m*c when that is 0), then F/B alternation, then the remaining backwards. Forward op t runs
// chunk (t mod pc)/p of micro-batch (t/pc)*p + t mod p; backward chunks run in reverse. When m is
// not a multiple of p, the slots of the missing micro-batches of the last group are skipped.
ExecutorOrders interleavedOrders(const SimGraph& graph, const PipelineLayout& layout);

// The Llama 3 schedule (Dubey et al. 2024, "The Llama 3 Herd of Models", §3.3.2, Figure 6):
// interleaved 1F1B whose chunks run N contiguous micro-batches ("N is the number of continuous
// micro-batches for the same stage's forward or backward. Our key insight is to make N tunable").
// The order is Megatron-Core's tunable schedule table (megatron/core/pipeline_parallel/schedules.py,
// get_schedule_table and get_pp_rank_microbatches, NVIDIA/Megatron-LM 4295be1 and d98e8a6): the
// micro-batches in groups of N (the last group holds the rest, 1..N), each group visiting chunks
// 0..c-1 forward, N micro-batches per chunk; backward op t runs chunk c-1-chunk(t) of the same
// micro-batch; rank r warms up min((p-r-1)*2 + (c-1)*N, m*c) forward ops, then F/B pairs, then
// the remaining backwards. N = p with m a multiple of p is interleavedOrders(); N = m is the
// breadth-first schedule (Lamy-Poirier 2023). Megatron-Core asks p <= N <= m and a last group of
// 0 or at least p micro-batches; Llama 3 also runs m < p ("fewer micro-batches than the number of
// stages") as one group, N = m. Other N deadlock under this warm-up; simulate() refuses them.
ExecutorOrders flexibleInterleavedOrders(const SimGraph& graph, const PipelineLayout& layout, int groupSize);

// ZB-H1: the 1F1B order of F and B; stage s runs W(i-s) right after B(i) (its weight gradients
// lag s micro-batches behind, filling the cool-down bubbles), the lagging Ws at the end.
ExecutorOrders zbH1Orders(const SimGraph& graph, const PipelineLayout& layout);

// DualPipeV on a V layout (vShapeLayout: stage r and stage 2p-1-r on device r) with the
// backward split into B and W. Per device r, DeepSeek's eight steps (deepseek-ai/DualPipe,
// dualpipev.py), chunk 0 going down the V and chunk 1 coming back, each chunk's micro-batches in
// order: 2(p-r-1) x F0; r+1 x (F0 F1); p-r-1 x (B1 W F1); m-2p+r+1 x (F0 B1 F1 B0); p-r-1 x
// (B1 F1 B0); r+1 x (B1 B0); p-r-1 x (W B0); r+1 x W. A B runs its W right after it ("full"
// backward) except the zero-bubble ones, whose Ws wait in a FIFO for the W steps: those of steps
// 3 and 7 and the second half of step 6. Needs m >= 2p (DualPipe's assert).
ExecutorOrders dualPipeVOrders(const SimGraph& graph, const PipelineLayout& layout);

// ZB-V (Qi et al. 2024 §6) on a V layout with the B/W split, per device r in the order of
// PyTorch's ScheduleZBVZeroBubble: 2(p-r)-1 x F0; r x (F1 F0); p-r x (F1 B1 W1); then, while
// chunk 1 trails chunk 0 or forwards remain, (F0 if any left) B0 W0 F1 B1 W1; then r x (B0 B1)
// with their Ws deferred, p-r x (B0, the oldest deferred W0), the deferred W1s, the rest of the
// W0s. The order is laid out for max(m, 2p-1) micro-batches and the ops of the missing ones are
// skipped, as PyTorch does; any m >= 1 runs.
ExecutorOrders zbVOrders(const SimGraph& graph, const PipelineLayout& layout);

} // namespace stratex::sim::detail
