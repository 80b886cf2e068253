// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/megatron_releases.h"

#include <algorithm>

namespace stratex::megatron {

MegatronFeatures megatronFeaturesOf(int year)
{
    MegatronFeatures f;
    if (year <= 0)
        return f;
    // The first commit on NVIDIA/Megatron-LM main adding each flag (git log -S, author date).
    f.interleaved = year >= 2021; // dcef9069, 2021-02-13
    f.tp_async_backward = year >= 2021; // cf7efd4f, 2021-08-30 (on by default from 3f652469, 2021-09-02)
    f.distributed_optimizer = year >= 2022; // 329fe582, 2022-02-10
    f.sequence_parallel = year >= 2022; // cfd2e216, 2022-04-28
    f.selective_recompute = year >= 2022; // bbab79f8, 2022-05-16
    f.expert_parallel = year >= 2023; // e8c22152, 2023-10-06
    f.context_parallel = year >= 2023; // 292543d3, 2023-10-12
    f.tp_comm_overlap = year >= 2023; // 116ffddc, 2023-10-23
    f.uneven_layouts = year >= 2024; // fa8bb592, 2024-09-05
    f.cp_a2a = year >= 2024; // 645c329d, 2024-11-15
    f.hsdp = year >= 2024; // bb84eb93, 2024-11-30
    f.megatron_fsdp = year >= 2025; // d165a854 --use-custom-fsdp, 2025-02-26
    return f;
}

bool followsMegatronReleases(Framework framework)
{
    return framework == Framework::MegatronCore || framework == Framework::MegatronBridge;
}

StrategySpace spaceOfFeatures(StrategySpace space)
{
    if (space.features_year <= 0 || !followsMegatronReleases(space.framework))
        return space;
    const MegatronFeatures f = megatronFeaturesOf(space.features_year);
    space.interleaved = space.interleaved && f.interleaved;
    if (!f.context_parallel)
        space.max_cp = 1;
    space.ulysses = space.ulysses && f.cp_a2a;
    if (!f.expert_parallel)
        space.max_ep = 1;
    space.uneven_layouts = space.uneven_layouts && f.uneven_layouts;
    space.hsdp = space.hsdp && f.hsdp;
    space.tp_comm_overlap = space.tp_comm_overlap && f.tp_comm_overlap;
    std::erase_if(space.zero_stages,
        [&](int zero) { return (zero == 1 && !f.distributed_optimizer) || (zero >= 2 && !f.megatron_fsdp); });
    if (!f.selective_recompute)
        std::erase(space.recomputes, Recompute::Selective);
    return space;
}

void applyFeatures(ParallelStrategy& shape, const StrategySpace& space)
{
    if (space.features_year <= 0 || !followsMegatronReleases(space.framework))
        return;
    const MegatronFeatures f = megatronFeaturesOf(space.features_year);
    shape.sequence_parallel = shape.sequence_parallel && f.sequence_parallel;
    shape.tp_async_backward = shape.tp_async_backward && f.tp_async_backward;
}

} // namespace stratex::megatron
