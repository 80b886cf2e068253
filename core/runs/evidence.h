// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What measured runs cover (megatron::EvidenceCoverage) computed from run records: the check of
// the bundled table (megatron::bundledCoverage) and the coverage of a user's own runs.

#include <vector>

#include "core/megatron/plan_evidence.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

megatron::EvidenceCoverage evidenceCoverage(const std::vector<ReferenceRun>& runs);

} // namespace stratex::runs
