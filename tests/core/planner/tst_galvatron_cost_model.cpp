// SPDX-License-Identifier: GPL-3.0-or-later
// The Galvatron profile as the planner's layer cost model: at the profiled sequence length it
// gives exactly the search's per-layer forward/backward time and activation memory; other lengths
// scale as b*s/S samples; the planner plans with it.
#include <QTest>

#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/layer_time.h"
#include "core/planner/galvatron_layer_cost_model.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/galvatron/search_inputs.h"

#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

namespace {

std::string fixture(const char* name)
{
    return stratex::test::fixture(QStringLiteral("galvatron/") + QString::fromLatin1(name)).toStdString();
}

galvatron::CostModel llamaCostModel()
{
    profile::ProfilePaths paths;
    paths.computation = fixture("computation_profiling_bf16_llama2-7b_all.json");
    paths.memory = fixture("memory_profiling_bf16_llama2-7b_all.json");
    paths.allreduce = fixture("allreduce_bandwidth_1nodes_8gpus_per_node.json");
    paths.p2p = fixture("p2p_bandwidth_1nodes_8gpus_per_node.json");
    paths.overlap = fixture("overlap_coefficient.json");
    paths.spTime = fixture("sp_time_1nodes_8gpus_per_node.json");
    galvatron::SearchSettings settings;
    settings.memory_constraint_gb = 36;
    settings.model = { "llama2-7b", 2048, 4096, 32, 32, 32000 };
    settings.time_profile_mode = profile::TimeProfileMode::Batch;
    return galvatron::buildCostModel(galvatron::SearchInputs::load(paths), settings);
}

} // namespace

class TestGalvatronCostModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void supportedShapes();
    void matchesTheSearchAtTheProfiledLength_data();
    void matchesTheSearchAtTheProfiledLength();
    void scalesWithSequenceLength();
    void plansWithIt();
};

void TestGalvatronCostModel::supportedShapes()
{
    const GalvatronLayerCostModel model(llamaCostModel());
    QCOMPARE(model.tensorParallelSizes(), (std::vector<int> { 1, 2, 4, 8 }));
    QVERIFY(model.supports(2, RecomputeType::None));
    QVERIFY(model.supports(2, RecomputeType::Full));
    QVERIFY(!model.supports(2, RecomputeType::Selective)); // Galvatron profiles no selective recompute
    QVERIFY(!model.supports(3, RecomputeType::None));
    QVERIFY_THROWS_EXCEPTION(stratex::Error, model.estimate({ 1, 2048, 0, 3, RecomputeType::None }));
    QVERIFY(QString::fromStdString(model.name()).contains(QStringLiteral("llama2-7b")));
}

void TestGalvatronCostModel::matchesTheSearchAtTheProfiledLength_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<bool>("checkpoint");
    QTest::newRow("tp1-dp8") << 1 << 8 << false;
    QTest::newRow("tp2-dp4") << 2 << 4 << false;
    QTest::newRow("tp4-dp2-ckpt") << 4 << 2 << true;
    QTest::newRow("tp8-dp1-ckpt") << 8 << 1 << true;
}

void TestGalvatronCostModel::matchesTheSearchAtTheProfiledLength()
{
    QFETCH(int, tp);
    QFETCH(int, dp);
    QFETCH(bool, checkpoint);
    const galvatron::CostModel costModel = llamaCostModel();
    const GalvatronLayerCostModel model(costModel);
    galvatron::LayerStrategy strategy;
    strategy.tp = tp;
    strategy.dp = dp;
    strategy.checkpoint = checkpoint;
    const int gbsz = 4 * dp; // 4 samples per replica, one micro-batch
    const galvatron::LayerTime time = galvatron::layerTime(costModel, strategy, gbsz, 1);
    const galvatron::LayerMemory memory = galvatron::layerMemory(costModel, strategy, gbsz, 1, 0);
    const LayerCostEstimate estimate
        = model.estimate({ 4, 2048, 0, tp, checkpoint ? RecomputeType::Full : RecomputeType::None });
    const double layers = costModel.numLayers();
    QCOMPARE(estimate.encoder.forward_ms, time.steps.fct_ms / layers);
    QCOMPARE(estimate.encoder.backward_ms, time.steps.bct_ms / layers);
    QCOMPARE(estimate.encoder.stored_activation_mb, memory.activation_mb);
    QVERIFY(estimate.feasible());
}

void TestGalvatronCostModel::scalesWithSequenceLength()
{
    const GalvatronLayerCostModel model(llamaCostModel());
    const LayerCostEstimate half = model.estimate({ 4, 1024, 0, 1, RecomputeType::None });
    const LayerCostEstimate two = model.estimate({ 2, 2048, 0, 1, RecomputeType::None });
    QCOMPARE(half.encoder.forward_ms, two.encoder.forward_ms);
    QCOMPARE(half.encoder.stored_activation_mb, two.encoder.stored_activation_mb);
    QCOMPARE(half.postprocess_backward_ms, 2 * half.postprocess_forward_ms);
    // fp16 parameters: a llama2-7b layer holds ~202 M parameters, ~389 MiB in 16 bits.
    const ModelParameterSizes sizes = model.parameterSizes(1, RecomputeType::None);
    QVERIFY(sizes.encoder_layer_param_mb > 380 && sizes.encoder_layer_param_mb < 400);
    QCOMPARE(model.parameterSizes(2, RecomputeType::None).encoder_layer_param_mb, sizes.encoder_layer_param_mb / 2);
}

void TestGalvatronCostModel::plansWithIt()
{
    const GalvatronLayerCostModel model(llamaCostModel());
    SyntheticLengthSpec spec;
    spec.mean_log = 6.5;
    spec.sigma_log = 0.6;
    spec.count = 48;
    spec.seed = 2;
    spec.max_seqlen = 2048;
    PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.tp = 2;
    config.device_memory_mb = 36000;
    config.mode = PlannerMode::Fast;
    NullProgress progress;
    const PlanResult plan = planGlobalBatch(generateSyntheticSamples(spec, false), model, config, progress);
    QVERIFY2(plan.feasible, plan.infeasible_reason.c_str());
    QVERIFY(plan.makespan_ms > 0);
    for (double peak : plan.peak_memory_mb_per_device)
        QVERIFY(peak <= config.device_memory_mb);
}

QTEST_GUILESS_MAIN(TestGalvatronCostModel)
#include "tst_galvatron_cost_model.moc"
