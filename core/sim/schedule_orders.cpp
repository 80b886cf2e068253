// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/schedule_orders.h"

#include <algorithm>
#include <deque>

namespace stratex::sim::detail {

namespace {

std::vector<std::int32_t>& computeOrder(ExecutorOrders& orders, int device)
{
    return orders[static_cast<std::size_t>(computeExecutor(device))];
}

ExecutorOrders emptyOrders(const SimGraph& graph)
{
    return ExecutorOrders(static_cast<std::size_t>(graph.executorCount()));
}

} // namespace

ExecutorOrders gpipeOrders(const SimGraph& graph, const PipelineLayout& layout)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    for (int k = 0; k < graph.stageCount(); ++k) {
        auto& order = computeOrder(orders, layout.stages[static_cast<std::size_t>(k)].device);
        for (int j = 0; j < m; ++j)
            order.push_back(graph.forwardOp(j, k));
        for (int j = 0; j < m; ++j)
            order.push_back(graph.backwardOp(j, k));
    }
    return orders;
}

namespace {

// The 1F1B skeleton shared by 1F1B and ZB-H1; `weightLag` < 0 means no W ops.
ExecutorOrders oneFOneB(const SimGraph& graph, const PipelineLayout& layout, bool withWeights)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    const int p = graph.stageCount();
    for (int s = 0; s < p; ++s) {
        auto& order = computeOrder(orders, layout.stages[static_cast<std::size_t>(s)].device);
        const int warmup = std::min(p - s, m);
        const int lag = s;
        for (int j = 0; j < warmup; ++j)
            order.push_back(graph.forwardOp(j, s));
        for (int i = 0; i < m; ++i) {
            order.push_back(graph.backwardOp(i, s));
            if (withWeights && i - lag >= 0)
                order.push_back(graph.weightOp(i - lag, s));
            if (warmup + i < m)
                order.push_back(graph.forwardOp(warmup + i, s));
        }
        if (withWeights) {
            for (int i = std::max(0, m - lag); i < m; ++i)
                order.push_back(graph.weightOp(i, s));
        }
    }
    return orders;
}

struct ChunkSlot {
    int microbatch; // >= m: a slot of a missing micro-batch of the last group, skipped
    int chunk;
};

// Megatron's slot grid of one rank: groups of p micro-batches, each group visiting every chunk
// (forward: 0..c-1, backward: c-1..0) for its p micro-batches. The last group keeps the slots of
// its missing micro-batches, so warm-up and F/B pairing line up as for a full group.
std::vector<ChunkSlot> chunkSlots(int m, int p, int c, bool backward)
{
    std::vector<ChunkSlot> slots;
    const int groups = (m + p - 1) / p;
    slots.reserve(static_cast<std::size_t>(groups) * static_cast<std::size_t>(p * c));
    for (int g = 0; g < groups; ++g) {
        for (int within = 0; within < p * c; ++within) {
            const int chunk = backward ? c - 1 - within / p : within / p;
            slots.push_back({ g * p + within % p, chunk });
        }
    }
    return slots;
}

} // namespace

ExecutorOrders oneFOneBOrders(const SimGraph& graph, const PipelineLayout& layout)
{
    return oneFOneB(graph, layout, false);
}

ExecutorOrders zbH1Orders(const SimGraph& graph, const PipelineLayout& layout)
{
    return oneFOneB(graph, layout, true);
}

