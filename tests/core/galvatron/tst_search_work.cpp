// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 12 in core: the work estimate both front ends decide on. The search's chunk counts are
// Galvatron's (every divisor, ascending; the settled one only if it divides), its task count is
// the task list's, its hard limit and soft budget refuse as documented and the budget can be
// lifted; the planner's budget likewise; the sentence people read.
#include <cmath>
#include <map>

#include <QTest>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/work_budget.h"
#include "core/planner/planner_work.h"
#include "core/galvatron/search_task.h"
#include "core/galvatron/search_work.h"
#include "core/galvatron/strategy_space.h"

#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;

namespace {

// Galvatron's enumeration, as Stratex had it before the divisors: 1..gbsz, non-divisors skipped.
std::vector<int> bruteForceChunks(const SearchSettings& settings, int gbsz)
{
    std::vector<int> candidates;
    if (settings.settle_chunk != -1) {
        candidates.push_back(settings.settle_chunk);
    } else {
        for (int c = 1; c <= gbsz; ++c)
            candidates.push_back(c);
    }
    std::vector<int> chunks;
    for (int c : candidates) {
        if (gbsz % c == 0)
            chunks.push_back(c);
    }
    return chunks;
}

SearchSettings cluster(int nodes, int gpus, int memoryGb)
{
    SearchSettings s = test::llamaSettings(memoryGb, -1);
    s.num_nodes = nodes;
    s.num_gpus_per_node = gpus;
    return s;
}

// Which of requireBoundedSearch's outcomes `settings` gets.
QString refusal(const SearchSettings& settings)
{
    try {
        requireBoundedSearch(settings);
    } catch (const WorkBudgetExceeded&) {
        return QStringLiteral("budget");
    } catch (const Error&) {
        return QStringLiteral("hard");
    }
    return QStringLiteral("none");
}

} // namespace

class TestSearchWork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void chunkCountsAreGalvatrons();
    void estimateCountsTheTaskList_data();
    void estimateCountsTheTaskList();
    void limitsRefuse();
    void plannerBudget();
    void describe();
};

void TestSearchWork::chunkCountsAreGalvatrons()
{
    SearchSettings settings = cluster(1, 8, 36);
    for (int settle : { -1, 1, 3, 4, 7, 64 }) {
        settings.settle_chunk = settle;
        for (int gbsz = 1; gbsz <= 2100; ++gbsz)
            QCOMPARE(chunkCounts(settings, gbsz), bruteForceChunks(settings, gbsz));
    }
    settings.settle_chunk = -1;
    // A perfect square lists its root once; a prime has two divisors; the largest batch 21.
    QCOMPARE(chunkCounts(settings, 36), (std::vector<int> { 1, 2, 3, 4, 6, 9, 12, 18, 36 }));
    QCOMPARE(chunkCounts(settings, 1048573), (std::vector<int> { 1, 1048573 }));
    QCOMPARE(chunkCounts(settings, limits::kMaxBatch).size(), std::size_t(21));
}

void TestSearchWork::estimateCountsTheTaskList_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("settleBsz");
    QTest::addColumn<int>("minBsz");
    QTest::addColumn<int>("maxBsz");
    QTest::addColumn<int>("scale");
    QTest::addColumn<int>("settleChunk");
    QTest::addColumn<int>("maxTp");
    QTest::newRow("1x8, batch 16") << 1 << 8 << 16 << 0 << 0 << 0 << -1 << 8;
    QTest::newRow("1x8, batches 8..512") << 1 << 8 << -1 << 8 << 512 << 8 << -1 << 8;
    QTest::newRow("2x8, batches 1..300 step 1") << 2 << 8 << -1 << 1 << 300 << 1 << -1 << 8;
    QTest::newRow("2x8, batches 3..200 step 3, 4 chunks") << 2 << 8 << -1 << 3 << 200 << 3 << 4 << 8;
    QTest::newRow("4x8, batches 16..1024, max TP 2") << 4 << 8 << -1 << 16 << 1024 << 16 << -1 << 2;
    QTest::newRow("1x1, batch 7, 5 chunks (none)") << 1 << 1 << 7 << 0 << 0 << 0 << 5 << 8;
}

void TestSearchWork::estimateCountsTheTaskList()
{
    QFETCH(int, nodes);
    QFETCH(int, gpus);
    QFETCH(int, settleBsz);
    QFETCH(int, minBsz);
    QFETCH(int, maxBsz);
    QFETCH(int, scale);
    QFETCH(int, settleChunk);
    QFETCH(int, maxTp);
    SearchSettings settings = cluster(nodes, gpus, 36);
    settings.settle_bsz = settleBsz;
    if (settleBsz <= 0) {
        settings.min_bsz = minBsz;
        settings.max_bsz = maxBsz;
        settings.bsz_scale = scale;
    }
    settings.settle_chunk = settleChunk;
    settings.max_tp_deg = maxTp;
    settings.validate();

    const StrategySpace space = enumerateStrategies(settings);
    const std::vector<SearchTask> tasks = buildTasks(settings, space);
    const SearchWork work = estimateSearchWork(settings);
    QCOMPARE(work.tasks, std::int64_t(tasks.size()));
    QVERIFY(!work.tasks_capped);
    // The cells: per task, the strategies of its pp squared x layers x rows; zero tasks, no work.
    std::map<int, double> ofPp;
    for (const galvatron::LayerStrategy& s : space.layers)
        ofPp[s.pp] += 1;
    const double rows = work.tasks == 0 ? 0 : work.knapsack_cells / [&] {
        double perRow = 0;
        for (const SearchTask& task : tasks)
            perRow += ofPp[task.pp] * ofPp[task.pp] * settings.model.num_layers;
        return perRow;
    }();
    if (work.tasks > 0)
        QVERIFY2(rows >= 1 && rows == std::floor(rows), qPrintable(QString::number(rows)));
    else
        QCOMPARE(work.knapsack_cells, 0.0);
}

