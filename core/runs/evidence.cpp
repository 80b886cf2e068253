// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/evidence.h"

namespace stratex::runs {

megatron::EvidenceCoverage evidenceCoverage(const std::vector<ReferenceRun>& runs)
{
    megatron::EvidenceCoverage coverage;
    for (const ReferenceRun& run : runs) {
        // A memory-only record (no measured time) checks no time prediction: it covers nothing
        // the search's time model is trusted on (issue 23; resources/reference-runs/README.md).
        if (run.measured_time)
            megatron::addToCoverage(coverage, run.model, run.cluster, run.strategy);
    }
    return coverage;
}

} // namespace stratex::runs
