// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/recompute_adjust.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

namespace stratex::planner {

std::vector<BackwardRedundancy> backwardRedundancy(const sim::Timeline& timeline)
{
    std::vector<BackwardRedundancy> result;
    for (const sim::DeviceTimeline& device : timeline.devices) {
        std::map<int, double> best; // micro-batch id -> redundancy
        const std::vector<sim::TimelineOp>& ops = device.compute;
        for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
            const sim::TimelineOp& op = ops[i];
            if (op.kind != sim::OpKind::Backward || !(op.duration_us > 0))
                continue;
            const double gap = std::max(0.0, ops[i + 1].start_us - op.endUs());
            const double redundancy = gap / op.duration_us;
            auto [it, inserted] = best.emplace(op.microbatch, redundancy);
            if (!inserted)
                it->second = std::max(it->second, redundancy);
        }
        for (const auto& [microbatch, redundancy] : best)
            result.push_back({ device.device, microbatch, redundancy });
    }
    std::stable_sort(result.begin(), result.end(), [](const BackwardRedundancy& a, const BackwardRedundancy& b) {
        if (a.redundancy != b.redundancy)
            return a.redundancy > b.redundancy;
        if (a.device != b.device)
            return a.device < b.device;
        return a.microbatch < b.microbatch;
    });
    return result;
}

namespace {

// Per micro-batch id (ids are small non-negative integers): (first forward start, last
// backward end) on one device. A flat table, not a map: the adjustment asks "in flight at t?"
// for every over-limit memory sample x every candidate, O(1) each.
struct Spans {
    std::vector<std::pair<double, double>> interval;
    std::vector<char> present;

    void add(const sim::TimelineOp& op)
    {
        const std::size_t id = static_cast<std::size_t>(op.microbatch);
        if (id >= present.size()) {
            present.resize(id + 1, 0);
            interval.resize(id + 1);
        }
        if (!present[id]) {
            present[id] = 1;
            interval[id] = { op.start_us, op.endUs() };
        }
        auto& span = interval[id];
        if (op.kind == sim::OpKind::Forward)
            span.first = std::min(span.first, op.start_us);
        span.second = std::max(span.second, op.endUs());
    }
    bool has(int id) const { return id >= 0 && std::size_t(id) < present.size() && present[std::size_t(id)]; }
};

Spans microbatchSpans(const sim::DeviceTimeline& device)
{
    Spans spans;
    for (const sim::TimelineOp& op : device.compute) {
        if (op.microbatch >= 0)
            spans.add(op);
    }
    return spans;
}

} // namespace

std::vector<int> inflightAtPeak(const sim::DeviceTimeline& device)
{
    if (device.memory.empty())
        return {};
    double peakTime = device.memory.front().time_us;
    double peak = device.memory.front().mem_mb;
    for (const sim::MemorySample& sample : device.memory) {
        if (sample.mem_mb > peak) {
            peak = sample.mem_mb;
            peakTime = sample.time_us;
        }
    }
    std::vector<int> ids;
    const Spans spans = microbatchSpans(device);
    for (std::size_t id = 0; id < spans.present.size(); ++id) {
        if (spans.present[id] && spans.interval[id].first <= peakTime && peakTime < spans.interval[id].second)
            ids.push_back(static_cast<int>(id));
    }
    return ids;
}

