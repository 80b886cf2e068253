// SPDX-License-Identifier: GPL-3.0-or-later
// A searched plan as a simulated pipeline: every stage runs its per-micro-batch time C_i for every
// micro-batch, and the simulated peak memory is the plan's stage memory without the reserve.
#include <QTest>

#include "core/common/progress.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/plan_timeline.h"
#include "core/galvatron/search_engine.h"
#include "core/sim/simulator.h"

#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::test;

class TestPlanTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void simulatesTheSearchedPlan_data();
    void simulatesTheSearchedPlan();
};

void TestPlanTimeline::simulatesTheSearchedPlan_data()
{
    QTest::addColumn<int>("memoryGb");
    QTest::addColumn<int>("settleBsz");
    QTest::addColumn<int>("pipelineType"); // galvatron::PipelineType
    QTest::addColumn<int>("pp"); // of the best plan
    // The pipelined example of docs/galvatron-search.md §7.10 (24 GB, batch 32: pp 4, 16
    // micro-batches), 1F1B and GPipe, and the golden single-stage case.
    QTest::newRow("24gb-1f1b") << 24 << 32 << int(galvatron::PipelineType::PipeDreamFlush) << 4;
    QTest::newRow("24gb-gpipe") << 24 << 32 << int(galvatron::PipelineType::GPipe) << 1; // pp 1: accumulation
    QTest::newRow("16gb-gpipe") << 16 << 32 << int(galvatron::PipelineType::GPipe) << 1;
    QTest::newRow("36gb-golden") << 36 << 16 << int(galvatron::PipelineType::PipeDreamFlush) << 1;
}

void TestPlanTimeline::simulatesTheSearchedPlan()
{
    QFETCH(int, memoryGb);
    QFETCH(int, settleBsz);
    QFETCH(int, pipelineType);
    QFETCH(int, pp);
    SearchSettings settings = llamaSettings(memoryGb, settleBsz);
    settings.pipeline_type = galvatron::PipelineType(pipelineType);
    const SearchInputs inputs = llamaInputs();
    const galvatron::CostModel model = buildCostModel(inputs, settings);
    NullProgress progress;
    const SearchResult result = galvatron::search(model, settings, progress, 1);
    QVERIFY(result.best);
    QCOMPARE(result.best->pp, pp);
    const Evaluation evaluation = evaluate(model, settings, *result.best);

    const PlanTimelineInput timeline = planTimelineInput(evaluation);
    QCOMPARE(timeline.schedule,
        settings.pipeline_type == galvatron::PipelineType::GPipe && result.best->pp > 1 ? sim::ScheduleKind::GPipe
                                                                                   : sim::ScheduleKind::OneFOneB);
    QCOMPARE(int(timeline.input.device_assignment.size()), result.best->pp);
    QCOMPARE(int(timeline.input.microbatches.size()), result.best->chunks);
    const sim::SimulationResult simulated = sim::simulate(timeline.input, timeline.schedule);

    for (const StageBreakdown& stage : evaluation.stages) {
        const sim::DeviceTimeline& device = simulated.timeline.devices[std::size_t(stage.stage)];
        double busy = 0;
        for (const sim::TimelineOp& op : device.compute)
            busy += op.duration_us;
        QVERIFY(qAbs(busy - result.best->chunks * stage.time_no_sync_s * 1e6) < 1e-3);
        // Peak = the plan's stage memory without Galvatron's reserve; the knapsack rounds each
        // layer up to whole MB, so allow one MB per layer.
        const double expected = stage.layer_memory_mb + stage.embedding_memory_mb + stage.global_buffer_mb;
        QVERIFY2(qAbs(device.peak_memory_mb - expected) <= stage.layers + 1e-6,
            qPrintable(QStringLiteral("stage %1: %2 vs %3").arg(stage.stage).arg(device.peak_memory_mb).arg(expected)));
        QVERIFY(device.peak_memory_mb <= timeline.memory_limit_mb + 1e-6);
    }
    // The simulated step runs every micro-batch through every stage, at least as long as the
    // busiest stage and as Galvatron's sequential lower bound of one micro-batch through all.
    double slowestStage = 0;
    double oneThroughAll = 0;
    for (const StageBreakdown& stage : evaluation.stages) {
        slowestStage = std::max(slowestStage, stage.time_no_sync_s);
        oneThroughAll += stage.time_no_sync_s;
    }
    QVERIFY(simulated.makespan_us >= result.best->chunks * slowestStage * 1e6 - 1e-3);
    QVERIFY(simulated.makespan_us >= oneThroughAll * 1e6 - 1e-3);
}

QTEST_GUILESS_MAIN(TestPlanTimeline)
#include "tst_plan_timeline.moc"
