// SPDX-License-Identifier: GPL-3.0-or-later
// From micro-batches to simulator input: placements, per-layer costs from the cost model,
// model state, message sizes, and the memory footprint / in-flight window model checked against
// the simulator itself.
#include <cmath>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/planner/planner_rng.h"
#include "core/planner/planner_search.h"
#include "core/planner/planner_spec.h"
#include "core/planner/recompute_preplan.h"
#include "core/sim/simulator.h"

#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

namespace {

std::vector<MicroBatch> randomMicroBatches(std::uint64_t seed, int count)
{
    PlannerRng rng(seed);
    std::vector<MicroBatch> mbs;
    for (int i = 0; i < count; ++i) {
        MicroBatch mb;
        mb.id = 100 + i; // ids unrelated to positions
        mb.micro_batch_size = 1 + static_cast<int>(rng.below(4));
        mb.padded_seqlen = 8 * (4 + static_cast<int>(rng.below(120)));
        mbs.push_back(mb);
    }
    return mbs;
}

std::vector<int> idsOf(const std::vector<MicroBatch>& mbs)
{
    std::vector<int> ids;
    for (const MicroBatch& mb : mbs)
        ids.push_back(mb.id);
    return ids;
}

RecomputePlan randomPlan(std::uint64_t seed, const std::vector<int>& ids, int devices)
{
    PlannerRng rng(seed);
    RecomputePlan plan(ids, devices, RecomputeType::None);
    for (int id : ids) {
        for (int d = 0; d < devices; ++d)
            plan.set(id, d, kAllRecomputeTypes[rng.below(3)]);
    }
    return plan;
}

} // namespace

class TestPlannerSpec : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void placements_data();
    void placements();
    void rejectsOddEncoderDecoder();
    void vPlacement_data();
    void vPlacement();
    void vPlacementPlansWithVSchedules();
    void layerCostsComeFromTheCostModel();
    void modelStateAndMessages();
    void encoderDecoderLayers();
    void unavailableShapes();
    void alonePeakMatchesSimulator_data();
    void alonePeakMatchesSimulator();
    void windowModelMatchesSimulator_data();
    void windowModelMatchesSimulator();
    void fittedPlanFitsWhenSimulated_data();
    void fittedPlanFitsWhenSimulated();
};

void TestPlannerSpec::placements_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<QString>("assignment");
    QTest::newRow("linear-2x2") << 2 << 2 << 1 << QStringLiteral("[0,0,1,1]");
    QTest::newRow("interleaved-2x1x2") << 2 << 1 << 2 << QStringLiteral("[0,1,0,1]");
    QTest::newRow("interleaved-3x2x2") << 3 << 2 << 2 << QStringLiteral("[0,0,1,1,2,2,0,0,1,1,2,2]");
    QTest::newRow("single") << 1 << 3 << 1 << QStringLiteral("[0,0,0]");
}

void TestPlannerSpec::placements()
{
    QFETCH(int, stages);
    QFETCH(int, layers);
    QFETCH(int, chunks);
    QFETCH(QString, assignment);
    const PipelineModel model = makePipelineModel(stages, layers, chunks, false);
    QCOMPARE(QString::fromStdString(assignmentText(model.device_assignment)), assignment);
    QCOMPARE(model.first_decoder_layer, -1);
    const PipelineLayout layout = analyzeAssignment(model.device_assignment);
    QCOMPARE(layout.n_devices, stages);
    QCOMPARE(layout.kind, chunks > 1 ? AssignmentKind::Interleaved : AssignmentKind::Linear);
}

void TestPlannerSpec::rejectsOddEncoderDecoder()
{
    QVERIFY_THROWS_EXCEPTION(Error, makePipelineModel(1, 3, 1, true));
    QVERIFY_THROWS_EXCEPTION(Error, makePipelineModel(0, 3, 1, false));
    QCOMPARE(makePipelineModel(2, 3, 1, true).first_decoder_layer, 3);
}

