// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/rank_warnings.h"

namespace stratex::ranks {

namespace {
// Number of groups of `kind` whose members live on more than one node.
int groupsSpanningNodes(const RankGrid& grid, GroupKind kind)
{
    if (grid.groupSize(kind) <= 1)
        return 0;
    const GroupList groups = grid.allGroups(kind);
    int spanning = 0;
    for (int g = 0; g < groups.count(); ++g) {
        const auto members = groups.group(g);
        const int node = grid.nodeOf(members.front());
        for (int rank : members) {
            if (grid.nodeOf(rank) != node) {
                ++spanning;
                break;
            }
        }
    }
    return spanning;
}

bool isPowerOfTwo(int value)
{
    return value > 0 && (value & (value - 1)) == 0;
}

std::string count(int n, const char* noun)
{
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}
} // namespace

std::vector<LayoutWarning> layoutWarnings(const RankGrid& grid)
{
    std::vector<LayoutWarning> warnings;
    const ParallelSizes& s = grid.sizes();
    const int gpn = grid.gpusPerNode();

    if (const int n = groupsSpanningNodes(grid, GroupKind::Tp); n > 0)
        warnings.push_back({ Severity::Warning, "tp-spans-nodes",
            count(n, "TP group") + " of " + std::to_string(grid.groupCount(GroupKind::Tp))
                + " span nodes: tensor-parallel collectives on every layer cross the network (TP "
                + std::to_string(s.tp) + ", " + std::to_string(gpn) + " GPUs per node)" });
    if (s.ep > 1 || s.etp != s.tp) {
        if (const int n = groupsSpanningNodes(grid, GroupKind::ExpertTp); n > 0)
            warnings.push_back({ Severity::Warning, "expert-tp-spans-nodes",
                count(n, "expert-TP group") + " span nodes: expert tensor-parallel collectives cross the network" });
    }
    if (const int n = groupsSpanningNodes(grid, GroupKind::Cp); n > 0)
        warnings.push_back({ Severity::Info, "cp-spans-nodes",
            count(n, "CP group") + " span nodes: context-parallel attention exchanges cross the network" });
    if (const int n = groupsSpanningNodes(grid, GroupKind::ExpertEp); n > 0)
        warnings.push_back({ Severity::Info, "ep-spans-nodes",
            count(n, "expert-parallel group") + " span nodes: the MoE token all-to-all crosses the network" });
    if (s.dp == 1)
        warnings.push_back({ Severity::Warning, "dp-size-1",
            "DP size is 1: a single model replica, no data parallelism to scale the global batch" });
    if (s.ep > 1 && s.edp == 1)
        warnings.push_back({ Severity::Info, "edp-size-1", "expert-DP size is 1: every expert has a single replica" });
    if (grid.world() % gpn != 0)
        warnings.push_back({ Severity::Warning, "partial-node",
            "world size " + std::to_string(grid.world()) + " is not a multiple of " + std::to_string(gpn)
                + " GPUs per node: the last node is only partly used" });
    if (!isPowerOfTwo(s.tp) || !isPowerOfTwo(s.etp))
        warnings.push_back({ Severity::Info, "tp-not-power-of-two",
            "TP " + std::to_string(s.tp) + (s.etp != s.tp ? " / expert-TP " + std::to_string(s.etp) : std::string())
                + " is not a power of two: heads, hidden and vocabulary sizes must still divide by it" });
    return warnings;
}

} // namespace stratex::ranks
