// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron's rank grid: documented vectors, an independent brute-force oracle, Megatron's
// pre-RankGenerator loops, per-rank queries and every error case.
#include <algorithm>
#include <map>

#include <QTest>

#include "core/common/error.h"
#include "core/ranks/rank_grid.h"
#include "core/ranks/rank_warnings.h"

using namespace stratex;
using namespace stratex::ranks;

Q_DECLARE_METATYPE(stratex::ranks::ParallelConfig)

namespace {

QString groupsText(const GroupList& groups)
{
    QString text = QStringLiteral("[");
    for (int g = 0; g < groups.count(); ++g) {
        text += (g ? QStringLiteral(",[") : QStringLiteral("["));
        const auto members = groups.group(g);
        for (std::size_t m = 0; m < members.size(); ++m)
            text += (m ? QStringLiteral(",") : QString()) + QString::number(members[m]);
        text += QStringLiteral("]");
    }
    return text + QStringLiteral("]");
}

ParallelConfig makeConfig(int world, int tp, int pp, int cp = 1, int ep = 1, int etp = 0,
    const char* order = kDefaultOrder, int gpusPerNode = 8)
{
    ParallelConfig config;
    config.world = world;
    config.tp = tp;
    config.pp = pp;
    config.cp = cp;
    config.ep = ep;
    config.etp = etp;
    config.order = order;
    config.gpusPerNode = gpusPerNode;
    return config;
}

using Groups = std::vector<std::vector<int>>;

Groups toGroups(const GroupList& list)
{
    Groups groups;
    for (int g = 0; g < list.count(); ++g) {
        const auto members = list.group(g);
        groups.emplace_back(members.begin(), members.end());
    }
    return groups;
}

// Independent oracle: coordinates from the documented closed-form rank formulas (default order
// and the --use-tp-pp-dp-mapping order), groups = ranks sharing every coordinate outside the
// group, listed ascending and ordered by first member.
struct Coords {
    int tp, cp, dp, pp, etp, ep, edp;
};

Coords oracleCoords(int r, const ParallelSizes& s, bool ppBeforeDp)
{
    Coords c {};
    c.tp = r % s.tp;
    c.cp = (r / s.tp) % s.cp;
    if (!ppBeforeDp) {
        c.dp = (r / (s.tp * s.cp)) % s.dp;
        c.pp = r / (s.tp * s.cp * s.dp);
    } else {
        c.pp = (r / (s.tp * s.cp)) % s.pp;
        c.dp = r / (s.tp * s.cp * s.pp);
    }
    c.etp = r % s.etp;
    c.ep = (r / s.etp) % s.ep;
    if (!ppBeforeDp)
        c.edp = (r / (s.etp * s.ep)) % s.edp;
    else
        c.edp = r / (s.etp * s.ep * s.pp);
    return c;
}

Groups oracleGroups(const ParallelSizes& s, bool ppBeforeDp, const std::function<std::vector<int>(const Coords&)>& key)
{
    std::map<std::vector<int>, std::vector<int>> byKey;
    for (int r = 0; r < s.world; ++r)
        byKey[key(oracleCoords(r, s, ppBeforeDp))].push_back(r);
    Groups groups;
    for (auto& [k, members] : byKey)
        groups.push_back(members);
    std::sort(groups.begin(), groups.end());
    return groups;
}

Groups oracleFor(GroupKind kind, const ParallelSizes& s, bool ppBeforeDp)
{
    using K = std::vector<int>;
    switch (kind) {
    case GroupKind::Tp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.cp, c.dp, c.pp }; });
    case GroupKind::Cp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.tp, c.dp, c.pp }; });
    case GroupKind::Dp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.tp, c.cp, c.pp }; });
    case GroupKind::Pp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.tp, c.cp, c.dp }; });
    case GroupKind::DpCp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.tp, c.pp }; });
    case GroupKind::TpPp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.cp, c.dp }; });
    case GroupKind::TpDp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.cp, c.pp }; });
    case GroupKind::TpDpCp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.pp }; });
    case GroupKind::TpCp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.dp, c.pp }; });
    case GroupKind::ExpertTp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.ep, c.edp, c.pp }; });
    case GroupKind::ExpertEp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.etp, c.edp, c.pp }; });
    case GroupKind::ExpertDp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.etp, c.ep, c.pp }; });
    case GroupKind::ExpertTpEp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.edp, c.pp }; });
    case GroupKind::ExpertTpEpPp:
        return oracleGroups(s, ppBeforeDp, [](const Coords& c) { return K { c.edp }; });
    case GroupKind::Embedding:
    case GroupKind::PositionEmbedding: {
        Groups result;
        for (const auto& pipeline : oracleFor(GroupKind::Pp, s, ppBeforeDp)) {
            std::vector<int> group { pipeline.front() };
            if (kind == GroupKind::Embedding && pipeline.size() > 1)
                group.push_back(pipeline.back());
            result.push_back(group);
        }
        return result;
    }
    }
    return {};
}

