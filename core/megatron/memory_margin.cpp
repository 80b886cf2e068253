// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/memory_margin.h"

#include <algorithm>

#include "core/common/number_format.h"

namespace stratex::megatron {

const std::vector<FrameworkMemoryError>& bundledMemoryErrors()
{
    // `stratex-cli reference` over resources/reference-runs (session 25's model); the records
    // behind each figure are named in docs/memory-model.md, "Memory margin".
    static const std::vector<FrameworkMemoryError> table {
        { Framework::MegatronCore, 17, -0.06228 },
        { Framework::MegatronBridge, 1, -0.00638 },
        { Framework::Torchtitan, 20, -0.16749 },
        { Framework::DeepSpeed, 2, -0.02017 },
    };
    return table;
}

namespace {

std::string percent(double fraction)
{
    return fixed(100 * fraction, 1) + " %";
}

} // namespace

MemoryMargin memoryMargin(const Estimate& e)
{
    MemoryMargin m;
    m.peak_mb = e.peak_memory_mb;
    m.limit_mb = e.memory_limit_mb;
    if (!e.problems.empty()) { // refused before it was costed: nothing to claim about its memory
        m.note = "memory: not estimated (the plan is refused)";
        return m;
    }
    if (m.limit_mb <= 0)
        return m;
    m.headroom = 1 - m.peak_mb / m.limit_mb;
    const Framework framework = e.strategy.framework;
    const bool megatron = framework == Framework::MegatronCore || framework == Framework::MegatronBridge;
    for (const FrameworkMemoryError& row : bundledMemoryErrors()) {
        const bool rowMegatron = row.framework == Framework::MegatronCore || row.framework == Framework::MegatronBridge;
        if (row.framework != framework && !(megatron && rowMegatron))
            continue;
        m.records += row.records;
        m.largest_underprediction = std::min(m.largest_underprediction, row.largest_underprediction);
    }
    const std::string whose = megatron ? std::string("Megatron-Core and Megatron-Bridge")
                                       : std::string(frameworkName(framework));
    const std::string left = "memory: " + percent(std::max(0.0, m.headroom)) + " of the limit left";
    if (!e.fits) {
        m.note = "memory: over the limit by " + percent(-m.headroom);
        return m;
    }
    if (m.records == 0) {
        m.note = left + "; no " + whose + " record publishes memory: how far the model is off there is unknown";
        return m;
    }
    const std::string error = "the model under-predicted " + whose + " records' peaks by up to "
        + percent(-m.largest_underprediction) + " (" + std::to_string(m.records) + " records)";
    m.tight = m.peak_mb / (1 + m.largest_underprediction) > m.limit_mb;
    m.note = left + (m.tight ? "; tight: " + error + ", so it may not fit" : "; " + error);
    // CUDA graphs' pools are not in the peak (docs/kernels.md §7): said on the plan, with the
    // framework's own word on their size (Megatron-Bridge's CUDA-graph guide, "Memory overhead":
    // "TE scoped graphs add a few GB; full-iteration graphs can increase peak memory by 1.5-2x").
    if (e.strategy.cuda_graphs == CudaGraphs::FullIteration)
        m.note += "; not counted: the full-iteration CUDA graph's pool (Megatron-Bridge: up to 1.5-2x the peak)";
    else if (e.strategy.cuda_graphs != CudaGraphs::None)
        m.note += "; not counted: the CUDA graphs' pools and static buffers (Megatron-Bridge: a few GB)";
    return m;
}

} // namespace stratex::megatron
