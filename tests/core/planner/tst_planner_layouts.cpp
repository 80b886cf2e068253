// SPDX-License-Identifier: GPL-3.0-or-later
// The planner on the shapes a plan must cover: data-parallel groups, interleaved placement,
// encoder-decoder models (with data parallelism), explicit schedules, communication between
// stages, and the zero-bubble candidate within memory.
#include <algorithm>
#include <cmath>

#include <QTest>

#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/planner/planner_compare.h"
#include "core/planner/planner_search.h"
#include "core/planner/planner_spec.h"

#include "planner_plan_checks.h"
#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

Q_DECLARE_METATYPE(stratex::planner::PlannerMode)

using test::groundTruthSamples;
using test::baseConfig;
using test::verifyPlanValid;

class TestPlannerLayouts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dataParallelGroups();
    void interleavedPlacement();
    void encoderDecoderModel();
    void explicitSchedules();
    void communicationLengthensThePlan_data();
    void communicationLengthensThePlan();
    void zeroBubbleCandidateFitsMemory();
    void dataParallelEncoderDecoder();
};

void TestPlannerLayouts::dataParallelGroups()
{
    PlannerConfig config = baseConfig(PlannerMode::Fast);
    config.dp_size = 2;
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(groundTruthSamples(6), test::gptCostModel(), config, progress);
    verifyPlanValid(plan, config);
    double slowest = 0;
    for (const GroupPlan& group : plan.groups)
        slowest = std::max(slowest, group.makespan_ms);
    QCOMPARE(plan.makespan_ms, slowest);
}

void TestPlannerLayouts::interleavedPlacement()
{
    PlannerConfig config = baseConfig(PlannerMode::Normal);
    config.layers_per_stage = 4;
    config.chunks_per_device = 2;
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), config, progress);
    verifyPlanValid(plan, config);
    // Fast mode's pass, then wait-free-cyclic and interleaved-1F1B x three types (no ZB-H1: it
    // needs a linear placement).
    QVERIFY(plan.groups[0].schedule_candidates >= 1 + 6 && plan.groups[0].schedule_candidates <= 3 + 6);
    QCOMPARE(plan.groups[0].input.device_assignment.size(), std::size_t(32));
}

void TestPlannerLayouts::encoderDecoderModel()
{
    SyntheticLengthSpec spec = parseSyntheticLengthSpec("lognormal:5,0.6,48:3");
    spec.max_seqlen = 1024;
    const std::vector<Sample> samples = generateSyntheticSamples(spec, true);
    PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 6;
    config.device_memory_mb = 36000;
    config.mode = PlannerMode::Normal;
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(samples, test::t5CostModel(), config, progress);
    verifyPlanValid(plan, config);
    QCOMPARE(plan.groups[0].input.first_decoder_layer, 12);
    for (const PlannedMicroBatch& mb : plan.groups[0].microbatches)
        QVERIFY(mb.microbatch.padded_decoder_seqlen > 0);
    // T5's fixture has no selective sub-model: at most none and full, for wait-free-cyclic, 1F1B
    // and ZB-H1, after fast mode's pass (at most both types).
    QVERIFY(plan.groups[0].schedule_candidates <= 2 + 6);
}

void TestPlannerLayouts::explicitSchedules()
{
    PlannerConfig config = baseConfig(PlannerMode::Normal);
    config.schedules = { ScheduleKind::OneFOneB, ScheduleKind::GPipe };
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(groundTruthSamples(3), test::gptCostModel(), config, progress);
    QVERIFY(plan.feasible);
    QVERIFY(plan.groups[0].schedule == ScheduleKind::OneFOneB || plan.groups[0].schedule == ScheduleKind::GPipe);
    // Fast mode: the first configured schedule when wait-free-cyclic is not among them.
    config.mode = PlannerMode::Fast;
    QCOMPARE(planGlobalBatch(groundTruthSamples(3), test::gptCostModel(), config, progress).groups[0].schedule,
        ScheduleKind::OneFOneB);
}

void TestPlannerLayouts::communicationLengthensThePlan_data()
{
    QTest::addColumn<double>("intraGbps");
    QTest::addColumn<double>("interGbps");
    QTest::addColumn<double>("latencyUs");
    QTest::addColumn<int>("gpusPerNode");
    QTest::newRow("nvlink") << 2400.0 << 0.0 << 0.0 << 0;
    QTest::newRow("two nodes") << 2400.0 << 100.0 << 5.0 << 2;
    QTest::newRow("slow network") << 0.0 << 10.0 << 50.0 << 1;
}

