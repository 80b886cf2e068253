// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/rank_grid.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/common/error.h"

namespace stratex::ranks {

namespace {
void requirePositive(const char* name, int value)
{
    if (value <= 0)
        throw Error(std::string(name) + " must be a positive integer, got " + std::to_string(value));
}

DimSizes dimSizes(int tp, int cp, int ep, int dp, int pp)
{
    DimSizes sizes {};
    sizes[static_cast<int>(Dim::Tp)] = tp;
    sizes[static_cast<int>(Dim::Cp)] = cp;
    sizes[static_cast<int>(Dim::Ep)] = ep;
    sizes[static_cast<int>(Dim::Dp)] = dp;
    sizes[static_cast<int>(Dim::Pp)] = pp;
    return sizes;
}

std::string lowered(std::string text)
{
    std::transform(
        text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}
} // namespace

RankGrid RankGrid::create(const ParallelConfig& config)
{
    requirePositive("world size", config.world);
    requirePositive("tp", config.tp);
    requirePositive("pp", config.pp);
    requirePositive("cp", config.cp);
    requirePositive("ep", config.ep);
    if (config.etp < 0)
        throw Error("etp must be a positive integer (or 0 for \"same as tp\"), got " + std::to_string(config.etp));
    requirePositive("gpus per node", config.gpusPerNode);
    if (config.world > kMaxWorld)
        throw Error("world size " + std::to_string(config.world) + " exceeds the supported maximum "
            + std::to_string(kMaxWorld));

    const int etp = config.effectiveEtp();
    const auto groupSize = [&](const char* names, int a, int b, int c) {
        const std::string product
            = std::string(names) + " = " + std::to_string(a) + "*" + std::to_string(b) + "*" + std::to_string(c);
        const std::optional<std::int64_t> size = checkedProduct({ a, b, c });
        if (!size)
            throw Error("world size " + std::to_string(config.world) + " is not divisible by " + product
                + ", which exceeds 64-bit integers");
        if (config.world % *size != 0)
            throw Error("world size " + std::to_string(config.world) + " is not divisible by " + product + " = "
                + std::to_string(*size));
        return *size;
    };
    const std::int64_t modelSize = groupSize("tp*pp*cp", config.tp, config.pp, config.cp);
    const std::int64_t expertModelSize = groupSize("etp*ep*pp", etp, config.ep, config.pp);

    RankGrid grid;
    grid.m_config = config;
    grid.m_config.order = lowered(config.order.empty() ? std::string(kDefaultOrder) : config.order);
    ParallelSizes& s = grid.m_sizes;
    s.world = config.world;
    s.tp = config.tp;
    s.cp = config.cp;
    s.ep = config.ep;
    s.pp = config.pp;
    s.etp = etp;
    s.dp = static_cast<int>(config.world / modelSize);
    s.edp = static_cast<int>(config.world / expertModelSize);

    const DimSizes decoderSizes = dimSizes(s.tp, s.cp, 1, s.dp, s.pp);
    const DimSizes expertSizes = dimSizes(s.etp, 1, s.ep, s.edp, s.pp);
    const RankOrder decoderOrder = RankOrder::parse(grid.m_config.order, decoderSizes);
    const RankOrder expertOrder = RankOrder::parse(grid.m_config.order, expertSizes);
    if (!decoderOrder.endsWithPp() && s.pp != 1 && s.edp != s.dp)
        throw Error("order \"" + grid.m_config.order
            + "\" does not end with pp, which Megatron only allows when pp is 1" + " or expert-DP equals DP (here pp "
            + std::to_string(s.pp) + ", expert-DP " + std::to_string(s.edp) + ", DP " + std::to_string(s.dp) + ")");
    grid.m_decoder = OrthogonalGrid(decoderOrder, decoderSizes);
    grid.m_expert = OrthogonalGrid(expertOrder, expertSizes);

    // Megatron's own rule, exactly: decoder.get_ranks("pp") == expert.get_ranks("pp"), the same
    // groups in the same order (allGroups enumerates as get_ranks does). Equal strides would be a
    // sufficient condition only: with pp = 1 every pipeline group is one rank, whatever the order.
    if (grid.m_decoder.allGroups(maskOf(Dim::Pp)) != grid.m_expert.allGroups(maskOf(Dim::Pp)))
        throw Error("order \"" + grid.m_config.order
            + "\" gives the expert layers other pipeline groups than the dense layers (etp*ep = "
            + std::to_string(s.etp * s.ep) + " vs tp*cp = " + std::to_string(s.tp * s.cp)
            + " before pp), which Megatron refuses");
    return grid;
}

std::string RankGrid::orderName() const
{
    return m_config.order;
}

RankCoordinates RankGrid::coordinates(int rank) const
{
    RankCoordinates c;
    c.rank = rank;
    c.node = nodeOf(rank);
    c.localRank = rank % gpusPerNode();
    c.tp = m_decoder.coordinate(rank, Dim::Tp);
    c.cp = m_decoder.coordinate(rank, Dim::Cp);
    c.dp = m_decoder.coordinate(rank, Dim::Dp);
    c.pp = m_decoder.coordinate(rank, Dim::Pp);
    c.etp = m_expert.coordinate(rank, Dim::Tp);
    c.ep = m_expert.coordinate(rank, Dim::Ep);
    c.edp = m_expert.coordinate(rank, Dim::Dp);
    return c;
}

int RankGrid::decoderRank(int tp, int cp, int dp, int pp) const
{
    return m_decoder.rankAt(dimSizes(tp, cp, 0, dp, pp));
}

int RankGrid::expertRank(int etp, int ep, int edp, int pp) const
{
    return m_expert.rankAt(dimSizes(etp, 0, ep, edp, pp));
}

const OrthogonalGrid& RankGrid::gridFor(GroupKind kind) const
{
    return info(kind).generator == Generator::Expert ? m_expert : m_decoder;
}

int RankGrid::groupSize(GroupKind kind) const
{
    switch (kind) {
    case GroupKind::Embedding:
        return m_sizes.pp > 1 ? 2 : 1;
    case GroupKind::PositionEmbedding:
        return 1;
    default:
        return gridFor(kind).groupSize(info(kind).mask);
    }
}

int RankGrid::groupCount(GroupKind kind) const
{
    if (info(kind).generator == Generator::PipelineEnds)
        return m_decoder.groupCount(maskOf(Dim::Pp));
    return gridFor(kind).groupCount(info(kind).mask);
}

int RankGrid::groupIndexOf(GroupKind kind, int rank) const
{
    const GroupKindInfo& kindInfo = info(kind);
    const int index = gridFor(kind).groupIndexOf(rank, kindInfo.mask);
    if (kindInfo.generator != Generator::PipelineEnds)
        return index;
    const int stage = m_decoder.coordinate(rank, Dim::Pp);
    const bool member = kind == GroupKind::Embedding ? (stage == 0 || stage == m_sizes.pp - 1) : stage == 0;
    return member ? index : -1;
}

std::vector<int> RankGrid::groupOf(GroupKind kind, int rank) const
{
    const GroupKindInfo& kindInfo = info(kind);
    if (kindInfo.generator != Generator::PipelineEnds)
        return gridFor(kind).groupOf(rank, kindInfo.mask);
    if (groupIndexOf(kind, rank) < 0)
        return {};
    const std::vector<int> pipeline = m_decoder.groupOf(rank, maskOf(Dim::Pp));
    if (kind == GroupKind::PositionEmbedding || pipeline.size() == 1)
        return { pipeline.front() };
    return { pipeline.front(), pipeline.back() };
}

GroupList RankGrid::allGroups(GroupKind kind) const
{
    const GroupKindInfo& kindInfo = info(kind);
    if (kindInfo.generator != Generator::PipelineEnds)
        return gridFor(kind).allGroups(kindInfo.mask);

    const GroupList pipelines = m_decoder.allGroups(maskOf(Dim::Pp));
    GroupList result;
    result.groupSize = groupSize(kind);
    result.members.reserve(std::size_t(pipelines.count()) * std::size_t(result.groupSize));
    for (int g = 0; g < pipelines.count(); ++g) {
        const auto pipeline = pipelines.group(g);
        result.members.push_back(pipeline.front());
        if (result.groupSize == 2)
            result.members.push_back(pipeline.back());
    }
    return result;
}

} // namespace stratex::ranks