void TestPlannerSpec::vPlacement_data()
{
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("layers");
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("schedules"); // the planner's candidates, DynaPipe's first
    QTest::newRow("4 devices") << 4 << 1 << QStringLiteral("[0,1,2,3,3,2,1,0]")
                               << QStringLiteral("wait-free-cyclic,ZB-V,DualPipeV");
    QTest::newRow("2 devices, 2 layers a chunk")
        << 2 << 2 << QStringLiteral("[0,0,1,1,1,1,0,0]") << QStringLiteral("wait-free-cyclic,ZB-V,DualPipeV");
    // One device: nothing to go down and back over.
    QTest::newRow("1 device") << 1 << 2 << QStringLiteral("[0,0,0,0]") << QStringLiteral("wait-free-cyclic");
}

void TestPlannerSpec::vPlacement()
{
    QFETCH(int, stages);
    QFETCH(int, layers);
    QFETCH(QString, assignment);
    QFETCH(QString, schedules);
    const PipelineModel model = makePipelineModel(stages, layers, 2, false, ChunkPlacement::V);
    QCOMPARE(QString::fromStdString(assignmentText(model.device_assignment)), assignment);
    QStringList names;
    for (ScheduleKind kind : candidateSchedules(model, {}, SearchLimits {}))
        names << QString::fromUtf8(scheduleName(kind).data(), static_cast<int>(scheduleName(kind).size()));
    QCOMPARE(names.join(QLatin1Char(',')), schedules);
    QVERIFY_THROWS_EXCEPTION(Error, makePipelineModel(stages, layers, 3, false, ChunkPlacement::V));
    QVERIFY_THROWS_EXCEPTION(Error, makePipelineModel(stages, layers, 1, false, ChunkPlacement::V));
}

void TestPlannerSpec::vPlacementPlansWithVSchedules()
{
    // The DynaPipe grid's 256 samples on a V of 4 devices (GPT-6.7B, 4 layers a chunk): normal mode
    // weighs ZB-V and DualPipeV against wait-free-cyclic, a V schedule wins (B/W split, no idle
    // turn) and the plan stays within memory; with fewer micro-batches than 2 x 4, DualPipeV is no
    // candidate (it needs two per device and direction), ZB-V still is.
    PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 4;
    config.chunks_per_device = 2;
    config.placement = ChunkPlacement::V;
    config.mode = PlannerMode::Normal;
    NullProgress progress;
    const std::vector<Sample> samples
        = loadSampleLengths(std::string(STRATEX_TEST_DATA_DIR) + "/planner-grid/lognormal_5.5_0.8_256_seed1.txt");
    const auto isV = [](ScheduleKind kind) { return kind == ScheduleKind::ZbV || kind == ScheduleKind::DualPipeV; };
    for (const double memoryMb : { 80000.0, 36000.0 }) {
        config.device_memory_mb = memoryMb;
        const PlanResult plan = planGlobalBatch(samples, test::gptCostModel(), config, progress);
        QVERIFY(plan.feasible);
        const GroupPlan& group = plan.groups.front();
        QVERIFY2(isV(group.schedule), scheduleName(group.schedule).data());
        QVERIFY(group.deadlock.ok);
        for (double peak : group.peak_memory_mb_per_device)
            QVERIFY(peak <= memoryMb);
        QCOMPARE(group.simulation.layout.stageCount(), 8); // the turn split into two chunks
    }
    config.device_memory_mb = 80000;
    const std::vector<Sample> few(samples.begin(), samples.begin() + 6);
    const PlanResult small = planGlobalBatch(few, test::gptCostModel(), config, progress);
    QVERIFY(small.feasible);
    QVERIFY(small.global_microbatches() < 8);
    QVERIFY(small.groups.front().schedule != ScheduleKind::DualPipeV);
}

