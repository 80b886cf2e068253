// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/schedule_cyclic.h"

#include <algorithm>
#include <numeric>

namespace stratex::sim::detail {

namespace {

constexpr double kMemoryToleranceMb = 1e-9;

class CyclicPass {
public:
    CyclicPass(const SimGraph& graph, const CyclicOptions& options)
        : m_graph(graph)
        , m_ops(graph.ops())
        , m_options(options)
        , m_keys(2 * graph.stageCount())
        , m_buffers(static_cast<std::size_t>(graph.executorCount() * m_keys))
        , m_heads(m_buffers.size(), 0)
        , m_executorBuffers(static_cast<std::size_t>(graph.executorCount()))
        , m_readyUs(m_ops.size(), 0.0)
        , m_held(static_cast<std::size_t>(graph.deviceCount() * graph.microbatchCount()), 0)
        , m_inflight(static_cast<std::size_t>(graph.deviceCount()), 0)
    {
        m_result.orders.resize(static_cast<std::size_t>(graph.executorCount()));
        SimRun& run = m_result.run;
        run.start_us.assign(m_ops.size(), 0.0);
        run.start_order.assign(m_ops.size(), 0);
        m_memory.start(graph, run);
    }

    CyclicRun run()
    {
        for (int j = 0; j < m_graph.microbatchCount(); ++j)
            enqueue(m_graph.firstOp(j));
        std::size_t remaining = m_ops.size();
        // Every cycle without a starved pipeline runs at least one op.
        const std::size_t maxCycles = m_ops.size() + 1;
        double cycleStart = 0;
        while (remaining > 0 && static_cast<std::size_t>(m_result.cycles) < maxCycles) {
            m_cycleStart = cycleStart;
            m_cycleEnd = cycleStart;
            m_executed = 0;
            m_nextCycle.clear();
            for (int device = 0; device < m_graph.deviceCount(); ++device)
                runExecutor(computeExecutor(device));
            for (int device = 0; device < m_graph.deviceCount(); ++device)
                runExecutor(commExecutor(device));
            for (std::int32_t op : m_nextCycle)
                enqueue(op);
            if (m_executed == 0)
                break;
            remaining -= m_executed;
            ++m_result.cycles;
            cycleStart = m_cycleEnd;
        }
        SimRun& run = m_result.run;
        run.complete = remaining == 0;
        run.makespan_us = cycleStart;
        assignStartOrder();
        return std::move(m_result);
    }

private:
    int bufferOf(std::int32_t op) const
    {
        const SimOp& o = m_ops[static_cast<std::size_t>(op)];
        return o.executor * m_keys + o.flat_stage;
    }

    void enqueue(std::int32_t op)
    {
        const int buffer = bufferOf(op);
        auto& queue = m_buffers[static_cast<std::size_t>(buffer)];
        if (queue.empty())
            m_executorBuffers[static_cast<std::size_t>(m_ops[static_cast<std::size_t>(op)].executor)].push_back(buffer);
        queue.push_back(op);
    }

    bool before(std::int32_t a, std::int32_t b) const
    {
        const SimOp& x = m_ops[static_cast<std::size_t>(a)];
        const SimOp& y = m_ops[static_cast<std::size_t>(b)];
        if (x.position != y.position)
            return x.position < y.position;
        return x.flat_stage < y.flat_stage;
    }

    // The head of every buffer, backward direction interleaved with forward, backward first.
    void cycleOrder(int executor)
    {
        m_backward.clear();
        m_forward.clear();
        for (int buffer : m_executorBuffers[static_cast<std::size_t>(executor)]) {
            const auto& queue = m_buffers[static_cast<std::size_t>(buffer)];
            const std::size_t head = m_heads[static_cast<std::size_t>(buffer)];
            if (head >= queue.size())
                continue;
            const std::int32_t op = queue[head];
            (m_ops[static_cast<std::size_t>(op)].isBackwardDirection() ? m_backward : m_forward).push_back(op);
        }
        auto less = [this](std::int32_t a, std::int32_t b) { return before(a, b); };
        std::sort(m_backward.begin(), m_backward.end(), less);
        std::sort(m_forward.begin(), m_forward.end(), less);
        m_order.clear();
        for (std::size_t i = 0; i < std::max(m_backward.size(), m_forward.size()); ++i) {
            if (i < m_backward.size())
                m_order.push_back(m_backward[i]);
            if (i < m_forward.size())
                m_order.push_back(m_forward[i]);
        }
    }

