// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/plan_rank_layout.h"

#include <map>

namespace stratex::galvatron {

ranks::ParallelConfig planRankLayout(const Plan& plan, int gpusPerNode)
{
    std::map<int, int> layersByDegree;
    for (const galvatron::LayerStrategy& layer : plan.layers)
        ++layersByDegree[layer.tpsp()];
    int tp = 1;
    int most = 0;
    for (const auto& [degree, count] : layersByDegree) {
        if (count > most) {
            tp = degree;
            most = count;
        }
    }
    ranks::ParallelConfig config;
    config.world = plan.world;
    config.tp = tp;
    config.pp = plan.pp;
    config.gpusPerNode = gpusPerNode;
    return config;
}

} // namespace stratex::galvatron