void TestPlannerSpec::layerCostsComeFromTheCostModel()
{
    const DynapipeCostModel& model = test::gptCostModel();
    MicroBatch mb;
    mb.id = 7;
    mb.micro_batch_size = 2;
    mb.padded_seqlen = 576;
    MicroBatchSpecBuilder builder(model, makePipelineModel(2, 3, 1, false), { mb }, SpecOptions {});
    const RecomputePlan plan({ 7 }, 2, RecomputeType::Selective);
    const MicrobatchSpec spec = builder.spec(7, plan);
    QCOMPARE(spec.id, 7);
    QCOMPARE(spec.layers.size(), std::size_t(6));
    const LayerCostEstimate e = model.estimate({ 2, 576, 0, 1, RecomputeType::Selective });
    for (std::size_t l = 0; l < 6; ++l) {
        const double postFw = l == 5 ? e.postprocess_forward_ms : 0;
        const double postBw = l == 5 ? e.postprocess_backward_ms : 0;
        QVERIFY(std::fabs(spec.layers[l].fw_us - (e.encoder.forward_ms + postFw) * 1000) < 1e-9);
        QVERIFY(std::fabs(spec.layers[l].bw_us - (e.encoder.backward_ms + postBw) * 1000) < 1e-9);
        QCOMPARE(spec.layers[l].stored_mb, e.encoder.stored_activation_mb);
        QCOMPARE(spec.layers[l].peak_mb, e.encoder.peak_activation_mb);
        QCOMPARE(spec.layers[l].fw_comm_mb, 0.0); // no hidden size given: free messages
    }
    // Per-device types: device 1's layers follow the plan's entry for device 1.
    RecomputePlan mixed = plan;
    mixed.set(7, 1, RecomputeType::Full);
    const MicrobatchSpec mixedSpec = builder.spec(7, mixed);
    const LayerCostEstimate full = model.estimate({ 2, 576, 0, 1, RecomputeType::Full });
    QCOMPARE(mixedSpec.layers[0].stored_mb, e.encoder.stored_activation_mb);
    QCOMPARE(mixedSpec.layers[3].stored_mb, full.encoder.stored_activation_mb);
}

void TestPlannerSpec::modelStateAndMessages()
{
    const DynapipeCostModel& model = test::gptCostModel();
    MicroBatch mb;
    mb.id = 0;
    mb.micro_batch_size = 4;
    mb.padded_seqlen = 512;
    SpecOptions options;
    options.hidden_size = 4096;
    options.optimizer.zero_stage = 1;
    options.optimizer.dp_size = 2;
    MicroBatchSpecBuilder builder(model, makePipelineModel(2, 2, 1, false), { mb }, options);
    const SimulationInput input
        = builder.input({ 0 }, RecomputePlan({ 0 }, 2, RecomputeType::None), RecomputeType::None);
    const ModelParameterSizes p = model.parameterSizes(1, RecomputeType::None);
    const double perParamMb = 1 + 1 + 6.0 / 2; // ZeRO-1 over dp 2 shards the optimizer state
    QCOMPARE(input.model_state_mb_per_layer.size(), std::size_t(4));
    QVERIFY(
        std::fabs(input.model_state_mb_per_layer[0] - (p.embedding_param_mb + p.encoder_layer_param_mb) * perParamMb)
        < 1e-9);
    QVERIFY(std::fabs(input.model_state_mb_per_layer[1] - p.encoder_layer_param_mb * perParamMb) < 1e-9);
    QVERIFY(std::fabs(builder.deviceModelStateMb(1, RecomputeType::None) - 2 * p.encoder_layer_param_mb * perParamMb)
        < 1e-9);
    // seq * mbs * hidden * 2 bytes
    QVERIFY(std::fabs(input.microbatches[0].layers[0].fw_comm_mb - 512.0 * 4 * 4096 * 2 / 1e6) < 1e-9);
    QCOMPARE(input.microbatches[0].layers[0].bw_comm_mb, input.microbatches[0].layers[0].fw_comm_mb);
}

