// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/memory_outcomes.h"

#include "core/common/number_format.h"

namespace stratex::runs {

namespace {

std::string peakOfLimit(const MemoryOutcomeRow& row)
{
    return "predicted device peak " + fixed(row.predicted_device_peak_gib, 1) + " of "
        + fixed(row.memory_limit_gib, 1) + " GiB";
}

} // namespace

MemoryOutcomes memoryOutcomes(const std::vector<MemoryOutcomeRow>& rows)
{
    MemoryOutcomes out;
    for (const MemoryOutcomeRow& row : rows) {
        if (row.trained) {
            ++out.trained;
            if (row.predicted_oom)
                out.trained_called_oom.push_back(row);
        } else {
            ++out.out_of_memory;
            if (!row.predicted_oom)
                out.oom_called_fitting.push_back(row);
        }
    }
    return out;
}

std::string memoryOutcomeLine(const MemoryOutcomeRow& row)
{
    if (!row.trained)
        return "went out of memory (measured); " + peakOfLimit(row)
            + (row.predicted_oom ? ": called out of memory (agrees)" : ": called fitting (a miss)");
    if (row.predicted_oom)
        return "trained (measured); " + peakOfLimit(row) + ": called out of memory (a miss)";
    return {};
}

std::string memoryOutcomesText(const MemoryOutcomes& outcomes)
{
    std::string text = "fit check against what the runs did: " + std::to_string(outcomes.trained)
        + " runs trained, " + std::to_string(outcomes.trained_called_oom.size()) + " of them called out of memory; "
        + std::to_string(outcomes.out_of_memory) + " went out of memory, "
        + std::to_string(outcomes.oom_called_fitting.size()) + " of them called fitting\n";
    for (const MemoryOutcomeRow& row : outcomes.trained_called_oom)
        text += "  trained, called out of memory: " + row.id + " (" + peakOfLimit(row) + ")\n";
    for (const MemoryOutcomeRow& row : outcomes.oom_called_fitting)
        text += "  went out of memory, called fitting: " + row.id + " (" + peakOfLimit(row) + ")\n";
    return text;
}

} // namespace stratex::runs