// Megatron's explicit loops from before RankGenerator (default order, ep = 1), kept in its unit
// tests as the reference for tp-cp-ep-dp-pp.
std::map<GroupKind, Groups> pastCodeGroups(int world, int tp, int pp, int cp)
{
    const int dp = world / (tp * pp * cp);
    const int pipelineGroups = world / pp;
    std::map<GroupKind, Groups> groups;
    for (int i = 0; i < pp; ++i) {
        const int start = i * pipelineGroups;
        const int end = (i + 1) * pipelineGroups;
        for (int j = 0; j < cp * tp; ++j) {
            std::vector<int> ranks;
            for (int r = start + j; r < end; r += cp * tp)
                ranks.push_back(r);
            groups[GroupKind::Dp].push_back(ranks);
        }
        for (int j = 0; j < tp; ++j) {
            std::vector<int> ranks;
            for (int r = start + j; r < end; r += tp)
                ranks.push_back(r);
            groups[GroupKind::DpCp].push_back(ranks);
        }
        for (int j = 0; j < dp; ++j) {
            const int cpStart = i * pipelineGroups + j * tp * cp;
            const int cpEnd = i * pipelineGroups + (j + 1) * tp * cp;
            for (int k = 0; k < tp; ++k) {
                std::vector<int> ranks;
                for (int r = cpStart + k; r < cpEnd; r += tp)
                    ranks.push_back(r);
                groups[GroupKind::Cp].push_back(ranks);
            }
        }
    }
    const Groups& withCp = groups[GroupKind::DpCp];
    for (int i = 0; i < dp * cp; ++i) {
        std::vector<int> ranks;
        for (const auto& dpGroup : withCp)
            ranks.push_back(dpGroup[std::size_t(i)]);
        groups[GroupKind::TpPp].push_back(ranks);
    }
    for (int i = 0; i < world / tp; ++i) {
        std::vector<int> ranks;
        for (int r = i * tp; r < (i + 1) * tp; ++r)
            ranks.push_back(r);
        groups[GroupKind::Tp].push_back(ranks);
    }
    for (int i = 0; i < pipelineGroups; ++i) {
        std::vector<int> ranks;
        for (int r = i; r < world; r += pipelineGroups)
            ranks.push_back(r);
        groups[GroupKind::Pp].push_back(ranks);
    }
    // The old code built DP groups per stage in (stage, j) order; RankGenerator orders them by
    // first member. Same groups, so compare as sorted sets of groups.
    std::sort(groups[GroupKind::Dp].begin(), groups[GroupKind::Dp].end());
    std::sort(groups[GroupKind::DpCp].begin(), groups[GroupKind::DpCp].end());
    std::sort(groups[GroupKind::Cp].begin(), groups[GroupKind::Cp].end());
    return groups;
}

} // namespace

