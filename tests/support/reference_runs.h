// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The published runs bundled in resources/reference-runs, for the suites that check the model
// against them (tst_reference_runs: time; tst_reference_memory: memory).

#include <filesystem>
#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/runs/reference_run.h"

namespace stratex::test {

inline const std::filesystem::path kReferenceRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

// Each run compared with the model under its GPU family's preset (hardware::efficiencyFor), as
// `stratex-cli reference` compares it.
inline std::vector<runs::ReferenceComparison> compareAll(const std::vector<runs::ReferenceRun>& all)
{
    std::vector<runs::ReferenceComparison> comparisons;
    comparisons.reserve(all.size());
    for (const runs::ReferenceRun& run : all)
        comparisons.push_back(runs::compareWithRun(run, hardware::efficiencyFor(run.cluster)));
    return comparisons;
}

} // namespace stratex::test