ExecutorOrders interleavedOrders(const SimGraph& graph, const PipelineLayout& layout)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    const int p = layout.n_devices;
    const int c = layout.n_chunks;
    const std::vector<ChunkSlot> forward = chunkSlots(m, p, c, false);
    const std::vector<ChunkSlot> backward = chunkSlots(m, p, c, true);
    const int total = static_cast<int>(forward.size());
    for (int rank = 0; rank < p; ++rank) {
        const int device = layout.stages[static_cast<std::size_t>(rank)].device;
        auto& order = computeOrder(orders, device);
        int warmup = std::min((p - rank - 1) * 2 + (c - 1) * p, (m / p) * p * c);
        if (warmup == 0)
            warmup = total;
        auto push = [&](const ChunkSlot& slot, bool isForward) {
            if (slot.microbatch >= m)
                return;
            const int stage = slot.chunk * p + rank;
            order.push_back(
                isForward ? graph.forwardOp(slot.microbatch, stage) : graph.backwardOp(slot.microbatch, stage));
        };
        for (int t = 0; t < warmup; ++t)
            push(forward[static_cast<std::size_t>(t)], true);
        for (int i = 0; i < total - warmup; ++i) {
            push(forward[static_cast<std::size_t>(warmup + i)], true);
            push(backward[static_cast<std::size_t>(i)], false);
        }
        for (int i = total - warmup; i < total; ++i)
            push(backward[static_cast<std::size_t>(i)], false);
    }
    return orders;
}

ExecutorOrders flexibleInterleavedOrders(const SimGraph& graph, const PipelineLayout& layout, int groupSize)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    const int p = layout.n_devices;
    const int c = layout.n_chunks;
    const int n = std::clamp(groupSize, 1, std::max(1, m));
    // get_schedule_table: (micro-batch, chunk) of forward op t, the same on every rank.
    std::vector<ChunkSlot> table;
    table.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(c));
    for (int first = 0; first < m; first += n) {
        const int end = std::min(m, first + n);
        for (int chunk = 0; chunk < c; ++chunk) {
            for (int j = first; j < end; ++j)
                table.push_back({ j, chunk });
        }
    }
    const int total = static_cast<int>(table.size());
    for (int rank = 0; rank < p; ++rank) {
        auto& order = computeOrder(orders, layout.stages[static_cast<std::size_t>(rank)].device);
        // get_pp_rank_microbatches: (p - r - 1) * 2 + (c - 1) * N, all of them when that is more.
        const long long warmupWanted = static_cast<long long>(p - rank - 1) * 2 + static_cast<long long>(c - 1) * n;
        const int warmup = static_cast<int>(std::min<long long>(warmupWanted, total));
        auto forward = [&](int t) {
            const ChunkSlot& slot = table[static_cast<std::size_t>(t)];
            order.push_back(graph.forwardOp(slot.microbatch, slot.chunk * p + rank));
        };
        // A chunk's backwards pop its micro-batches in the order its forwards pushed them
        // (schedules.py keeps one input_tensors FIFO per chunk), so backward op t is table entry
        // t with the chunk mirrored.
        auto backward = [&](int t) {
            const ChunkSlot& slot = table[static_cast<std::size_t>(t)];
            order.push_back(graph.backwardOp(slot.microbatch, (c - 1 - slot.chunk) * p + rank));
        };
        for (int t = 0; t < warmup; ++t)
            forward(t);
        for (int i = 0; i < total - warmup; ++i) {
            forward(warmup + i);
            backward(i);
        }
        for (int i = total - warmup; i < total; ++i)
            backward(i);
    }
    return orders;
}