void TestPlannerSpec::encoderDecoderLayers()
{
    const DynapipeCostModel& t5 = test::t5CostModel();
    MicroBatch mb;
    mb.id = 3;
    mb.micro_batch_size = 2;
    mb.padded_seqlen = 512;
    mb.padded_decoder_seqlen = 128;
    SpecOptions options;
    options.hidden_size = 1024;
    MicroBatchSpecBuilder builder(t5, makePipelineModel(2, 2, 1, true), { mb }, options);
    const SimulationInput input
        = builder.input({ 3 }, RecomputePlan({ 3 }, 2, RecomputeType::None), RecomputeType::None);
    QCOMPARE(input.first_decoder_layer, 2);
    const LayerCostEstimate e = t5.estimate({ 2, 512, 128, 1, RecomputeType::None });
    QVERIFY(std::fabs(input.microbatches[0].layers[0].fw_us - e.encoder.forward_ms * 1000) < 1e-9);
    QVERIFY(std::fabs(input.microbatches[0].layers[2].fw_us - e.decoder.forward_ms * 1000) < 1e-9);
    QVERIFY(std::fabs(input.microbatches[0].layers[3].fw_us - (e.decoder.forward_ms + e.postprocess_forward_ms) * 1000)
        < 1e-9);
    // Decoder layers pass encoder output and decoder state.
    QVERIFY(std::fabs(input.microbatches[0].layers[2].fw_comm_mb - (512.0 + 128) * 2 * 1024 * 2 / 1e6) < 1e-9);
    // The first decoder layer carries the embedding too.
    const ModelParameterSizes p = t5.parameterSizes(1, RecomputeType::None);
    QVERIFY(
        std::fabs(input.model_state_mb_per_layer[2] - (p.embedding_param_mb + p.decoder_layer_param_mb) * 8) < 1e-9);
}

void TestPlannerSpec::unavailableShapes()
{
    MicroBatch huge;
    huge.id = 1;
    huge.micro_batch_size = 64;
    huge.padded_seqlen = 4096; // beyond the profile under every type
    MicroBatchSpecBuilder builder(test::gptCostModel(), makePipelineModel(2, 1, 1, false), { huge }, SpecOptions {});
    QVERIFY(!builder.available(1, RecomputeType::None));
    QVERIFY(std::isinf(builder.alonePeakMb(1, RecomputeType::None, 0, RecomputeType::None)));
    QVERIFY_THROWS_EXCEPTION(Error, builder.spec(1, RecomputePlan({ 1 }, 2, RecomputeType::None)));
    QVERIFY_THROWS_EXCEPTION(Error, builder.available(99, RecomputeType::None));
}

void TestPlannerSpec::alonePeakMatchesSimulator_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("chunks");
    for (int seed = 1; seed <= 4; ++seed)
        QTest::newRow(("seed-" + std::to_string(seed)).c_str()) << seed << (seed % 2 ? 1 : 2);
}

void TestPlannerSpec::alonePeakMatchesSimulator()
{
    QFETCH(int, seed);
    QFETCH(int, chunks);
    const std::vector<MicroBatch> mbs = randomMicroBatches(static_cast<std::uint64_t>(seed), 1);
    MicroBatchSpecBuilder builder(test::gptCostModel(), makePipelineModel(3, 2, chunks, false), mbs, SpecOptions {});
    const RecomputePlan plan = randomPlan(static_cast<std::uint64_t>(seed), idsOf(mbs), 3);
    const SimulationInput input = builder.input(idsOf(mbs), plan, RecomputeType::None);
    const SimulationResult result = simulate(input, ScheduleKind::WaitFreeCyclic);
    for (int d = 0; d < 3; ++d) {
        const double expected = builder.alonePeakMb(mbs[0].id, plan.at(mbs[0].id, d), d, RecomputeType::None);
        QVERIFY2(std::fabs(result.peak_memory_mb_per_device[static_cast<std::size_t>(d)] - expected) < 1e-6,
            qPrintable(QStringLiteral("device %1: simulated %2, alone %3")
                           .arg(d)
                           .arg(result.peak_memory_mb_per_device[static_cast<std::size_t>(d)])
                           .arg(expected)));
    }
}

void TestPlannerSpec::windowModelMatchesSimulator_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("schedule");
    const ScheduleKind schedules[] = { ScheduleKind::WaitFreeCyclic, ScheduleKind::OneFOneB, ScheduleKind::GPipe };
    for (int seed = 1; seed <= 12; ++seed) {
        const int stages = 2 + seed % 5;
        const int count = 1 + (seed * 7) % 17;
        QTest::newRow(("seed-" + std::to_string(seed)).c_str()) << seed << stages << count << int(schedules[seed % 3]);
    }
}

