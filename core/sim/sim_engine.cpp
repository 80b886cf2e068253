// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sim_engine.h"

#include <algorithm>

namespace stratex::sim::detail {

namespace {

constexpr double kSameTimeUs = 1e-6;

struct Event {
    double time_us;
    std::uint32_t sequence; // insertion order breaks ties, so runs are deterministic
    std::int32_t op;
};

// std::push_heap builds a max-heap: "greater" puts the earliest event on top.
struct LaterEvent {
    bool operator()(const Event& a, const Event& b) const
    {
        if (a.time_us != b.time_us)
            return a.time_us > b.time_us;
        return a.sequence > b.sequence;
    }
};

struct ExecutorState {
    bool busy = false;
    bool dirty = false;
    bool fixed = false;
    std::size_t cursor = 0; // fixed order: next op to run; FIFO: head of `queue`
    std::vector<std::int32_t> queue; // FIFO: ready ops in arrival order
};

class Engine {
public:
    Engine(const SimGraph& graph, const ExecutorOrders& orders)
        : m_graph(graph)
        , m_ops(graph.ops())
        , m_orders(orders)
        , m_executors(static_cast<std::size_t>(graph.executorCount()))
        , m_ready(m_ops.size(), 0)
    {
        for (std::size_t e = 0; e < m_executors.size(); ++e)
            m_executors[e].fixed = e < orders.size() && !orders[e].empty();
        if (graph.computeWaitsForPreviousSend())
            setPreviousSendWaits();
        m_run.start_us.assign(m_ops.size(), 0.0);
        m_run.start_order.assign(m_ops.size(), 0);
        m_memory.start(graph, m_run);
        m_events.reserve(static_cast<std::size_t>(2 * graph.executorCount()) + 8);
    }

    SimRun run()
    {
        for (int j = 0; j < m_graph.microbatchCount(); ++j)
            makeReady(m_graph.firstOp(j));
        std::size_t done = 0;
        while (true) {
            offerWork();
            if (m_events.empty())
                break;
            std::pop_heap(m_events.begin(), m_events.end(), LaterEvent {});
            const Event first = m_events.back();
            m_events.pop_back();
            m_now = first.time_us;
            finish(first.op);
            ++done;
            while (!m_events.empty() && m_events.front().time_us <= m_now + kSameTimeUs) {
                std::pop_heap(m_events.begin(), m_events.end(), LaterEvent {});
                const Event next = m_events.back();
                m_events.pop_back();
                finish(next.op);
                ++done;
            }
        }
        m_run.complete = done == m_ops.size();
        return std::move(m_run);
    }

private:
    void markDirty(int executor)
    {
        ExecutorState& state = m_executors[static_cast<std::size_t>(executor)];
        if (!state.dirty) {
            state.dirty = true;
            m_dirty.push_back(executor);
        }
    }

    void makeReady(std::int32_t op)
    {
        m_ready[static_cast<std::size_t>(op)] = 1;
        const int executor = m_ops[static_cast<std::size_t>(op)].executor;
        ExecutorState& state = m_executors[static_cast<std::size_t>(executor)];
        if (!state.fixed)
            state.queue.push_back(op);
        markDirty(executor);
    }

    // SimulationInput::compute_waits_for_previous_send: along each fixed compute order, an op waits
    // for the send of the device's previous op of its direction (none when that op sent nothing:
    // the model's last forward, its first backward, a W op's direction is left alone).
    void setPreviousSendWaits()
    {
        m_waitFor.assign(m_ops.size(), -1);
        m_finished.assign(m_ops.size(), 0);
        for (int device = 0; device < m_graph.deviceCount(); ++device) {
            const auto executor = static_cast<std::size_t>(computeExecutor(device));
            if (executor >= m_orders.size())
                continue;
            std::int32_t lastSend[2] = { -1, -1 }; // [backward direction]
            for (const std::int32_t op : m_orders[executor]) {
                const SimOp& o = m_ops[static_cast<std::size_t>(op)];
                if (o.kind == OpKind::Weight)
                    continue;
                const bool backward = o.kind == OpKind::Backward;
                m_waitFor[static_cast<std::size_t>(op)] = lastSend[backward];
                // The op's send follows it in the flattened graph (sim_graph.h).
                const auto send = static_cast<std::size_t>(op) + 1;
                const bool sends = send < m_ops.size() && m_ops[send].isComm() && m_ops[send].grad == backward
                    && m_ops[send].position == o.position && m_ops[send].stage == o.stage;
                lastSend[backward] = sends ? std::int32_t(send) : -1;
            }
        }
    }