ExecutorOrders dualPipeVOrders(const SimGraph& graph, const PipelineLayout& layout)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    const int p = layout.n_devices;
    for (int r = 0; r < p; ++r) {
        auto& order = computeOrder(orders, layout.stages[static_cast<std::size_t>(r)].device);
        const int stageOf[2] = { r, 2 * p - 1 - r };
        int nextForward[2] = { 0, 0 };
        int nextBackward[2] = { 0, 0 };
        std::deque<std::int32_t> deferredWeights;
        auto forward = [&](int chunk) { order.push_back(graph.forwardOp(nextForward[chunk]++, stageOf[chunk])); };
        auto backward = [&](int chunk, bool zeroBubble) {
            const int j = nextBackward[chunk]++;
            order.push_back(graph.backwardOp(j, stageOf[chunk]));
            if (zeroBubble)
                deferredWeights.push_back(graph.weightOp(j, stageOf[chunk]));
            else
                order.push_back(graph.weightOp(j, stageOf[chunk]));
        };
        auto weight = [&]() {
            order.push_back(deferredWeights.front());
            deferredWeights.pop_front();
        };
        for (int i = 0; i < 2 * (p - r - 1); ++i) // 1: nF0
            forward(0);
        for (int i = 0; i < r + 1; ++i) { // 2: nF0F1
            forward(0);
            forward(1);
        }
        for (int i = 0; i < p - r - 1; ++i) { // 3: nB1W1F1, zero bubble
            backward(1, true);
            weight();
            forward(1);
        }
        for (int i = 0; i < m - 2 * p + r + 1; ++i) { // 4: nF0B1F1B0
            forward(0);
            backward(1, false);
            forward(1);
            backward(0, false);
        }
        for (int i = 0; i < p - r - 1; ++i) { // 5: nB1F1B0
            backward(1, false);
            forward(1);
            backward(0, false);
        }
        const int step6 = r + 1; // 6: nB1B0, the second half zero bubble
        bool zeroBubble = false;
        for (int i = 0; i < step6; ++i) {
            if (i == step6 / 2 && r % 2 == 1)
                zeroBubble = true;
            backward(1, zeroBubble);
            if (i == step6 / 2 && r % 2 == 0)
                zeroBubble = true;
            backward(0, zeroBubble);
        }
        for (int i = 0; i < p - r - 1; ++i) { // 7: nWB0, zero bubble
            weight();
            backward(0, true);
        }
        for (int i = 0; i < r + 1; ++i) // 8: nW
            weight();
    }
    return orders;
}

ExecutorOrders zbVOrders(const SimGraph& graph, const PipelineLayout& layout)
{
    ExecutorOrders orders = emptyOrders(graph);
    const int m = graph.microbatchCount();
    const int p = layout.n_devices;
    const int laidOut = std::max(m, 2 * p - 1);
    for (int r = 0; r < p; ++r) {
        auto& order = computeOrder(orders, layout.stages[static_cast<std::size_t>(r)].device);
        const int stageOf[2] = { r, 2 * p - 1 - r };
        int f[2] = { 0, 0 }; // next forward per chunk
        int b[2] = { 0, 0 }; // next B (input gradient) per chunk
        int w[2] = { 0, 0 }; // next W per chunk
        // Ops of micro-batches beyond m are slots of the laid-out grid only: skipped.
        auto forward = [&](int chunk) {
            if (const int j = f[chunk]++; j < m)
                order.push_back(graph.forwardOp(j, stageOf[chunk]));
        };
        auto inputGrad = [&](int chunk) {
            if (const int j = b[chunk]++; j < m)
                order.push_back(graph.backwardOp(j, stageOf[chunk]));
        };
        auto weightGrad = [&](int chunk) {
            if (const int j = w[chunk]++; j < m)
                order.push_back(graph.weightOp(j, stageOf[chunk]));
        };
        for (int i = 0; i < 2 * (p - r) - 1; ++i)
            forward(0);
        for (int i = 0; i < r; ++i) {
            forward(1);
            forward(0);
        }
        for (int i = 0; i < p - r; ++i) {
            forward(1);
            inputGrad(1);
            weightGrad(1);
        }
        while (f[1] < f[0] || f[0] < laidOut) {
            if (f[0] < laidOut)
                forward(0);
            inputGrad(0);
            weightGrad(0);
            forward(1);
            inputGrad(1);
            weightGrad(1);
        }
        for (int i = 0; i < r; ++i) {
            inputGrad(0);
            inputGrad(1);
        }
        for (int i = 0; i < p - r; ++i) {
            inputGrad(0);
            weightGrad(0);
        }
        while (w[1] < b[1])
            weightGrad(1);
        while (w[0] < b[0])
            weightGrad(0);
    }
    return orders;
}

} // namespace stratex::sim::detail