namespace {

bool inflightAt(const Spans& spans, int id, double time)
{
    if (!spans.has(id))
        return false;
    const auto& span = spans.interval[static_cast<std::size_t>(id)];
    return span.first <= time && time < span.second;
}

// The next type up the cost model can price, from `target` on; nothing when none can.
std::optional<RecomputeType> priceable(
    int id, RecomputeType target, const std::function<bool(int, RecomputeType)>& available)
{
    std::optional<RecomputeType> candidate = target;
    while (candidate && !available(id, *candidate))
        candidate = strongerRecompute(*candidate);
    return candidate;
}

RecomputeType raiseTarget(RecomputeType current, double redundancy, const RecomputeAdjustOptions& options)
{
    return current == RecomputeType::Selective || redundancy >= options.full_recompute_redundancy
        ? RecomputeType::Full
        : RecomputeType::Selective;
}

// Normal mode's round on one over-limit device: every memory sample above the limit, in time
// order, is covered by raising micro-batches in flight at that moment (best redundancy first)
// until the savings of this round's raises in flight then cover its overflow. One round thus
// treats every overflow episode of the device, not only the highest.
void coverDevice(RecomputePlan& plan, const sim::DeviceTimeline& lane, const std::vector<BackwardRedundancy>& ranking,
    const RecomputeAdjustOptions& options, const std::function<bool(int, RecomputeType)>& available,
    const RecomputeSaving& saving, std::vector<RecomputeAdjustment>& changes)
{
    const int d = lane.device;
    const Spans spans = microbatchSpans(lane);
    // This device's ranking, then the micro-batches without a ranked backward at redundancy 0.
    std::vector<BackwardRedundancy> candidates;
    std::vector<char> listed(spans.present.size(), 0);
    for (const BackwardRedundancy& entry : ranking) {
        if (entry.device == d) {
            candidates.push_back(entry);
            if (spans.has(entry.microbatch))
                listed[static_cast<std::size_t>(entry.microbatch)] = 1;
        }
    }
    for (std::size_t id = 0; id < spans.present.size(); ++id) {
        if (spans.present[id] && !listed[id])
            candidates.push_back({ d, static_cast<int>(id), 0.0 });
    }
    // The memory samples are in time order, so the candidates in flight at each one are kept as
    // a sweep over their span starts and ends: a bit per candidate, visited in ranking order.
    // Each over-limit sample then costs its in-flight micro-batches (about 2p), not all m.
    const std::size_t count = candidates.size();
    std::vector<std::pair<double, double>> span(
        count, { std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity() });
    for (std::size_t i = 0; i < count; ++i) {
        if (spans.has(candidates[i].microbatch))
            span[i] = spans.interval[static_cast<std::size_t>(candidates[i].microbatch)];
    }
    std::vector<std::size_t> byStart(count);
    std::iota(byStart.begin(), byStart.end(), std::size_t { 0 });
    std::vector<std::size_t> byEnd = byStart;
    std::sort(
        byStart.begin(), byStart.end(), [&](std::size_t a, std::size_t b) { return span[a].first < span[b].first; });
    std::sort(
        byEnd.begin(), byEnd.end(), [&](std::size_t a, std::size_t b) { return span[a].second < span[b].second; });
    std::vector<std::uint64_t> active((count + 63) / 64, 0);
    std::size_t started = 0;
    std::size_t ended = 0;

    std::map<int, double> saved; // raised this round -> MB freed
    for (const sim::MemorySample& sample : lane.memory) {
        const double time = sample.time_us;
        // In flight: first <= time < second.
        for (; started < count && span[byStart[started]].first <= time; ++started)
            active[byStart[started] / 64] |= std::uint64_t { 1 } << (byStart[started] % 64);
        for (; ended < count && span[byEnd[ended]].second <= time; ++ended)
            active[byEnd[ended] / 64] &= ~(std::uint64_t { 1 } << (byEnd[ended] % 64));
        double overflow = sample.mem_mb - options.memory_limit_mb;
        if (!(overflow > 0))
            continue;
        for (const auto& [id, mb] : saved) {
            if (inflightAt(spans, id, time))
                overflow -= mb;
        }
        for (std::size_t word = 0; word < active.size() && overflow > 0; ++word) {
            for (std::uint64_t bits = active[word]; bits != 0 && overflow > 0; bits &= bits - 1) {
                const BackwardRedundancy& entry = candidates[word * 64 + std::size_t(std::countr_zero(bits))];
                if (saved.contains(entry.microbatch))
                    continue;
                const RecomputeType current = plan.at(entry.microbatch, d);
                if (current == RecomputeType::Full)
                    continue;
                const std::optional<RecomputeType> type
                    = priceable(entry.microbatch, raiseTarget(current, entry.redundancy, options), available);
                if (!type)
                    continue;
                plan.set(entry.microbatch, d, *type);
                changes.push_back({ d, entry.microbatch, current, *type });
                const double freed = std::max(0.0, saving(entry.microbatch, d, current, *type));
                saved[entry.microbatch] = freed;
                overflow -= freed;
            }
        }
    }
}

} // namespace