class TestRankGrid : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void documentedGroups_data();
    void documentedGroups();
    void matchesOracle_data();
    void matchesOracle();
    void matchesMegatronPastCode_data();
    void matchesMegatronPastCode();
    void perRankQueriesMatchAllGroups_data();
    void perRankQueriesMatchAllGroups();
    void coordinatesRoundTrip();
    void embeddingMembership();
    void orthogonalGridHyperCommExample();
    void expertPipelineGroupsAsMegatron_data();
    void expertPipelineGroupsAsMegatron();
    void invalidConfigs_data();
    void invalidConfigs();
    void warnings_data();
    void warnings();
    void largeGridQueriesAreLocal();
};

void TestRankGrid::documentedGroups_data()
{
    QTest::addColumn<ParallelConfig>("config");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");

    // parallel_state.py docstring: 16 GPUs, TP 2, PP 4 (DP 2).
    const ParallelConfig w16 = makeConfig(16, 2, 4);
    QTest::newRow("w16-tp") << w16 << "tp"
                            << "[[0,1],[2,3],[4,5],[6,7],[8,9],[10,11],[12,13],[14,15]]";
    QTest::newRow("w16-pp") << w16 << "pp"
                            << "[[0,4,8,12],[1,5,9,13],[2,6,10,14],[3,7,11,15]]";
    QTest::newRow("w16-dp") << w16 << "dp"
                            << "[[0,2],[1,3],[4,6],[5,7],[8,10],[9,11],[12,14],[13,15]]";
    QTest::newRow("w16-tp-pp") << w16 << "tp-pp"
                               << "[[0,1,4,5,8,9,12,13],[2,3,6,7,10,11,14,15]]";
    QTest::newRow("w16-embedding") << w16 << "embedding"
                                   << "[[0,12],[1,13],[2,14],[3,15]]";
    QTest::newRow("w16-position") << w16 << "position-embedding"
                                  << "[[0],[1],[2],[3]]";
    QTest::newRow("w16-tp-dp") << w16 << "tp-dp"
                               << "[[0,1,2,3],[4,5,6,7],[8,9,10,11],[12,13,14,15]]";
    // CP docstring: 8 GPUs, TP 4, CP 2.
    QTest::newRow("cp-doc") << makeConfig(8, 4, 1, 2) << "cp"
                            << "[[0,4],[1,5],[2,6],[3,7]]";
    // generate_masked_orthogonal_rank_groups docstring: order tp-pp-dp, sizes 2-2-2.
    QTest::newRow("tp-pp-dp") << makeConfig(8, 2, 2, 1, 1, 0, "tp-pp-dp") << "dp"
                              << "[[0,4],[1,5],[2,6],[3,7]]";
    // [tp, dp, pp] = [2, 3, 4], dp groups [0,2,4], [1,3,5], ..., [19,21,23].
    QTest::newRow("tp-dp-pp-2-3-4")
        << makeConfig(24, 2, 4, 1, 1, 0, "tp-dp-pp") << "dp"
        << "[[0,2,4],[1,3,5],[6,8,10],[7,9,11],[12,14,16],[13,15,17],[18,20,22],[19,21,23]]";
    // --use-tp-pp-dp-mapping.
    const ParallelConfig ppdp = makeConfig(16, 2, 4, 1, 1, 0, "tp-cp-ep-pp-dp");
    QTest::newRow("ppdp-pp") << ppdp << "pp"
                             << "[[0,2,4,6],[1,3,5,7],[8,10,12,14],[9,11,13,15]]";
    QTest::newRow("ppdp-dp") << ppdp << "dp"
                             << "[[0,8],[1,9],[2,10],[3,11],[4,12],[5,13],[6,14],[7,15]]";
    // Expert grid with ETP = TP: r = etp + 2 ep + 4 edp + 8 pp.
    const ParallelConfig moe = makeConfig(16, 2, 2, 1, 2);
    QTest::newRow("moe-expert-tp") << moe << "expert-tp"
                                   << "[[0,1],[2,3],[4,5],[6,7],[8,9],[10,11],[12,13],[14,15]]";
    QTest::newRow("moe-expert-ep") << moe << "expert-ep"
                                   << "[[0,2],[1,3],[4,6],[5,7],[8,10],[9,11],[12,14],[13,15]]";
    QTest::newRow("moe-expert-dp") << moe << "expert-dp"
                                   << "[[0,4],[1,5],[2,6],[3,7],[8,12],[9,13],[10,14],[11,15]]";
    QTest::newRow("moe-expert-tp-ep") << moe << "expert-tp-ep"
                                      << "[[0,1,2,3],[4,5,6,7],[8,9,10,11],[12,13,14,15]]";
    // MoE parallel folding: ETP 1, EP 4 over TP 2: r = ep + 4 edp + 8 pp.
    const ParallelConfig folded = makeConfig(16, 2, 2, 1, 4, 1);
    QTest::newRow("folded-expert-ep") << folded << "expert-ep"
                                      << "[[0,1,2,3],[4,5,6,7],[8,9,10,11],[12,13,14,15]]";
    QTest::newRow("folded-expert-tp") << folded << "expert-tp"
                                      << "[[0],[1],[2],[3],[4],[5],[6],[7],[8],[9],[10],[11],[12],[13],[14],[15]]";
    QTest::newRow("folded-expert-dp") << folded << "expert-dp"
                                      << "[[0,4],[1,5],[2,6],[3,7],[8,12],[9,13],[10,14],[11,15]]";
    QTest::newRow("folded-expert-tp-ep-pp") << folded << "expert-tp-ep-pp"
                                            << "[[0,1,2,3,8,9,10,11],[4,5,6,7,12,13,14,15]]";
    QTest::newRow("folded-dense-tp") << folded << "tp"
                                     << "[[0,1],[2,3],[4,5],[6,7],[8,9],[10,11],[12,13],[14,15]]";
    // PP 1: the embedding group is the single rank of each pipeline.
    QTest::newRow("pp1-embedding") << makeConfig(4, 2, 1) << "embedding"
                                   << "[[0],[1],[2],[3]]";
    // Tokens of size 1 may be omitted; upper case is accepted.
    QTest::newRow("short-order") << makeConfig(8, 2, 2, 1, 1, 0, "TP-DP-PP") << "dp"
                                 << "[[0,2],[1,3],[4,6],[5,7]]";
}

