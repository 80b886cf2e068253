// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

#include "core/perf/plan_file.h"

namespace stratex::exporting {

// A Stratex plan whose strategy breaks Megatron-LM's rules (perf::strategyProblems on the plan's
// cluster) is exported to no framework: throws stratex::Error naming the file, the target and every
// broken rule.
void requireValidStrategy(const perf::PlanFile& plan, std::string_view target);

} // namespace stratex::exporting
