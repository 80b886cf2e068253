// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_file_checks.h"

#include "core/common/error.h"

namespace stratex::exporting {

void requireValidStrategy(const megatron::PlanFile& plan, std::string_view target)
{
    const std::vector<std::string> problems
        = megatron::strategyProblems(plan.strategy, plan.model, static_cast<long long>(plan.cluster.worldSize()));
    if (problems.empty())
        return;
    std::string text;
    for (const std::string& problem : problems)
        text += (text.empty() ? "" : "; ") + problem;
    throw Error((plan.file.empty() ? std::string("the plan") : plan.file) + ": not exported to " + std::string(target)
        + ": the strategy breaks Megatron-LM's rules (" + text + ")");
}

} // namespace stratex::exporting