void TestRankGrid::documentedGroups()
{
    QFETCH(ParallelConfig, config);
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const auto groupKind = groupKindFromName(kind.toStdString());
    QVERIFY(groupKind.has_value());
    const RankGrid grid = RankGrid::create(config);
    QCOMPARE(groupsText(grid.allGroups(*groupKind)), expected);
}

void TestRankGrid::matchesOracle_data()
{
    QTest::addColumn<ParallelConfig>("config");
    struct Row {
        int world, tp, pp, cp, ep, etp;
        const char* order;
    };
    const Row rows[] = {
        { 8, 1, 1, 1, 1, 0, kDefaultOrder },
        { 16, 2, 4, 1, 1, 0, kDefaultOrder },
        { 32, 2, 2, 2, 1, 0, kDefaultOrder },
        { 64, 4, 2, 2, 1, 0, kDefaultOrder },
        { 64, 2, 4, 1, 4, 0, kDefaultOrder },
        { 64, 4, 2, 1, 8, 1, kDefaultOrder },
        { 128, 2, 4, 2, 4, 2, kDefaultOrder },
        { 96, 3, 4, 2, 2, 0, kDefaultOrder },
        { 48, 2, 3, 1, 2, 0, kDefaultOrder },
        { 16, 2, 4, 1, 1, 0, "tp-cp-ep-pp-dp" },
        { 64, 2, 4, 2, 2, 2, "tp-cp-ep-pp-dp" }, // ETP*EP = TP*CP, so EDP = DP
        { 64, 2, 2, 1, 2, 1, "tp-cp-ep-pp-dp" }, // ETP*EP = TP*CP, so EDP = DP
        { 128, 4, 2, 2, 8, 1, "tp-cp-ep-pp-dp" },
    };
    for (const Row& r : rows) {
        QTest::addRow("w%d-tp%d-pp%d-cp%d-ep%d-etp%d-%s", r.world, r.tp, r.pp, r.cp, r.ep, r.etp, r.order)
            << makeConfig(r.world, r.tp, r.pp, r.cp, r.ep, r.etp, r.order);
    }
}

