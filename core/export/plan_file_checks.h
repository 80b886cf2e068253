// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

#include "core/megatron/plan_file.h"

namespace stratex::exporting {

// A Stratex plan whose strategy breaks Megatron-LM's rules (megatron::strategyProblems on the plan's
// cluster) is exported to no framework: throws stratex::Error naming the file, the target and every
// broken rule.
void requireValidStrategy(const megatron::PlanFile& plan, std::string_view target);

} // namespace stratex::exporting
