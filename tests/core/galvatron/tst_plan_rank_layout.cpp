// SPDX-License-Identifier: GPL-3.0-or-later
// The rank grid a searched plan runs on: world and pp from the plan, TP from most of its layers.
#include <QTest>

#include "core/galvatron/plan_rank_layout.h"

using namespace stratex;

namespace {

// A plan of layers given as their TP degrees (a negative number: that Ulysses SP degree).
galvatron::Plan planOf(int world, int pp, const std::vector<int>& degrees)
{
    galvatron::Plan plan;
    plan.world = world;
    plan.pp = pp;
    for (int degree : degrees) {
        galvatron::LayerStrategy layer;
        layer.pp = pp;
        layer.tp = degree > 0 ? degree : 1;
        layer.sp = degree < 0 ? -degree : 1;
        layer.dp = world / pp / layer.tpsp();
        plan.layers.push_back(layer);
    }
    return plan;
}

} // namespace

class TestPlanRankLayout : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layout_data()
    {
        QTest::addColumn<int>("world");
        QTest::addColumn<int>("pp");
        QTest::addColumn<std::vector<int>>("degrees");
        QTest::addColumn<int>("tp");
        QTest::newRow("uniform tp 4, pp 2") << 16 << 2 << std::vector<int> { 4, 4, 4, 4 } << 4;
        QTest::newRow("most layers win") << 8 << 1 << std::vector<int> { 2, 2, 2, 4 } << 2;
        QTest::newRow("Ulysses SP counts as the TP dimension") << 8 << 1 << std::vector<int> { -4, -4, 1 } << 4;
        QTest::newRow("a tie takes the smaller degree") << 8 << 1 << std::vector<int> { 8, 2, 8, 2 } << 2;
        QTest::newRow("no layers: tp 1") << 8 << 2 << std::vector<int> {} << 1;
    }
    void layout()
    {
        QFETCH(int, world);
        QFETCH(int, pp);
        QFETCH(std::vector<int>, degrees);
        QFETCH(int, tp);
        const ranks::ParallelConfig config = galvatron::planRankLayout(planOf(world, pp, degrees), 4);
        QCOMPARE(config.world, world);
        QCOMPARE(config.pp, pp);
        QCOMPARE(config.tp, tp);
        QCOMPARE(config.gpusPerNode, 4);
        QCOMPARE(config.cp, 1);
    }
};

QTEST_GUILESS_MAIN(TestPlanRankLayout)
#include "tst_plan_rank_layout.moc"
