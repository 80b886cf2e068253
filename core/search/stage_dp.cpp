// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/search/stage_dp.h"

#include <algorithm>
#include <functional>

namespace stratex::search {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::uint64_t heapKey(std::int32_t startMb, int strategy)
{
    return (std::uint64_t(std::uint32_t(startMb)) << 20) | std::uint64_t(strategy);
}

} // namespace

void StageDp::collectEvents(int layer)
{
    // Merge the change points of every column of `layer` in ascending MB; only changes of the value
    // matter to the next layer (a change of argmin alone does not).
    const int S = m_strategies;
    m_events.clear();
    m_heap.clear();
    for (int a = 0; a < S; ++a) {
        m_cursor[std::size_t(a)] = m_offsets[std::size_t(layer * S + a)];
        m_candidate[std::size_t(a)] = kInfinity; // last value seen per column
        if (m_cursor[std::size_t(a)] < m_offsets[std::size_t(layer * S + a + 1)])
            m_heap.push_back(heapKey(m_segments[m_cursor[std::size_t(a)]].start_mb, a));
    }
    const auto later = std::greater<std::uint64_t>();
    std::make_heap(m_heap.begin(), m_heap.end(), later);
    while (!m_heap.empty()) {
        std::pop_heap(m_heap.begin(), m_heap.end(), later);
        const int a = int(m_heap.back() & 0xFFFFF);
        m_heap.pop_back();
        std::uint32_t& cursor = m_cursor[std::size_t(a)];
        const Segment& segment = m_segments[cursor];
        if (segment.value != m_candidate[std::size_t(a)]) {
            m_events.push_back({ segment.start_mb, a, segment.value });
            m_candidate[std::size_t(a)] = segment.value;
        }
        ++cursor;
        if (cursor < m_offsets[std::size_t(layer * S + a + 1)]) {
            m_heap.push_back(heapKey(m_segments[cursor].start_mb, a));
            std::push_heap(m_heap.begin(), m_heap.end(), later);
        }
    }
}

void StageDp::run(const Problem& problem, const ProgressSink* cancel)
{
    const int S = problem.strategies;
    const int M = problem.budget_mb;
    m_budget = M;
    m_strategies = S;
    m_depth = 0;
    m_weights.assign(problem.weight_mb, problem.weight_mb + S);
    m_segments.clear();
    m_offsets.assign(1, 0);
    m_cursor.resize(std::size_t(S));
    m_candidate.resize(std::size_t(S));
    m_bestValue.resize(std::size_t(S));
    m_bestIndex.resize(std::size_t(S));
    if (m_columns.size() < std::size_t(S))
        m_columns.resize(std::size_t(S));
    m_heap.reserve(std::size_t(S));
    m_updated.reserve(std::size_t(S));
    // Column-major copy of the transition costs: target s reads inter[a][s] for every a.
    std::vector<double>& interByTarget = m_interByTarget;
    interByTarget.resize(std::size_t(S) * std::size_t(S));
    for (int a = 0; a < S; ++a) {
        for (int s = 0; s < S; ++s)
            interByTarget[std::size_t(s * S + a)] = problem.inter_s[std::size_t(a * S + s)];
    }

    for (int layer = 0; layer < problem.layers; ++layer) {
        if (cancel)
            cancel->throwIfCancelled();
        if (layer == 0) {
            // Before the first layer f is 0 for every row and strategy.
            m_events.clear();
            for (int a = 0; a < S; ++a)
                m_events.push_back({ 0, a, 0.0 });
        } else {
            collectEvents(layer - 1);
        }
        for (int s = 0; s < S; ++s) {
            m_bestValue[std::size_t(s)] = kInfinity;
            m_bestIndex[std::size_t(s)] = -1;
            m_columns[std::size_t(s)].clear();
        }
        std::size_t next = 0;
        while (next < m_events.size()) {
            const std::int32_t row = m_events[next].start_mb;
            m_updated.clear();
            for (; next < m_events.size() && m_events[next].start_mb == row; ++next) {
                m_candidate[std::size_t(m_events[next].strategy)] = m_events[next].value;
                m_updated.push_back(m_events[next].strategy);
            }
            for (int s = 0; s < S; ++s) {
                const int weight = m_weights[std::size_t(s)];
                if (row > M - weight)
                    continue;
                const double intra = problem.intra_s[s];
                const double* inter = &interByTarget[std::size_t(s * S)];
                double best = m_bestValue[std::size_t(s)];
                std::int32_t bestIndex = m_bestIndex[std::size_t(s)];
                for (const std::int32_t a : m_updated) {
                    const double c = (m_candidate[std::size_t(a)] + inter[a]) + intra;
                    if (a == bestIndex)
                        best = c; // its candidate only fell: it still beats every unchanged one
                    else if (c < best || (c == best && a < bestIndex)) {
                        best = c;
                        bestIndex = a;
                    }
                }
                if (best != m_bestValue[std::size_t(s)] || bestIndex != m_bestIndex[std::size_t(s)]) {
                    m_bestValue[std::size_t(s)] = best;
                    m_bestIndex[std::size_t(s)] = bestIndex;
                    m_columns[std::size_t(s)].push_back({ row + weight, bestIndex, best });
                }
            }
        }
        for (int s = 0; s < S; ++s) {
            const auto& column = m_columns[std::size_t(s)];
            m_segments.insert(m_segments.end(), column.begin(), column.end());
            m_offsets.push_back(std::uint32_t(m_segments.size()));
        }
        m_depth = layer + 1;
    }
}

const StageDp::Segment* StageDp::find(int layer, int strategy, int row) const
{
    const std::size_t column = std::size_t(layer * m_strategies + strategy);
    const Segment* begin = m_segments.data() + m_offsets[column];
    const Segment* end = m_segments.data() + m_offsets[column + 1];
    const Segment* after
        = std::upper_bound(begin, end, row, [](int r, const Segment& segment) { return r < segment.start_mb; });
    return after == begin ? nullptr : after - 1;
}

double StageDp::value(int layers, int row, int strategy) const
{
    if (layers < 1 || layers > m_depth || row < 0 || row > m_budget)
        return kInfinity;
    const Segment* segment = find(layers - 1, strategy, row);
    return segment ? segment->value : kInfinity;
}

StageDp::Readout StageDp::readout(int row, int layers, std::span<int> plan) const
{
    Readout result;
    if (row < 0 || layers < 1 || layers > m_depth)
        return result;
    row = std::min(row, m_budget);
    const int last = layers - 1;
    int chosen = -1;
    double best = kInfinity;
    for (int s = 0; s < m_strategies; ++s) {
        const Segment* segment = find(last, s, row);
        if (segment && segment->value < best) {
            best = segment->value;
            chosen = s;
        }
    }
    if (chosen < 0)
        return result;
    plan[std::size_t(last)] = chosen;
    int m = row;
    for (int i = last; i >= 1; --i) {
        const int current = plan[std::size_t(i)];
        plan[std::size_t(i - 1)] = find(i, current, m)->mark;
        m -= m_weights[std::size_t(current)];
    }
    result.feasible = true;
    result.objective_s = best;
    result.remaining_mb = m - m_weights[std::size_t(plan[0])];
    return result;
}

} // namespace stratex::search