    bool sendWaitDone(std::int32_t op) const
    {
        if (m_waitFor.empty())
            return true;
        const std::int32_t send = m_waitFor[static_cast<std::size_t>(op)];
        return send < 0 || m_finished[static_cast<std::size_t>(send)];
    }

    void finish(std::int32_t op)
    {
        const SimOp& o = m_ops[static_cast<std::size_t>(op)];
        m_executors[static_cast<std::size_t>(o.executor)].busy = false;
        markDirty(o.executor);
        if (!m_waitFor.empty()) {
            m_finished[static_cast<std::size_t>(op)] = 1;
            if (o.isComm()) // a compute op of the sender may wait for it
                markDirty(computeExecutor(deviceOfExecutor(o.executor)));
        }
        if (o.next >= 0)
            makeReady(o.next);
        if (o.side >= 0)
            makeReady(o.side);
    }

    // Comm executors (odd ids) first, then compute executors, each group by device.
    static bool offeredBefore(int a, int b)
    {
        const bool commA = isCommExecutor(a);
        const bool commB = isCommExecutor(b);
        if (commA != commB)
            return commA;
        return a < b;
    }

    void offerWork()
    {
        if (m_dirty.size() > 1)
            std::sort(m_dirty.begin(), m_dirty.end(), offeredBefore);
        for (int executor : m_dirty) {
            ExecutorState& state = m_executors[static_cast<std::size_t>(executor)];
            state.dirty = false;
            if (state.busy)
                continue;
            std::int32_t op = -1;
            if (state.fixed) {
                const auto& order = m_orders[static_cast<std::size_t>(executor)];
                if (state.cursor < order.size() && m_ready[static_cast<std::size_t>(order[state.cursor])]
                    && sendWaitDone(order[state.cursor]))
                    op = order[state.cursor++];
            } else if (state.cursor < state.queue.size()) {
                op = state.queue[state.cursor++];
            }
            if (op >= 0)
                start(op, state);
        }
        m_dirty.clear();
    }

    void start(std::int32_t op, ExecutorState& state)
    {
        const SimOp& o = m_ops[static_cast<std::size_t>(op)];
        state.busy = true;
        m_run.start_us[static_cast<std::size_t>(op)] = m_now;
        m_run.start_order[static_cast<std::size_t>(op)] = m_startSequence++;
        const double end = m_now + o.duration_us;
        m_run.makespan_us = std::max(m_run.makespan_us, end);
        if (!o.isComm())
            m_memory.account(static_cast<std::size_t>(deviceOfExecutor(o.executor)), o, m_run);
        m_events.push_back({ end, m_eventSequence++, op });
        std::push_heap(m_events.begin(), m_events.end(), LaterEvent {});
    }

    const SimGraph& m_graph;
    const std::vector<SimOp>& m_ops;
    const ExecutorOrders& m_orders;
    std::vector<ExecutorState> m_executors;
    std::vector<char> m_ready;
    std::vector<std::int32_t> m_waitFor; // per op: the send it waits for, -1 none; empty: no waits
    std::vector<char> m_finished; // per op, kept only with m_waitFor
    std::vector<int> m_dirty;
    std::vector<Event> m_events;
    DeviceMemory m_memory; // of the ops started
    SimRun m_run;
    double m_now = 0;
    std::uint32_t m_eventSequence = 0;
    std::uint32_t m_startSequence = 0;
};

} // namespace

SimRun runEventDriven(const SimGraph& graph, const ExecutorOrders& orders)
{
    return Engine(graph, orders).run();
}

} // namespace stratex::sim::detail