void TestRankGrid::matchesOracle()
{
    QFETCH(ParallelConfig, config);
    const RankGrid grid = RankGrid::create(config);
    const bool ppBeforeDp = config.order == std::string("tp-cp-ep-pp-dp");
    for (GroupKind kind : kAllGroupKinds) {
        const Groups actual = toGroups(grid.allGroups(kind));
        const Groups expected = oracleFor(kind, grid.sizes(), ppBeforeDp);
        if (actual != expected)
            QFAIL(
                qPrintable(QStringLiteral("kind %1 differs: %2")
                               .arg(QString::fromUtf8(groupKindName(kind).data()), groupsText(grid.allGroups(kind)))));
        QCOMPARE(grid.groupCount(kind), int(expected.size()));
        QCOMPARE(grid.groupSize(kind), int(expected.front().size()));
    }
}

void TestRankGrid::matchesMegatronPastCode_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("cp");
    // A sweep in the spirit of Megatron's test_rank_generator_for_tp_dp_pp.
    for (int nodes : { 1, 2, 4 }) {
        for (int tp : { 1, 2, 4, 8 }) {
            for (int pp : { 1, 2, 4 }) {
                for (int cp : { 1, 2 }) {
                    const int world = nodes * 8;
                    if (world % (tp * pp * cp) != 0)
                        continue;
                    QTest::addRow("n%d-tp%d-pp%d-cp%d", nodes, tp, pp, cp) << world << tp << pp << cp;
                }
            }
        }
    }
}

void TestRankGrid::matchesMegatronPastCode()
{
    QFETCH(int, world);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, cp);
    const RankGrid grid = RankGrid::create(makeConfig(world, tp, pp, cp));
    const auto past = pastCodeGroups(world, tp, pp, cp);
    for (const auto& [kind, groups] : past) {
        Groups actual = toGroups(grid.allGroups(kind));
        if (kind == GroupKind::Dp || kind == GroupKind::DpCp || kind == GroupKind::Cp)
            std::sort(actual.begin(), actual.end());
        QVERIFY2(actual == groups, groupKindName(kind).data());
    }
}

void TestRankGrid::perRankQueriesMatchAllGroups_data()
{
    QTest::addColumn<ParallelConfig>("config");
    QTest::newRow("w16-tp2-pp4") << makeConfig(16, 2, 4);
    QTest::newRow("w64-moe") << makeConfig(64, 2, 4, 1, 4);
    QTest::newRow("w128-cp-ep-etp") << makeConfig(128, 4, 2, 2, 8, 2);
    QTest::newRow("w64-ppdp") << makeConfig(64, 2, 4, 2, 2, 2, "tp-cp-ep-pp-dp");
    QTest::newRow("w24-odd") << makeConfig(24, 3, 2, 2, 2, 3, "pp-dp-tp-cp-ep");
}

