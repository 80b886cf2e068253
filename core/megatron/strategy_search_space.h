// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The stratex search's candidates, pipeline shape by pipeline shape (strategy_search.h): which
// strategies the space holds and in which order, without building them all first. A search of
// 16,384 GPUs holds millions (issue 22 item 8: DeepSeek-V3-style at global batch 4096, 2,340,096
// with HSDP's shard choices): the search counts them first and builds them in parallel into
// storage sized once (SpaceCandidates); the work estimate (search_work_estimate.h) only walks them.

#include <cstddef>
#include <utility>
#include <vector>

#include "core/common/input_limits.h"
#include "core/megatron/strategy_search.h"

namespace stratex::megatron {

// The pipeline divisions (first, last stage layers; 0 for an even share) tried for `pp` stages:
// Megatron's default (layers split as evenly as they go) and, when `uneven`, the layouts
// practitioners use to offload the ends, which also carry the embedding and the LM head: a last
// stage one layer lighter, and both ends one layer lighter; with `mtpLayers` multi-token-prediction
// modules (on the last stage) also the last stage lighter by them (docs/moe.md, "Multi-token
// prediction"). Divisions that give the same per-stage counts appear once.
std::vector<std::pair<int, int>> searchLayouts(int pp, int layers, bool uneven, int mtpLayers = 0);

// One pipeline shape of the space (tp, cp and its exchange, pp, the layout of the ends, and what
// follows from them) with the lists its candidates range over, outermost first.
struct SpaceShape {
    ParallelStrategy shape;
    std::vector<int> micro_batch_sizes;
    std::vector<std::pair<PipelineSchedule, int>> schedules; // (schedule, vpp)
    std::vector<std::pair<int, int>> experts; // (ep, etp)
};

class SearchSpace {
public:
    explicit SearchSpace(const StrategySearchRequest& request);

    const std::vector<SpaceShape>& shapes() const { return m_shapes; }
    // Candidates of shape k, and of all shapes before it (offset(shapes().size()) is the total).
    std::size_t count(std::size_t k) const { return m_offsets[k + 1] - m_offsets[k]; }
    std::size_t offset(std::size_t k) const { return m_offsets[k]; }
    std::size_t total() const { return m_offsets.back(); }

    // Calls f(strategy) for each candidate of shape k, in the search's order: micro-batch size,
    // (schedule, vpp), (ep, etp), ZeRO stage, recompute. A (micro-batch size, schedule) whose
    // simulation is beyond the budget (pipelineWork > kMaxSimLayerCosts) has none.
    template <class F> void forEach(std::size_t k, F&& f) const
    {
        const SpaceShape& shape = m_shapes[k];
        for (int mbs : shape.micro_batch_sizes) {
            for (const auto& [schedule, vpp] : shape.schedules) {
                ParallelStrategy s = shape.shape;
                s.micro_batch_size = mbs;
                s.schedule = schedule;
                s.vpp = vpp;
                if (pipelineWork(s) > limits::kMaxSimLayerCosts)
                    continue; // bounded work: its simulation is beyond the budget
                for (const auto& [ep, etp] : shape.experts) {
                    s.ep = ep;
                    s.etp = etp;
                    for (int zero : m_zero_stages) {
                        if ((zero > 0 && s.dp * s.cp == 1) || (zero == 0 && s.dp_shard > 0))
                            continue; // nothing to shard; HSDP shapes (hsdp.h) shard
                        s.zero = zero;
                        for (const auto& [recompute, modules] : m_recomputes) {
                            s.recompute = recompute;
                            s.recompute_modules = modules;
                            s.recompute_num_layers = recompute == Recompute::Full ? 1 : 0;
                            f(static_cast<const ParallelStrategy&>(s));
                        }
                    }
                }
            }
        }
    }

    // Calls f(index, strategy) for each candidate of shape k, index being its place among all
    // shapes' candidates in forEach's order, but visited so that candidates with the same chunk
    // costs come together: each ZB-H1 candidate group right after its 1F1B twins (the same vpp 1
    // chunks; estimate.h's EstimateMemo holds the last few chunk costs, issue 22: speed).
    template <class F> void forEachTwinsAdjacent(std::size_t k, F&& f) const
    {
        const SpaceShape& shape = m_shapes[k];
        const std::size_t perExpert = validZeroStages(shape) * m_recomputes.size();
        const std::size_t schedules = shape.schedules.size();
        std::size_t zbH1 = schedules; // none
        for (std::size_t q = 0; q < schedules; ++q) {
            if (shape.schedules[q].first == PipelineSchedule::ZbH1)
                zbH1 = q;
        }
        std::vector<std::size_t> bases(schedules);
        std::vector<bool> allowed(schedules);
        std::size_t next = m_offsets[k];
        for (int mbs : shape.micro_batch_sizes) {
            ParallelStrategy s = shape.shape;
            s.micro_batch_size = mbs;
            for (std::size_t q = 0; q < schedules; ++q) {
                s.vpp = shape.schedules[q].second;
                allowed[q] = pipelineWork(s) <= limits::kMaxSimLayerCosts;
                bases[q] = next;
                if (allowed[q])
                    next += shape.experts.size() * perExpert;
            }
            const auto visit = [&](std::size_t q, std::size_t e) {
                if (!allowed[q])
                    return;
                s.schedule = shape.schedules[q].first;
                s.vpp = shape.schedules[q].second;
                s.ep = shape.experts[e].first;
                s.etp = shape.experts[e].second;
                std::size_t index = bases[q] + e * perExpert;
                for (int zero : m_zero_stages) {
                    if ((zero > 0 && s.dp * s.cp == 1) || (zero == 0 && s.dp_shard > 0))
                        continue;
                    s.zero = zero;
                    for (const auto& [recompute, modules] : m_recomputes) {
                        s.recompute = recompute;
                        s.recompute_modules = modules;
                        s.recompute_num_layers = recompute == Recompute::Full ? 1 : 0;
                        f(index++, static_cast<const ParallelStrategy&>(s));
                    }
                }
            };
            for (std::size_t q = 0; q < schedules; ++q) {
                if (q == zbH1)
                    continue;
                for (std::size_t e = 0; e < shape.experts.size(); ++e) {
                    visit(q, e);
                    if (q == 0 && zbH1 < schedules)
                        visit(zbH1, e); // schedules[0] is 1F1B: the same chunks
                }
            }
        }
    }

private:
    std::size_t countOf(const SpaceShape& shape) const;
    std::size_t validZeroStages(const SpaceShape& shape) const;

    std::vector<SpaceShape> m_shapes;
    std::vector<int> m_zero_stages;
    std::vector<std::pair<Recompute, RecomputeModules>> m_recomputes;
    std::vector<std::size_t> m_offsets; // shapes().size() + 1
};

// The candidates of a space, built in place by `threads` threads, shape by shape: one allocation,
// no copy (a vector grown candidate by candidate copied 2.34 M strategies of 100 bytes about twice).
// Throws Cancelled when `progress` asks to stop.
class SpaceCandidates {
public:
    SpaceCandidates(const SearchSpace& space, int threads, ProgressSink& progress);
    ~SpaceCandidates();
    SpaceCandidates(const SpaceCandidates&) = delete;
    SpaceCandidates& operator=(const SpaceCandidates&) = delete;

    std::size_t size() const { return m_size; }
    const ParallelStrategy& operator[](std::size_t i) const { return m_data[i]; }

private:
    ParallelStrategy* m_data = nullptr;
    std::size_t m_size = 0;
};

} // namespace stratex::megatron
