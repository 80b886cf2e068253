// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/stage_dp.h"

#include <algorithm>
#include <bit>

namespace stratex::galvatron {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

} // namespace

void StageDp::addEvent(std::int32_t startMb, std::int32_t strategy, double value)
{
    const auto index = std::int32_t(m_events.size());
    m_events.push_back({ startMb, strategy, value });
    m_bucketNext.push_back(m_bucketHead[std::size_t(startMb)]);
    m_bucketHead[std::size_t(startMb)] = index;
    m_bucketBits[std::size_t(startMb) >> 6] |= std::uint64_t(1) << (startMb & 63);
}

void StageDp::sortEvents()
{
    // Bucket sort by MB: walk the occupied buckets in order (a bit scan, no comparisons), emptying
    // them for the next layer.
    m_order.clear();
    for (std::size_t word = 0; word < m_bucketBits.size(); ++word) {
        std::uint64_t bits = m_bucketBits[word];
        while (bits) {
            const std::size_t bucket = word * 64 + std::size_t(std::countr_zero(bits));
            bits &= bits - 1;
            for (std::int32_t e = m_bucketHead[bucket]; e >= 0; e = m_bucketNext[std::size_t(e)])
                m_order.push_back(e);
            m_bucketHead[bucket] = -1;
        }
        m_bucketBits[word] = 0;
    }
}

void StageDp::collectEvents(int layer)
{
    // Only changes of a column's value matter to the next layer (a change of argmin alone does not).
    const int S = m_strategies;
    m_events.clear();
    m_bucketNext.clear();
    for (int a = 0; a < S; ++a) {
        double last = kInfinity;
        const std::uint32_t end = m_offsets[std::size_t(layer * S + a + 1)];
        for (std::uint32_t i = m_offsets[std::size_t(layer * S + a)]; i < end; ++i) {
            const Segment& segment = m_segments[i];
            if (segment.value != last) {
                addEvent(segment.start_mb, a, segment.value);
                last = segment.value;
            }
        }
    }
    sortEvents();
}

void StageDp::run(const Problem& problem, const ProgressSink* cancel)
{
    const int S = problem.strategies;
    const int M = problem.budget_mb;
    const int n = problem.layers;
    m_budget = M;
    m_strategies = S;
    m_depth = 0;
    m_weights.assign(problem.weight_mb, problem.weight_mb + S);
    m_segments.clear();
    m_offsets.assign(1, 0);
    m_bucketHead.assign(std::size_t(M) + 1, -1);
    m_bucketBits.assign(std::size_t(M) / 64 + 1, 0);
    m_bestValue.resize(std::size_t(S));
    m_bestIndex.resize(std::size_t(S));
    m_lastValue.resize(std::size_t(S));
    m_lastIndex.resize(std::size_t(S));
    m_limit.resize(std::size_t(S));
    if (m_columns.size() < std::size_t(S))
        m_columns.resize(std::size_t(S));

    // Rows worth computing per layer: a read-out at depth d reads row <= maxRow of layer d-1, which
    // reads layer d-2 at rows <= maxRow - minWeight, and so on.
    const int maxRow = problem.max_row < 0 ? M : std::min(problem.max_row, M);
    const int minWeight = *std::min_element(problem.weight_mb, problem.weight_mb + S);
    m_rowLimit.assign(std::size_t(n), -1);
    for (int layer = 0; layer < n; ++layer) {
        int nextDepth = n;
        for (int depth : problem.read_depths) {
            if (depth >= layer + 1 && depth < nextDepth)
                nextDepth = depth;
        }
        const long long limit
            = static_cast<long long>(maxRow) - static_cast<long long>(nextDepth - 1 - layer) * minWeight;
        m_rowLimit[std::size_t(layer)] = int(std::max(-1LL, limit));
    }

    for (int layer = 0; layer < n; ++layer) {
        if (cancel)
            cancel->throwIfCancelled();
        if (layer == 0) {
            // Before the first layer f is 0 for every row and strategy.
            m_events.clear();
            m_order.clear();
            for (int a = 0; a < S; ++a) {
                m_events.push_back({ 0, a, 0.0 });
                m_order.push_back(a);
            }
        } else {
            collectEvents(layer - 1);
        }
        const int rowLimit = m_rowLimit[std::size_t(layer)];
        for (int s = 0; s < S; ++s) {
            m_bestValue[std::size_t(s)] = kInfinity;
            m_bestIndex[std::size_t(s)] = -1;
            m_lastValue[std::size_t(s)] = kInfinity;
            m_lastIndex[std::size_t(s)] = -1;
            m_limit[std::size_t(s)] = double(rowLimit - m_weights[std::size_t(s)]);
            m_columns[std::size_t(s)].clear();
        }
        double* __restrict const best = m_bestValue.data();
        double* __restrict const bestIndex = m_bestIndex.data();
        const double* __restrict const limit = m_limit.data();
        const double* __restrict const intra = problem.intra_s;
        std::size_t next = 0;
        while (next < m_order.size()) {
            const std::int32_t row = m_events[std::size_t(m_order[next])].start_mb;
            if (row > rowLimit - minWeight)
                break; // no target row left in range
            const double rowValue = row;
            // Every candidate a whose value fell at this row competes for every target s. Applying
            // them one by one gives the lexicographic minimum (value, index) over all candidates:
            // unchanged candidates were already beaten by the running best.
            for (; next < m_order.size() && m_events[std::size_t(m_order[next])].start_mb == row; ++next) {
                const Event& event = m_events[std::size_t(m_order[next])];
                const double g = event.value;
                const double a = event.strategy;
                const double* __restrict const inter = problem.inter_s + std::size_t(event.strategy) * std::size_t(S);
                for (int s = 0; s < S; ++s) {
                    const double c = (g + inter[s]) + intra[s];
                    const double b = best[s];
                    const double bi = bestIndex[s];
                    const bool take = (rowValue <= limit[s]) & ((bi == a) | (c < b) | ((c == b) & (a < bi)));
                    best[s] = take ? c : b;
                    bestIndex[s] = take ? a : bi;
                }
            }
            for (int s = 0; s < S; ++s) {
                if (best[s] != m_lastValue[std::size_t(s)] || bestIndex[s] != m_lastIndex[std::size_t(s)]) {
                    m_lastValue[std::size_t(s)] = best[s];
                    m_lastIndex[std::size_t(s)] = bestIndex[s];
                    m_columns[std::size_t(s)].push_back(
                        { row + m_weights[std::size_t(s)], std::int32_t(bestIndex[s]), best[s] });
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
    if (layers < 1 || layers > m_depth || row < 0 || row > m_rowLimit[std::size_t(layers - 1)])
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
    if (row > m_rowLimit[std::size_t(last)])
        return result; // the caller promised not to read here (Problem::max_row / read_depths)
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

} // namespace stratex::galvatron