std::vector<RecomputeAdjustment> adjustRecomputePlan(RecomputePlan& plan, const sim::Timeline& timeline,
    const std::vector<double>& peakMemoryMbPerDevice, const RecomputeAdjustOptions& options,
    const std::function<bool(int, RecomputeType)>& available, const RecomputeSaving& saving)
{
    std::vector<RecomputeAdjustment> changes;
    std::vector<int> raisedIds; // distinct micro-batches raised this round
    const std::vector<BackwardRedundancy> ranking = backwardRedundancy(timeline);
    for (std::size_t device = 0; device < peakMemoryMbPerDevice.size(); ++device) {
        if (!(peakMemoryMbPerDevice[device] > options.memory_limit_mb))
            continue;
        const int d = static_cast<int>(device);
        if (d >= plan.deviceCount())
            break;
        if (options.cover_overflow && saving) {
            const std::size_t before = changes.size();
            for (const sim::DeviceTimeline& lane : timeline.devices) {
                if (lane.device == d)
                    coverDevice(plan, lane, ranking, options, available, saving, changes);
            }
            if (changes.size() > before)
                continue;
            // Nothing in flight at an over-limit moment could be raised: the device's whole
            // ranking, as below.
        }
        std::vector<int> inflight;
        for (const sim::DeviceTimeline& lane : timeline.devices) {
            if (lane.device == d)
                inflight = inflightAtPeak(lane);
        }
        // This device's ranking; micro-batches in flight at the peak that have no entry (their
        // backward is the device's last op) join at redundancy 0.
        std::vector<BackwardRedundancy> candidates;
        for (const BackwardRedundancy& entry : ranking) {
            if (entry.device == d)
                candidates.push_back(entry);
        }
        for (int id : inflight) {
            if (std::none_of(candidates.begin(), candidates.end(),
                    [id](const BackwardRedundancy& entry) { return entry.microbatch == id; }))
                candidates.push_back({ d, id, 0.0 });
        }
        const auto raisable
            = [&](const BackwardRedundancy& entry) { return plan.at(entry.microbatch, d) != RecomputeType::Full; };
        const auto atPeak = [&](const BackwardRedundancy& entry) {
            return std::find(inflight.begin(), inflight.end(), entry.microbatch) != inflight.end();
        };
        const bool focus = std::any_of(candidates.begin(), candidates.end(),
            [&](const BackwardRedundancy& entry) { return raisable(entry) && atPeak(entry); });
        int raised = 0;
        for (const BackwardRedundancy& entry : candidates) {
            if (raised >= options.microbatches_per_device)
                break;
            if (!raisable(entry) || (focus && !atPeak(entry)))
                continue;
            const bool newId = std::find(raisedIds.begin(), raisedIds.end(), entry.microbatch) == raisedIds.end();
            if (newId && options.max_microbatches_per_round > 0
                && static_cast<int>(raisedIds.size()) >= options.max_microbatches_per_round)
                continue;
            const RecomputeType current = plan.at(entry.microbatch, d);
            // Fall through to stronger types the cost model can price.
            const std::optional<RecomputeType> candidate
                = priceable(entry.microbatch, raiseTarget(current, entry.redundancy, options), available);
            if (!candidate)
                continue;
            plan.set(entry.microbatch, d, *candidate);
            changes.push_back({ d, entry.microbatch, current, *candidate });
            if (newId)
                raisedIds.push_back(entry.microbatch);
            ++raised;
        }
    }
    return changes;
}

} // namespace stratex::planner