void TestSearchWork::limitsRefuse()
{
    // The bundled example's scale: a single batch is far inside both bounds.
    SearchSettings settings = cluster(2, 8, 40);
    settings.model.num_layers = 40;
    settings.settle_bsz = 64;
    QCOMPARE(refusal(settings), QStringLiteral("none"));

    // Every batch to 2^20: beyond the hard limit on tasks, lifted or not, counted only up to it.
    settings.settle_bsz = -1;
    settings.min_bsz = 1;
    settings.max_bsz = limits::kMaxBatch;
    settings.bsz_scale = 1;
    const SearchWork wide = estimateSearchWork(settings);
    QVERIFY(wide.tasks_capped);
    QVERIFY(wide.beyondHardLimit());
    QVERIFY(wide.tasks > limits::kMaxSearchTasks);
    QCOMPARE(refusal(settings), QStringLiteral("hard"));
    settings.lift_work_budget = true;
    QCOMPARE(refusal(settings), QStringLiteral("hard"));

    // Batches 8..4096 on 400 GB GPUs: inside the hard limit, beyond the soft budget -- unless
    // lifted. (On 40 GB the same batches are inside it: the rows are the memory in MB.)
    settings.lift_work_budget = false;
    settings.memory_constraint_gb = 400;
    settings.min_bsz = 8;
    settings.max_bsz = 4096;
    settings.bsz_scale = 8;
    const SearchWork range = estimateSearchWork(settings);
    QVERIFY(!range.beyondHardLimit());
    QVERIFY(range.estimate().exceedsBudget());
    QCOMPARE(range.estimate().budget, limits::kMaxSearchWork);
    QCOMPARE(refusal(settings), QStringLiteral("budget"));
    try {
        requireBoundedSearch(settings);
        QFAIL("no refusal");
    } catch (const WorkBudgetExceeded& beyond) {
        QCOMPARE(beyond.estimate().work, range.knapsack_cells);
        QVERIFY2(QString::fromUtf8(beyond.what()).startsWith(QStringLiteral("This search is about ")), beyond.what());
    }
    settings.lift_work_budget = true;
    QCOMPARE(refusal(settings), QStringLiteral("none"));

    // Less memory per GPU, fewer rows: the same batches fit the budget.
    settings.lift_work_budget = false;
    settings.memory_constraint_gb = 40;
    QVERIFY(estimateSearchWork(settings).knapsack_cells < range.knapsack_cells);
    QCOMPARE(refusal(settings), QStringLiteral("none"));
}

void TestSearchWork::plannerBudget()
{
    using namespace stratex::planner;
    PlannerConfig config;
    config.num_stages = 4;
    config.chunks_per_device = 1;
    MicroBatchBuildResult microbatching;
    microbatching.dp_groups.assign(1, std::vector<MicroBatch>(500));

    // Normal mode: 500^3 x 4 = 5e8 > 4e8. Fast mode: 500 x 4 x 8 = 16,000, far inside.
    const WorkEstimate normal = estimatePlannerWork(microbatching, config, PlannerMode::Normal);
    QCOMPARE(normal.work, 5e8);
    QCOMPARE(normal.budget, limits::kMaxPlannerNormalWork);
    QVERIFY(normal.exceedsBudget());
    QCOMPARE(QString::fromStdString(normal.job), QStringLiteral("plan in normal mode"));
    QVERIFY_THROWS_EXCEPTION(WorkBudgetExceeded, requireBoundedPlanning(microbatching, config, PlannerMode::Normal));
    QVERIFY(!estimatePlannerWork(microbatching, config, PlannerMode::Fast).exceedsBudget());
    requireBoundedPlanning(microbatching, config, PlannerMode::Fast);
    config.lift_work_budget = true;
    requireBoundedPlanning(microbatching, config, PlannerMode::Normal);
}

void TestSearchWork::describe()
{
    QCOMPARE(groupedCount(0), std::string("0"));
    QCOMPARE(groupedCount(999), std::string("999"));
    QCOMPARE(groupedCount(1000), std::string("1,000"));
    QCOMPARE(groupedCount(16777216), std::string("16,777,216"));
    QCOMPARE(groupedCount(-1234567), std::string("-1,234,567"));
    QCOMPARE(groupedCount(-123), std::string("-123"));

    WorkEstimate estimate { "search", "about 12 tasks", 3.2e14, 1e14 };
    QCOMPARE(QString::fromStdString(estimate.describe()),
        QStringLiteral("This search is about 12 tasks: about 3.2 times its work budget (about a minute on one "
                       "core; see the README, Limits)."));
    estimate.work = 2.5e15;
    QVERIFY(QString::fromStdString(estimate.describe()).contains(QStringLiteral("about 25 times")));
    estimate.work = 1.5e17;
    QVERIFY(QString::fromStdString(estimate.describe()).contains(QStringLiteral("about 1,500 times")));
}

QTEST_GUILESS_MAIN(TestSearchWork)
#include "tst_search_work.moc"