void TestPlannerSpec::windowModelMatchesSimulator()
{
    QFETCH(int, seed);
    QFETCH(int, stages);
    QFETCH(int, count);
    QFETCH(int, schedule);
    const ScheduleKind kind = ScheduleKind(schedule);
    const std::vector<MicroBatch> mbs = randomMicroBatches(static_cast<std::uint64_t>(seed), count);
    MicroBatchSpecBuilder builder(test::gptCostModel(), makePipelineModel(stages, 2, 1, false), mbs, SpecOptions {});
    std::vector<int> order = idsOf(mbs);
    PlannerRng rng(static_cast<std::uint64_t>(seed));
    rng.shuffle(order);
    const RecomputePlan plan = randomPlan(static_cast<std::uint64_t>(seed) + 99, idsOf(mbs), stages);
    const SimulationResult result = simulate(builder.input(order, plan, RecomputeType::None), kind);
    for (int d = 0; d < stages; ++d) {
        const std::optional<double> modelled = windowPeakMb(builder, order, plan, kind, d, RecomputeType::None);
        QVERIFY(modelled);
        const double simulated = result.peak_memory_mb_per_device[static_cast<std::size_t>(d)];
        QVERIFY2(std::fabs(simulated - *modelled) < 1e-6,
            qPrintable(
                QStringLiteral("device %1: simulated %2, window model %3").arg(d).arg(simulated).arg(*modelled)));
    }
    // No window model for interleaved placements or other schedules.
    QVERIFY(!windowPeakMb(builder, order, plan, ScheduleKind::Fifo, 0, RecomputeType::None));
}

void TestPlannerSpec::fittedPlanFitsWhenSimulated_data()
{
    windowModelMatchesSimulator_data();
}

void TestPlannerSpec::fittedPlanFitsWhenSimulated()
{
    QFETCH(int, seed);
    QFETCH(int, stages);
    QFETCH(int, count);
    QFETCH(int, schedule);
    const ScheduleKind kind = ScheduleKind(schedule);
    const std::vector<MicroBatch> mbs = randomMicroBatches(static_cast<std::uint64_t>(seed), count);
    MicroBatchSpecBuilder builder(test::gptCostModel(), makePipelineModel(stages, 2, 1, false), mbs, SpecOptions {});
    const std::vector<int> order = idsOf(mbs);
    const RecomputePlan none(order, stages, RecomputeType::None);
    const SimulationResult unlimited = simulate(builder.input(order, none, RecomputeType::None), kind);
    // A limit between the all-full footprint and the unadjusted peak forces raises.
    const RecomputePlan full(order, stages, RecomputeType::Full);
    const SimulationResult allFull = simulate(builder.input(order, full, RecomputeType::None), kind);
    const double limit = (unlimited.maxPeakMemoryMb() + allFull.maxPeakMemoryMb()) / 2;
    const std::optional<PreplanResult> fitted
        = memoryFittedPlan(builder, order, none, kind, limit, RecomputeType::None);
    QVERIFY(fitted);
    QVERIFY(fitted->fits);
    QVERIFY(fitted->raised > 0 || unlimited.maxPeakMemoryMb() <= limit);
    const SimulationResult result = simulate(builder.input(order, fitted->plan, RecomputeType::None), kind);
    QVERIFY2(result.maxPeakMemoryMb() <= limit + 1e-6,
        qPrintable(QStringLiteral("peak %1 over limit %2").arg(result.maxPeakMemoryMb()).arg(limit)));
    // Raises only: nothing went below the start.
    for (int id : order) {
        for (int d = 0; d < stages; ++d)
            QVERIFY(fitted->plan.at(id, d) >= RecomputeType::None);
    }
    // Interleaved placements have no window model.
    MicroBatchSpecBuilder interleaved(
        test::gptCostModel(), makePipelineModel(stages, 1, 2, false), mbs, SpecOptions {});
    QVERIFY(!memoryFittedPlan(interleaved, order, none, kind, limit, RecomputeType::None));
}

QTEST_GUILESS_MAIN(TestPlannerSpec)
#include "tst_planner_spec.moc"