void TestRankGrid::perRankQueriesMatchAllGroups()
{
    QFETCH(ParallelConfig, config);
    const RankGrid grid = RankGrid::create(config);
    for (GroupKind kind : kAllGroupKinds) {
        const GroupList all = grid.allGroups(kind);
        std::vector<int> seen(std::size_t(grid.world()), 0);
        for (int g = 0; g < all.count(); ++g) {
            for (int rank : all.group(g))
                ++seen[std::size_t(rank)];
        }
        for (int rank = 0; rank < grid.world(); ++rank) {
            const int index = grid.groupIndexOf(kind, rank);
            const std::vector<int> members = grid.groupOf(kind, rank);
            if (index < 0) {
                QVERIFY(members.empty());
                QCOMPARE(seen[std::size_t(rank)], 0);
                continue;
            }
            QCOMPARE(seen[std::size_t(rank)], 1); // a rank is in at most one group of each kind
            const auto expected = all.group(index);
            QCOMPARE(members, std::vector<int>(expected.begin(), expected.end()));
            QVERIFY(std::find(members.begin(), members.end(), rank) != members.end());
        }
    }
}

void TestRankGrid::coordinatesRoundTrip()
{
    const RankGrid grid = RankGrid::create(makeConfig(256, 4, 4, 2, 8, 2, kDefaultOrder, 8));
    for (int rank = 0; rank < grid.world(); ++rank) {
        const RankCoordinates c = grid.coordinates(rank);
        QCOMPARE(grid.decoderRank(c.tp, c.cp, c.dp, c.pp), rank);
        QCOMPARE(grid.expertRank(c.etp, c.ep, c.edp, c.pp), rank);
        QCOMPARE(c.node, rank / 8);
        QCOMPARE(c.localRank, rank % 8);
    }
    // The documented default-order formula: r = tp + cp*TP + dp*TP*CP + pp*TP*CP*DP.
    const RankCoordinates c = grid.coordinates(4 * 1 + 3 + 4 * 2 * 5 + 4 * 2 * 8 * 2);
    QCOMPARE(c.tp, 3);
    QCOMPARE(c.cp, 1);
    QCOMPARE(c.dp, 5);
    QCOMPARE(c.pp, 2);
}

void TestRankGrid::embeddingMembership()
{
    const RankGrid grid = RankGrid::create(makeConfig(16, 2, 4));
    QCOMPARE(grid.groupOf(GroupKind::Embedding, 1), (std::vector<int> { 1, 13 }));
    QCOMPARE(grid.groupOf(GroupKind::Embedding, 13), (std::vector<int> { 1, 13 }));
    QVERIFY(grid.groupOf(GroupKind::Embedding, 5).empty());
    QCOMPARE(grid.groupIndexOf(GroupKind::Embedding, 5), -1);
    QCOMPARE(grid.groupOf(GroupKind::PositionEmbedding, 2), (std::vector<int> { 2 }));
    QVERIFY(grid.groupOf(GroupKind::PositionEmbedding, 14).empty());
}

void TestRankGrid::orthogonalGridHyperCommExample()
{
    // test_hyper_comm_grid: shape [2,3,4,5] (tp, cp, pp, dp), world 120: dp -> 24 groups of 5.
    DimSizes sizes {};
    sizes[int(Dim::Tp)] = 2;
    sizes[int(Dim::Cp)] = 3;
    sizes[int(Dim::Ep)] = 1;
    sizes[int(Dim::Pp)] = 4;
    sizes[int(Dim::Dp)] = 5;
    const OrthogonalGrid grid(RankOrder::parse("tp-cp-pp-dp", sizes), sizes);
    QCOMPARE(grid.world(), 120);
    const GroupList dp = grid.allGroups(maskOf(Dim::Dp));
    QCOMPARE(dp.count(), 24);
    QCOMPARE(dp.groupSize, 5);
    QCOMPARE(std::vector<int>(dp.group(0).begin(), dp.group(0).end()), (std::vector<int> { 0, 24, 48, 72, 96 }));
    // shape [2,2,2] (a,b,c): c -> [[0,4],[1,5],[2,6],[3,7]]
    DimSizes small {};
    small.fill(1);
    small[int(Dim::Tp)] = 2;
    small[int(Dim::Cp)] = 2;
    small[int(Dim::Dp)] = 2;
    const OrthogonalGrid cube(RankOrder::parse("tp-cp-dp", small), small);
    QCOMPARE(groupsText(cube.allGroups(maskOf(Dim::Dp))), QStringLiteral("[[0,4],[1,5],[2,6],[3,7]]"));
    QCOMPARE(groupsText(cube.allGroups(maskOf(Dim::Tp) | maskOf(Dim::Cp))), QStringLiteral("[[0,1,2,3],[4,5,6,7]]"));
}

