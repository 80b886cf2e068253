// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/evidence.h"

namespace stratex::runs {

megatron::EvidenceCoverage evidenceCoverage(const std::vector<ReferenceRun>& runs)
{
    megatron::EvidenceCoverage coverage;
    for (const ReferenceRun& run : runs)
        megatron::addToCoverage(coverage, run.model, run.cluster, run.strategy);
    return coverage;
}

} // namespace stratex::runs