    bool admits(const SimOp& op) const
    {
        if (op.kind != OpKind::Forward)
            return true;
        const auto device = static_cast<std::size_t>(deviceOfExecutor(op.executor));
        if (heldCount(device, op.position) > 0)
            return true; // not a new micro-batch on this device
        // DynaPipe checks current + peak; the level after the op is bounded too, so the limit
        // also holds for layers that store more than their forward peak.
        const double highest = m_memory.currentMb(device) + std::max(op.peak_mb, op.stored_delta_mb);
        if (m_options.memory_limit_mb > 0 && highest > m_options.memory_limit_mb + kMemoryToleranceMb)
            return false;
        if (m_options.max_inflight_microbatches > 0 && m_inflight[device] >= m_options.max_inflight_microbatches)
            return false;
        return true;
    }

    int& heldCount(std::size_t device, int position)
    {
        return m_held[device * static_cast<std::size_t>(m_graph.microbatchCount())
            + static_cast<std::size_t>(position)];
    }
    int heldCount(std::size_t device, int position) const
    {
        return m_held[device * static_cast<std::size_t>(m_graph.microbatchCount())
            + static_cast<std::size_t>(position)];
    }

    void account(const SimOp& op)
    {
        const auto device = static_cast<std::size_t>(deviceOfExecutor(op.executor));
        m_memory.account(device, op, m_result.run);
        const bool releases = op.kind == OpKind::Weight || (op.kind == OpKind::Backward && op.side < 0);
        if (op.kind == OpKind::Forward) {
            if (heldCount(device, op.position)++ == 0)
                ++m_inflight[device];
        } else if (releases) {
            if (--heldCount(device, op.position) == 0)
                --m_inflight[device];
        }
    }

    void runExecutor(int executor)
    {
        cycleOrder(executor);
        const bool constrained
            = !isCommExecutor(executor) && (m_options.memory_limit_mb > 0 || m_options.max_inflight_microbatches > 0);
        double t = m_cycleStart;
        SimRun& run = m_result.run;
        for (std::int32_t op : m_order) {
            const SimOp& o = m_ops[static_cast<std::size_t>(op)];
            if (constrained && !admits(o))
                continue;
            const double start = std::max(t, m_readyUs[static_cast<std::size_t>(op)]);
            run.start_us[static_cast<std::size_t>(op)] = start;
            run.start_order[static_cast<std::size_t>(op)] = m_sequence++;
            t = start + o.duration_us;
            ++m_heads[static_cast<std::size_t>(bufferOf(op))];
            m_result.orders[static_cast<std::size_t>(executor)].push_back(op);
            ++m_executed;
            if (!o.isComm())
                account(o);
            for (std::int32_t successor : { o.next, o.side }) {
                if (successor < 0)
                    continue;
                if (!o.isComm() && m_ops[static_cast<std::size_t>(successor)].isComm()) {
                    m_readyUs[static_cast<std::size_t>(successor)] = t; // fast-forwarded this cycle
                    enqueue(successor);
                } else {
                    m_nextCycle.push_back(successor);
                }
            }
        }
        m_cycleEnd = std::max(m_cycleEnd, t);
    }

    // Global start order = by start time, ties in the order the pass ran them.
    void assignStartOrder()
    {
        SimRun& run = m_result.run;
        std::vector<std::int32_t> ids(m_ops.size());
        std::iota(ids.begin(), ids.end(), 0);
        std::stable_sort(ids.begin(), ids.end(), [&](std::int32_t a, std::int32_t b) {
            const auto ia = static_cast<std::size_t>(a);
            const auto ib = static_cast<std::size_t>(b);
            if (run.start_us[ia] != run.start_us[ib])
                return run.start_us[ia] < run.start_us[ib];
            return run.start_order[ia] < run.start_order[ib];
        });
        for (std::size_t rank = 0; rank < ids.size(); ++rank)
            run.start_order[static_cast<std::size_t>(ids[rank])] = static_cast<std::uint32_t>(rank);
    }

    const SimGraph& m_graph;
    const std::vector<SimOp>& m_ops;
    CyclicOptions m_options;
    int m_keys;
    std::vector<std::vector<std::int32_t>> m_buffers; // per (executor, flattened stage)
    std::vector<std::size_t> m_heads;
    std::vector<std::vector<int>> m_executorBuffers; // buffers each executor has ever used
    std::vector<double> m_readyUs; // fast-forwarded comm ops: when their data is there
    std::vector<int> m_held; // per (device, position): forwards minus releasing backwards
    std::vector<int> m_inflight; // per device: micro-batches holding activations
    DeviceMemory m_memory; // of the ops accounted
    std::vector<std::int32_t> m_backward, m_forward, m_order, m_nextCycle;
    CyclicRun m_result;
    double m_cycleStart = 0;
    double m_cycleEnd = 0;
    std::size_t m_executed = 0;
    std::uint32_t m_sequence = 0;
};

} // namespace

CyclicRun runCyclic(const SimGraph& graph, const CyclicOptions& options)
{
    return CyclicPass(graph, options).run();
}

} // namespace stratex::sim::detail