// Megatron asserts decoder.get_ranks("pp") == expert.get_ranks("pp"), nothing stronger: with pp 1
// every pipeline group is a single rank, so any order passes; with pp > 1 the groups must match.
void TestRankGrid::expertPipelineGroupsAsMegatron_data()
{
    QTest::addColumn<ParallelConfig>("config");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("pp1-ep-before-dp") << makeConfig(64, 2, 1, 4, 8, 0, "tp-cp-pp-ep-dp") << true;
    QTest::newRow("pp1-ep-first") << makeConfig(64, 2, 1, 4, 8, 0, "ep-tp-cp-dp-pp") << true;
    QTest::newRow("pp-last-default") << makeConfig(64, 2, 2, 2, 4) << true;
    QTest::newRow("pp2-groups-differ") << makeConfig(16, 2, 2, 2, 4, 1, "tp-pp-cp-ep-dp") << false;
    QTest::newRow("pp2-same-span-before-pp") << makeConfig(32, 2, 2, 2, 4, 1, "tp-cp-ep-dp-pp") << true;
}

void TestRankGrid::expertPipelineGroupsAsMegatron()
{
    QFETCH(ParallelConfig, config);
    QFETCH(bool, accepted);
    try {
        RankGrid::create(config);
        QVERIFY2(accepted, "accepted a layout Megatron refuses");
    } catch (const Error& error) {
        QVERIFY2(!accepted, error.what());
        QVERIFY(QString::fromUtf8(error.what()).contains(QStringLiteral("other pipeline groups")));
    }
}

void TestRankGrid::invalidConfigs_data()
{
    QTest::addColumn<ParallelConfig>("config");
    QTest::addColumn<QString>("reason"); // a fragment the one-line reason must contain

    QTest::newRow("world-not-divisible") << makeConfig(10, 4, 1) << "not divisible by tp*pp*cp";
    QTest::newRow("world-not-divisible-cp") << makeConfig(16, 2, 2, 3) << "not divisible by tp*pp*cp";
    QTest::newRow("expert-not-divisible") << makeConfig(16, 2, 2, 1, 3) << "not divisible by etp*ep*pp";
    QTest::newRow("expert-etp-not-divisible") << makeConfig(16, 2, 2, 1, 2, 3) << "not divisible by etp*ep*pp";
    QTest::newRow("omitted-cp") << makeConfig(16, 2, 2, 2, 1, 0, "tp-dp-pp") << "omits \"cp\" but its size is 2";
    QTest::newRow("omitted-ep") << makeConfig(16, 2, 2, 1, 2, 0, "tp-cp-dp-pp") << "omits \"ep\" but its size is 2";
    QTest::newRow("omitted-dp") << makeConfig(16, 2, 2, 1, 1, 0, "tp-pp") << "omits \"dp\"";
    QTest::newRow("not-pp-last") << makeConfig(16, 2, 2, 1, 2, 0, "tp-cp-ep-pp-dp") << "does not end with pp";
    QTest::newRow("pp-before-dp-with-cp") << makeConfig(64, 2, 4, 2, 1, 0, "tp-cp-ep-pp-dp") << "expert-DP 8, DP 4";
    QTest::newRow("pp-groups-differ") << makeConfig(16, 2, 2, 2, 4, 1, "tp-pp-cp-ep-dp") << "other pipeline groups";
    QTest::newRow("unknown-token") << makeConfig(16, 2, 2, 1, 1, 0, "tp-xx-dp-pp") << "unknown token \"xx\"";
    QTest::newRow("repeated-token") << makeConfig(16, 2, 2, 1, 1, 0, "tp-tp-dp-pp") << "appears twice";
    QTest::newRow("empty-token") << makeConfig(16, 2, 2, 1, 1, 0, "tp--dp-pp") << "unknown token \"\"";
    QTest::newRow("tp-zero") << makeConfig(16, 0, 2) << "tp must be a positive integer";
    QTest::newRow("pp-negative") << makeConfig(16, 2, -2) << "pp must be a positive integer";
    QTest::newRow("world-zero") << makeConfig(0, 1, 1) << "world size must be a positive integer";
    QTest::newRow("etp-negative") << makeConfig(16, 2, 2, 1, 1, -1) << "etp must be";
    QTest::newRow("gpus-per-node") << makeConfig(16, 2, 2, 1, 1, 0, kDefaultOrder, 0) << "gpus per node";
    QTest::newRow("too-large") << makeConfig(1 << 25, 1, 1) << "exceeds the supported maximum";
}

