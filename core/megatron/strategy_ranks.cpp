// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/strategy_ranks.h"

#include <algorithm>

namespace stratex::megatron {

ranks::ParallelConfig rankConfig(const ParallelStrategy& s, int gpusPerNode, const std::string& order)
{
    ranks::ParallelConfig config;
    config.world = s.world();
    config.tp = s.tp;
    config.pp = s.pp;
    config.cp = s.cp;
    config.ep = s.ep;
    config.etp = s.ep > 1 ? s.etp : 0;
    config.order = order;
    config.gpusPerNode = std::max(1, gpusPerNode);
    return config;
}

} // namespace stratex::megatron
