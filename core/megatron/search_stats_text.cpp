// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/search_stats_text.h"

#include "core/common/number_format.h"
#include "core/megatron/framework_support.h"

namespace stratex::megatron {

std::string searchStatsText(const StrategySearchStats& s, Framework framework, double seconds, int threads)
{
    return std::to_string(s.enumerated) + " strategies searched: " + std::to_string(s.refused) + " refused by "
        + std::string(frameworkProject(framework)) + "'s rules, "
        + (s.pruned > 0 ? std::to_string(s.pruned) + " slower in their pipeline alone than plans of a sample, "
                        : std::string())
        + std::to_string(s.over_memory) + " over memory, " + std::to_string(s.bounded) + " bounded, "
        + std::to_string(s.simulated) + " simulated, in " + fixed(seconds, 3) + " s on " + std::to_string(threads)
        + (threads == 1 ? " thread" : " threads");
}

} // namespace stratex::megatron