void TestRankGrid::invalidConfigs()
{
    QFETCH(ParallelConfig, config);
    QFETCH(QString, reason);
    try {
        RankGrid::create(config);
        QFAIL("expected stratex::Error");
    } catch (const Error& error) {
        const QString message = QString::fromUtf8(error.what());
        QVERIFY2(message.contains(reason), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\n')), "the reason must be one line");
    }
}

void TestRankGrid::warnings_data()
{
    QTest::addColumn<ParallelConfig>("config");
    QTest::addColumn<QStringList>("codes");
    QTest::newRow("clean") << makeConfig(64, 8, 4) << QStringList {};
    QTest::newRow("tp16-on-8-gpu-nodes") << makeConfig(64, 16, 2) << QStringList { "tp-spans-nodes" };
    QTest::newRow("dp1") << makeConfig(16, 8, 2) << QStringList { "dp-size-1" };
    QTest::newRow("tp-strided-by-order") << makeConfig(16, 2, 1, 1, 1, 0, "dp-tp-pp")
                                         << QStringList { "tp-spans-nodes" };
    QTest::newRow("partial-node") << makeConfig(12, 2, 2) << QStringList { "partial-node" };
    QTest::newRow("tp3") << makeConfig(24, 3, 2) << QStringList { "tp-spans-nodes", "tp-not-power-of-two" };
    QTest::newRow("ep-across-nodes") << makeConfig(32, 2, 1, 1, 16) << QStringList { "ep-spans-nodes", "edp-size-1" };
}

void TestRankGrid::warnings()
{
    QFETCH(ParallelConfig, config);
    QFETCH(QStringList, codes);
    QStringList actual;
    for (const LayoutWarning& warning : layoutWarnings(RankGrid::create(config)))
        actual << QString::fromStdString(warning.code);
    QCOMPARE(actual, codes);
}

void TestRankGrid::largeGridQueriesAreLocal()
{
    // 131072 ranks: per-rank queries must not materialise anything of world size.
    const RankGrid grid = RankGrid::create(makeConfig(131072, 8, 16, 2, 8));
    const int rank = 98765;
    const RankCoordinates c = grid.coordinates(rank);
    QCOMPARE(grid.decoderRank(c.tp, c.cp, c.dp, c.pp), rank);
    const std::vector<int> dp = grid.groupOf(GroupKind::Dp, rank);
    QCOMPARE(int(dp.size()), grid.sizes().dp);
    QVERIFY(std::is_sorted(dp.begin(), dp.end()));
    QCOMPARE(grid.groupOf(GroupKind::TpDpCp, rank).size(), std::size_t(131072 / 16));
}

QTEST_GUILESS_MAIN(TestRankGrid)
#include "tst_rank_grid.moc"