void TestPlannerLayouts::communicationLengthensThePlan()
{
    // The planner's transfers are the simulator's send/receive ops: with 1F1B pinned, the plan's
    // timeline carries one send and one receive per stage boundary and direction, each lasting
    // lat + MB * 8000 / Gbit/s for the micro-batch's activation (tokens x mbs x hidden x 2 bytes).
    QFETCH(double, intraGbps);
    QFETCH(double, interGbps);
    QFETCH(double, latencyUs);
    QFETCH(int, gpusPerNode);
    NullProgress progress;
    PlannerConfig config = baseConfig(PlannerMode::Fast);
    config.schedules = { ScheduleKind::OneFOneB };
    const std::vector<Sample> samples = groundTruthSamples(0);
    const PlanResult free = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    config.comm.intra_node_bw_gbps = intraGbps;
    config.comm.inter_node_bw_gbps = interGbps;
    config.comm.intra_node_lat_us = latencyUs;
    config.comm.inter_node_lat_us = latencyUs;
    config.gpus_per_node = gpusPerNode;
    const PlanResult linked = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    QVERIFY(linked.feasible && free.feasible);
    QVERIFY(linked.communication_modelled);
    QVERIFY(!free.communication_modelled);
    QVERIFY2(linked.makespan_ms > free.makespan_ms,
        qPrintable(QStringLiteral("%1 <= %2").arg(linked.makespan_ms).arg(free.makespan_ms)));
    const GroupPlan& group = linked.groups[0];
    const sim::CommModel comm = groupCommModel(config, 0);
    int transfers = 0;
    for (const sim::DeviceTimeline& device : group.simulation.timeline.devices) {
        for (const sim::TimelineOp& op : device.comm) {
            if (op.kind != OpKind::Send)
                continue;
            ++transfers;
            const auto it = std::find_if(group.microbatches.begin(), group.microbatches.end(),
                [&](const PlannedMicroBatch& mb) { return mb.microbatch.id == op.microbatch; });
            QVERIFY(it != group.microbatches.end());
            const double mb = it->microbatch.padded_seqlen * double(it->microbatch.micro_batch_size) * 4096 * 2 / 1e6;
            const double expected = comm.transferUs(mb, device.device, op.peer);
            QVERIFY2(std::fabs(op.duration_us - expected) < 1e-6,
                qPrintable(QStringLiteral("%1 vs %2").arg(op.duration_us).arg(expected)));
            QVERIFY(op.duration_us > 0);
        }
    }
    QCOMPARE(transfers, 2 * 3 * linked.global_microbatches());
}

void TestPlannerLayouts::zeroBubbleCandidateFitsMemory()
{
    // ZB-H1 is a normal-mode candidate on a linear placement, its memory checked like the others:
    // pinned alone it yields a plan within the limit, with weight-gradient ops on the timeline.
    NullProgress progress;
    PlannerConfig config = baseConfig(PlannerMode::Normal);
    config.schedules = { ScheduleKind::ZbH1 };
    const PlanResult plan = planGlobalBatch(groundTruthSamples(3), test::gptCostModel(), config, progress);
    verifyPlanValid(plan, config);
    QCOMPARE(plan.groups[0].schedule, ScheduleKind::ZbH1);
    int weights = 0;
    for (const sim::DeviceTimeline& device : plan.groups[0].simulation.timeline.devices) {
        for (const sim::TimelineOp& op : device.compute)
            weights += op.kind == OpKind::Weight;
    }
    QCOMPARE(weights, 4 * plan.global_microbatches());
    const std::vector<ScheduleKind> candidates
        = candidateSchedules(makePipelineModel(4, 8, 1, false), {}, searchLimits(PlannerMode::Normal));
    QVERIFY(std::find(candidates.begin(), candidates.end(), ScheduleKind::ZbH1) != candidates.end());
    const std::vector<ScheduleKind> interleaved
        = candidateSchedules(makePipelineModel(4, 4, 2, false), {}, searchLimits(PlannerMode::Normal));
    QVERIFY(std::find(interleaved.begin(), interleaved.end(), ScheduleKind::ZbH1) == interleaved.end());
}

void TestPlannerLayouts::dataParallelEncoderDecoder()
{
    // T5 (encoder-decoder) split over two data-parallel groups by Karmarkar-Karp, both modes.
    SyntheticLengthSpec spec = parseSyntheticLengthSpec("lognormal:5,0.6,64:5");
    spec.max_seqlen = 1024;
    const std::vector<Sample> samples = generateSyntheticSamples(spec, true);
    PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 6;
    config.device_memory_mb = 36000;
    config.dp_size = 2;
    NullProgress progress;
    const ModePair pair = planBothModes(samples, test::t5CostModel(), config, progress);
    for (const PlanResult* plan : { &pair.normal, &pair.fast }) {
        verifyPlanValid(*plan, config);
        int microbatches = 0;
        for (const GroupPlan& group : plan->groups) {
            microbatches += static_cast<int>(group.microbatches.size());
            QCOMPARE(group.input.first_decoder_layer, 12);
        }
        QCOMPARE(microbatches, plan->global_microbatches());
    }
    QVERIFY(pair.normal.makespan_ms <= pair.fast.makespan_ms);
}

QTEST_GUILESS_MAIN(TestPlannerLayouts)
#include "tst_planner_layouts.moc"
