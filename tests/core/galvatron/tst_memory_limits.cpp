// SPDX-License-Identifier: GPL-3.0-or-later
// Memory the knapsack cannot count in whole MB of an int (huge batches, overflowing profile
// products, NaN) must come out as "does not fit" rather than as a wrapped, negative weight that
// the stage DP would index with; ordinary values must convert exactly as before (ceil / trunc).
#include <cmath>
#include <limits>

#include <QTest>

#include "core/common/error.h"
#include "core/galvatron/embedding_cost.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/strategy_space.h"

#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::galvatron;
using namespace stratex::test;

namespace {

constexpr int kIntMax = std::numeric_limits<int>::max();

const CostModel& model()
{
    static const CostModel m = withCurveFit(llamaInputs(), llamaSettings(36, 16));
    return m;
}

const StrategySpace& space()
{
    static const StrategySpace s = enumerateStrategies(llamaSettings(36, 16));
    return s;
}

} // namespace

class TestMemoryLimits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void conversions_data();
    void conversions();
    void hugeBatch_data();
    void hugeBatch();
    void clusterSize_data();
    void clusterSize();
};

void TestMemoryLimits::conversions_data()
{
    QTest::addColumn<double>("mb");
    QTest::addColumn<int>("weight");
    QTest::addColumn<int>("truncated");
    QTest::newRow("zero") << 0.0 << 0 << 0;
    QTest::newRow("fraction") << 0.25 << 1 << 0;
    QTest::newRow("whole") << 40960.0 << 40960 << 40960;
    QTest::newRow("just below int max") << 2147483646.5 << kIntMax << 2147483646;
    QTest::newRow("int max") << 2147483647.0 << kIntMax << kIntMax;
    QTest::newRow("just above int max") << 2147483648.0 << kIntMax << kIntMax;
    QTest::newRow("4e9") << 4e9 << kIntMax << kIntMax;
    QTest::newRow("1e308") << 1e308 << kIntMax << kIntMax;
    QTest::newRow("inf") << std::numeric_limits<double>::infinity() << kIntMax << kIntMax;
    QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << kIntMax << kIntMax;
    QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << kIntMax << kIntMax;
}

void TestMemoryLimits::conversions()
{
    QFETCH(double, mb);
    QFETCH(int, weight);
    QFETCH(int, truncated);
    QCOMPARE(weightMb(mb), weight);
    QCOMPARE(truncatedMb(mb), truncated);
}

void TestMemoryLimits::hugeBatch_data()
{
    QTest::addColumn<int>("gbsz");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<bool>("fits"); // every strategy's total_mb within int
    QTest::newRow("golden batch") << 16 << 1 << true;
    QTest::newRow("largest --settle-bsz") << 1048576 << 1 << true;
    QTest::newRow("largest --settle-bsz, 64 chunks") << 1048576 << 64 << true;
    QTest::newRow("int max batch") << kIntMax << 1 << false;
    QTest::newRow("int max batch, 1024 chunks") << kIntMax << 1024 << true;
    QTest::newRow("int max batch, 16 chunks") << kIntMax << 16 << false;
}

void TestMemoryLimits::hugeBatch()
{
    QFETCH(int, gbsz);
    QFETCH(int, chunks);
    QFETCH(bool, fits);
    bool allFit = true;
    for (const LayerStrategy& s : space().layers) {
        if (s.pp != 1 || s.dp != 1 || s.checkpoint)
            continue;
        const LayerMemory m = layerMemory(model(), s, gbsz, chunks, 0);
        const bool inRange = m.total_mb <= kIntMax;
        allFit = allFit && inRange;
        QCOMPARE(m.weight_mb, inRange ? int(std::ceil(m.total_mb)) : kUnfitMb);
    }
    QCOMPARE(allFit, fits);
    for (const EmbeddingStrategy& e : space().embeddings) {
        if (e.dp != 1)
            continue;
        const EmbeddingMemory m = embeddingMemory(model(), e, gbsz, chunks);
        for (std::size_t i = 0; i < m.total_mb.size(); ++i)
            QCOMPARE(m.weight_mb[i], m.total_mb[i] <= kIntMax ? int(std::ceil(m.total_mb[i])) : kUnfitMb);
    }
}

// num_nodes x num_gpus_per_node is an int: a settings file beyond the CLI's limits must be refused
// with its real size, not wrapped to "world size 0".
void TestMemoryLimits::clusterSize_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QString>("message"); // empty: valid
    QTest::newRow("one node") << 1 << 8 << QString();
    QTest::newRow("2^30 nodes") << 1073741824 << 8
                                << "num_nodes x num_gpus_per_node = 8589934592) is unreasonably large";
    QTest::newRow("int max both") << kIntMax << kIntMax << "is unreasonably large";
}

void TestMemoryLimits::clusterSize()
{
    QFETCH(int, nodes);
    QFETCH(int, gpus);
    QFETCH(QString, message);
    SearchSettings settings = llamaSettings(36, 16);
    settings.num_nodes = nodes;
    settings.num_gpus_per_node = gpus;
    try {
        settings.validate();
        QVERIFY2(message.isEmpty(), "accepted");
    } catch (const Error& error) {
        QVERIFY2(!message.isEmpty() && QString::fromUtf8(error.what()).contains(message), error.what());
    }
}

QTEST_GUILESS_MAIN(TestMemoryLimits)
#include "tst_memory_limits.moc"
