// SPDX-License-Identifier: GPL-3.0-or-later
// The planner against upstream DynaPipe's measured runs (tests/data/planner-grid/dynapipe_runs.json,
// docs/planner-vs-dynapipe.md): on every workload of the issue-13 grid both modes split the
// samples into DynaPipe's number of micro-batches and return a makespan no worse than DynaPipe's
// best run, on the same cost model, lengths, memory and (free) links. This is the quality half of
// the comparison; the speed half is stratex-bench's BM_PlannerGrid (no timings in unit tests).
#include <algorithm>
#include <limits>

#include <QTest>

#include "core/common/bounded_read.h"
#include "core/common/json_reader.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"

#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;

Q_DECLARE_METATYPE(stratex::planner::PlannerMode)

namespace {

const JsonDocument& dynapipeRuns()
{
    static const JsonDocument document = JsonDocument::parse(
        readTextFile(std::string(STRATEX_TEST_DATA_DIR) + "/planner-grid/dynapipe_runs.json"), "dynapipe_runs.json");
    return document;
}

} // namespace

class TestPlannerVsDynapipe : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noWorseThanDynapipesBestRun_data();
    void noWorseThanDynapipesBestRun();
};

void TestPlannerVsDynapipe::noWorseThanDynapipesBestRun_data()
{
    QTest::addColumn<PlannerMode>("mode");
    QTest::addColumn<int>("stages");
    QTest::addColumn<double>("memoryMb");
    QTest::addColumn<QString>("lengths");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<double>("dynapipeBestMs");

    const std::vector<JsonView> workloads = dynapipeRuns().root()["workloads"].elements();
    QVERIFY(workloads.size() == 16); // p 4 and 8 x 36000 and 80000 MB x 4 batch sizes
    for (PlannerMode mode : { PlannerMode::Fast, PlannerMode::Normal }) {
        for (const JsonView& workload : workloads) {
            double best = std::numeric_limits<double>::infinity();
            for (const JsonView& makespan : workload["makespans_ms"].elements())
                best = std::min(best, makespan.positiveNumber());
            const int stages = workload["stages"].positiveInt();
            const double memory = workload["memory_mb"].positiveNumber();
            const int samples = workload["samples"].positiveInt();
            const std::string name = std::string(plannerModeName(mode)) + " p" + std::to_string(stages) + " "
                + std::to_string(static_cast<int>(memory)) + " MB " + std::to_string(samples) + " samples";
            QTest::newRow(name.c_str()) << mode << stages << memory
                                        << QString::fromStdString(workload["lengths"].string())
                                        << workload["microbatches"].positiveInt() << best;
        }
    }
}

void TestPlannerVsDynapipe::noWorseThanDynapipesBestRun()
{
    QFETCH(PlannerMode, mode);
    QFETCH(int, stages);
    QFETCH(double, memoryMb);
    QFETCH(QString, lengths);
    QFETCH(int, microbatches);
    QFETCH(double, dynapipeBestMs);

    const std::vector<Sample> samples
        = loadSampleLengths(std::string(STRATEX_TEST_DATA_DIR) + "/planner-grid/" + lengths.toStdString());
    PlannerConfig config;
    config.num_stages = stages;
    config.layers_per_stage = 32 / stages; // GPT-6.7B's 32 layers
    config.device_memory_mb = memoryMb;
    config.mode = mode;
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    QVERIFY(plan.feasible);
    QCOMPARE(plan.global_microbatches(), microbatches); // the same DP split as DynaPipe's
    // The file keeps DynaPipe's makespans to the microsecond.
    QVERIFY2(plan.makespan_ms <= dynapipeBestMs + 1e-3,
        qPrintable(QStringLiteral("makespan %1 ms, DynaPipe's best run %2 ms")
                       .arg(plan.makespan_ms, 0, 'f', 3)
                       .arg(dynapipeBestMs, 0, 'f', 3)));
}

QTEST_GUILESS_MAIN(TestPlannerVsDynapipe)
#include "tst_planner_vs_dynapipe.moc"
