// SPDX-License-Identifier: GPL-3.0-or-later
// Every step of the worked example of docs/galvatron-search.md §7 (the golden llama2-7b run
// and its pipeline twin), with its intermediate numbers: strategy enumeration and filtering, ZeRO
// ratios, budget and buffer, per-layer time and memory for all 24 pp-1 strategies, embedding
// candidates, transition costs, the knapsack row and read-outs of the winning task, and the
// pipeline formula. Galvatron's SciPy fit coefficients are injected, so 17-digit values must match
// exactly; values it gives rounded are compared at that precision.
#include <QTest>

#include "core/galvatron/embedding_cost.h"
#include "core/galvatron/inter_layer_cost.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/layer_time.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/pipeline_cost.h"
#include "core/galvatron/zero_ratio.h"
#include "core/profile/numpy_sum.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_task.h"
#include "core/galvatron/stage_dp.h"
#include "core/galvatron/strategy_space.h"

#include "search_test_util.h"
#include "worked_example_tables.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::galvatron;
using namespace stratex::test;

// Equal to the printed digits: |actual - expected| within half a unit of the last printed digit.
#define QCOMPARE_PRINTED(actual, expected, decimals)                                                                   \
    QVERIFY2(std::abs((actual) - (expected)) <= 0.5000001 * std::pow(10.0, -(decimals)),                               \
        qPrintable(QStringLiteral("%1 = %2, printed %3")                                                               \
                       .arg(QStringLiteral(#actual))                                                                   \
                       .arg(actual, 0, 'g', 17)                                                                        \
                       .arg(expected, 0, 'g', 17)))

namespace {

const SearchSettings& golden()
{
    static const SearchSettings settings = llamaSettings(36, 16);
    return settings;
}

const CostModel& goldenModel()
{
    static const CostModel model = withCurveFit(llamaInputs(), golden());
    return model;
}

const StrategySpace& goldenSpace()
{
    static const StrategySpace space = enumerateStrategies(golden());
    return space;
}

LayerStrategy layerNamed(const std::string& notation)
{
    for (const LayerStrategy& s : goldenSpace().layers) {
        if (s.notation() == notation)
            return s;
    }
    qFatal("no strategy %s", notation.c_str());
}

EmbeddingStrategy embeddingNamed(const std::string& notation)
{
    for (const EmbeddingStrategy& e : goldenSpace().embeddings) {
        if (e.notation() == notation)
            return e;
    }
    qFatal("no embedding strategy %s", notation.c_str());
}

} // namespace

class TestWorkedExample : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void enumeration();
    void winningTaskFilter();
    void zeroRatios();
    void budgetAndBuffer();
    void layerTimeSteps();
    void layerTable_data();
    void layerTable();
    void embeddingSteps();
    void embeddingTable_data();
    void embeddingTable();
    void transitionCosts();
    void knapsackOfWinningTask();
    void pipelineCostOfWinner();
    void pipelineExample();
};

void TestWorkedExample::enumeration()
{
    // §2.2: 50 layer strategies (24 / 16 / 8 / 2 at pp 1 / 2 / 4 / 8) and 25 embedding strategies.
    const StrategySpace& space = goldenSpace();
    QCOMPARE(space.layers.size(), std::size_t(50));
    QCOMPARE(space.embeddings.size(), std::size_t(25));
    int perPp[9] = {};
    for (const LayerStrategy& s : space.layers)
        ++perPp[s.pp];
    QCOMPARE(perPp[1], 24);
    QCOMPARE(perPp[2], 16);
    QCOMPARE(perPp[4], 8);
    QCOMPARE(perPp[8], 2);
    QCOMPARE(space.pipelineDegrees, std::vector<int>({ 1, 2, 4, 8 }));
    // Sorted order at pp 1: Ulysses (tp = 1) before Megatron TP.
    QStringList order;
    for (int i = 0; i < 24; ++i)
        order << QString::fromStdString(space.layers[std::size_t(i)].notation());
    QCOMPARE(order.mid(0, 10).join(QStringLiteral(", ")),
        QStringLiteral("1-1-8, 1-1-8-c, 1-1-8f, 1-1-8f-c, 1-2*-4-sp, 1-2*-4-c-sp, 1-2*-4f-sp, 1-2*-4f-c-sp, 1-4*-2-sp, "
                       "1-4*-2-c-sp"));
    QCOMPARE(order.mid(12, 6).join(QStringLiteral(", ")),
        QStringLiteral("1-8*-1-sp, 1-8*-1-c-sp, 1-2*-4, 1-2*-4-c, 1-2*-4f, 1-2*-4f-c"));
    QCOMPARE(order.last(), QStringLiteral("1-8*-1-c"));
    // §2.5: 74 tasks.
    QCOMPARE(buildTasks(golden(), space).size(), std::size_t(74));
}

void TestWorkedExample::winningTaskFilter()
{
    // §7.4: task (16, 1, 1, sp_only, 8): 14 layer strategies, 7 embedding strategies.
    SearchTask task;
    task.gbsz = 16;
    task.chunks = 1;
    task.pp = 1;
    task.mode = TpSpMode::SpOnly;
    task.buffer_tp = 8;
    QCOMPARE(maxDataParallel(task, 8), 8);
    const TaskCandidates candidates = taskCandidates(task, goldenSpace(), golden());
    QStringList layers;
    for (int i : candidates.layers)
        layers << QString::fromStdString(goldenSpace().layers[std::size_t(i)].notation());
    QCOMPARE(layers.join(QStringLiteral(", ")),
        QStringLiteral("1-1-8, 1-1-8-c, 1-1-8f, 1-1-8f-c, 1-2*-4-sp, 1-2*-4-c-sp, 1-2*-4f-sp, 1-2*-4f-c-sp, 1-4*-2-sp, "
                       "1-4*-2-c-sp, 1-4*-2f-sp, 1-4*-2f-c-sp, 1-8*-1-sp, 1-8*-1-c-sp"));
    QStringList embeddings;
    for (int i : candidates.embeddings)
        embeddings << QString::fromStdString(goldenSpace().embeddings[std::size_t(i)].notation());
    QCOMPARE(embeddings.join(QStringLiteral(", ")),
        QStringLiteral("1-1-8, 1-1-8f, 1-2*-4-sp, 1-2*-4f-sp, 1-4*-2-sp, 1-4*-2f-sp, 1-8*-1-sp"));
}

void TestWorkedExample::zeroRatios()
{
    // §4.2 (chunks 1, mixed precision).
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 8, 1, true, true), 0.237);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero3, 8, 1, true, true), 0.128);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 4, 1, true, true), 0.346375);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero3, 4, 1, true, true), 0.253);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 2, 1, true, true), 0.565125);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero3, 2, 1, true, true), 0.503);
    QCOMPARE_EXACT(zeroRatio(DpType::Ddp, 8, 4, true, true), 1.0);
    const double q = 1.0 / 8 + 0.003;
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 8, 4, true, true), 0.75 * q + 0.25);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero3, 8, 4, true, true), 0.875 * q + 0.125);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 8, 4, true, false), ((0.875 * q + 0.125) * 5) / 4);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 8, 4, false, false), 0.75 * q + 0.25); // no 5/4 (Q21)
    QCOMPARE_EXACT(zeroRatio(DpType::Zero3, 8, 4, false, false), (q * 5) / 4);
    QCOMPARE_EXACT(zeroRatio(DpType::Zero2, 8, 4, false, true), 0.5 * q + 0.5);
}

void TestWorkedExample::budgetAndBuffer()
{
    // §4.5
    const MemoryBudget b36 = memoryBudget(36);
    QCOMPARE(b36.total_mb, 36864);
    QCOMPARE(b36.reserve_mb, 7372);
    QCOMPARE(b36.dp_budget_mb, 29492);
    QCOMPARE(memoryBudget(24).reserve_mb, 4915);
    QCOMPARE(memoryBudget(24).dp_budget_mb, 19661);
    QCOMPARE(memoryBudget(20).reserve_mb, 0);
    QCOMPARE(memoryBudget(21).reserve_mb, 4300);
    QCOMPARE(memoryBudget(16).dp_budget_mb, 16384);
    // Stratex's --allocator-reserve: -1 is Galvatron's rule; a fraction applies at every size.
    QCOMPARE(memoryBudget(36, -1).reserve_mb, 7372);
    QCOMPARE(memoryBudget(36, 0.2).reserve_mb, 7372);
    QCOMPARE(memoryBudget(36, 0.0).reserve_mb, 0);
    QCOMPARE(memoryBudget(16, 0.1).reserve_mb, 1638);
    QCOMPARE(memoryBudget(16, 0.1).dp_budget_mb, 16384 - 1638);
    // §4.4: gbsz 16, chunks 1, pp 1: 32, 64, 128, 256 MB for B = 1 .. 8.
    QCOMPARE_EXACT(globalBufferMb(goldenModel(), 16, 1, 1, 1), 32.0);
    QCOMPARE_EXACT(globalBufferMb(goldenModel(), 16, 1, 1, 2), 64.0);
    QCOMPARE_EXACT(globalBufferMb(goldenModel(), 16, 1, 1, 4), 128.0);
    QCOMPARE_EXACT(globalBufferMb(goldenModel(), 16, 1, 1, 8), 256.0);
    // §7.10: gbsz 32, chunks 16, pp 4, B 2 -> 32 MB.
    QCOMPARE_EXACT(globalBufferMb(goldenModel(), 32, 16, 4, 2), 32.0);
}

void TestWorkedExample::layerTimeSteps()
{
    // §7.5: 1-1-8f without and with checkpointing.
    for (bool checkpoint : { false, true }) {
        const LayerTime t = layerTime(goldenModel(), layerNamed(checkpoint ? "1-1-8f-c" : "1-1-8f"), 16, 1);
        const LayerTimeSteps& s = t.steps;
        QCOMPARE(t.local_batch, std::int64_t(2));
        QCOMPARE_EXACT(3.85901689949117 * (2.0 / 1) + 0.8329851393754094, 8.55101893835775);
        QCOMPARE_EXACT(s.fct_ms, 273.632606027448);
        QCOMPARE_EXACT(s.bct_ms, checkpoint ? 820.897818082344 : 547.265212054896);
        QCOMPARE_EXACT(s.dp_message_mb, 21790.26171875);
        QCOMPARE_EXACT(s.zero3_message_mb, 10895.130859375);
        QCOMPARE_EXACT(s.dc_ms_per_mb, 0.0064849581395952085);
        QCOMPARE_EXACT(s.dco_ms_per_mb, 0.007299161323792202);
        QCOMPARE_PRINTED(s.sync_load_ms, 159.0506356, 7);
        QCOMPARE_PRINTED(s.backward_load_ms, checkpoint ? 923.9636518 : 615.9757679, 7);
        QVERIFY(s.sync_load_ms < s.backward_load_ms); // a < β: the sync hides in the backward
        QCOMPARE_PRINTED(s.overlapped_ms, 159.0506356, 7);
        QCOMPARE_PRINTED(s.rest_ms, checkpoint ? 679.5888830 : 405.9562770, 7);
        QCOMPARE_PRINTED(s.zero3_gather_ms, 70.65446755, 8);
        QCOMPARE_PRINTED(s.sync_total_ms, checkpoint ? 1182.926592 : 909.2939861, checkpoint ? 6 : 7);
        QCOMPARE_PRINTED(s.no_sync_total_ms, checkpoint ? 1165.184892 : 891.5522856, checkpoint ? 6 : 7);
        QCOMPARE_EXACT(t.sync_s, checkpoint ? 0.03696645600419197 : 0.028415437065834215);
        QCOMPARE_EXACT(t.no_sync_s, checkpoint ? 0.03641202786432034 : 0.027861008925962587);
    }
    // §7.6: memory of 1-1-8f (ZeRO-3 over 8, chunks 1, pp 1).
    const LayerMemory plain = layerMemory(goldenModel(), layerNamed("1-1-8f"), 16, 1, 0);
    QCOMPARE_EXACT(plain.model_states_mb, 398.45050000000003);
    QCOMPARE_EXACT(plain.activation_mb, 1029.126953125);
    QCOMPARE_EXACT(plain.total_mb, 1427.577453125);
    QCOMPARE(plain.weight_mb, 1428);
    const LayerMemory ckpt = layerMemory(goldenModel(), layerNamed("1-1-8f-c"), 16, 1, 0);
    QCOMPARE_EXACT(ckpt.activation_mb, 64.0);
    QCOMPARE_EXACT(ckpt.total_mb, 462.45050000000003);
    QCOMPARE(ckpt.weight_mb, 463);
}

void TestWorkedExample::layerTable_data()
{
    QTest::addColumn<int>("row");
    for (std::size_t i = 0; i < layerRows().size(); ++i)
        QTest::newRow(layerRows()[i].strategy) << int(i);
}

void TestWorkedExample::layerTable()
{
    QFETCH(int, row);
    const LayerRow& r = layerRows()[std::size_t(row)];
    const LayerStrategy s = layerNamed(r.strategy);
    const LayerTime t = layerTime(goldenModel(), s, 16, 1);
    const LayerMemory m = layerMemory(goldenModel(), s, 16, 1, 0);
    QCOMPARE(t.local_batch, std::int64_t(r.lbsz));
    QCOMPARE_PRINTED(t.steps.fct_ms, r.fctMs, 6);
    QCOMPARE_PRINTED(t.steps.bct_ms, r.bctMs, 7);
    QVERIFY(std::abs(t.steps.dp_message_mb - r.dpMessageMb) < 5e-6); // printed with 10 digits
    QVERIFY2(
        std::abs(t.steps.tp_comm_ms - r.tpCommMs) < 1e-9, qPrintable(QString::number(t.steps.tp_comm_ms, 'g', 17)));
    QCOMPARE_EXACT(t.sync_s, r.syncS);
    QCOMPARE_EXACT(t.no_sync_s, r.noSyncS);
    QVERIFY(std::abs(m.model_states_mb - r.modelStatesMb) < 5e-7);
    QVERIFY(std::abs(m.activation_mb - r.activationMb) < 5e-7);
    QVERIFY2(std::abs(m.total_mb - r.totalMb) < 1e-9, qPrintable(QString::number(m.total_mb, 'g', 17)));
    QCOMPARE(m.weight_mb, r.weightMb);
}

void TestWorkedExample::embeddingSteps()
{
    // §7.7: the winner's embedding 1-2*-4f-sp (vtp 2 as Ulysses, ZeRO-3).
    const EmbeddingStrategy e = embeddingNamed("1-2*-4f-sp");
    const EmbeddingTime t = embeddingTime(goldenModel(), e, 16, 1);
    QCOMPARE(t.local_batch, std::int64_t(4));
    QCOMPARE_EXACT(t.compute_ms, 7.715555903605743);
    QCOMPARE_EXACT(t.stages[0].message_mb, 516.29345703125);
    QCOMPARE_EXACT(t.dpc_ms_per_mb, 0.005674338372145807);
    QCOMPARE_PRINTED(t.stages[0].forward_comm_ms, 1.464811887, 9);
    QCOMPARE_PRINTED(t.stages[0].compute_ms * goldenModel().inputs().overlap_coe, 8.684263804, 9);
    QCOMPARE_PRINTED(t.stages[0].forward_ms, 7.878952005, 9);
    QCOMPARE_PRINTED(t.stages[0].backward_comm_ms, 2.929623775, 9);
    QCOMPARE_PRINTED(t.stages[0].compute_ms * 2 * goldenModel().inputs().overlap_coe, 17.36852761, 8);
    QCOMPARE_PRINTED(t.stages[0].backward_ms, 15.75790401, 8);
    QCOMPARE_PRINTED(t.stages[0].backward_no_sync_ms, 15.59450791, 8);
    QCOMPARE_EXACT(t.stages[0].vocab_tp_ms, 0.0);
    QCOMPARE_EXACT(t.sync_s[0], 0.023636856014630673);
    QCOMPARE_EXACT(t.no_sync_s[0], 0.023473459913359522);
    const EmbeddingMemory m = embeddingMemory(goldenModel(), e, 16, 1);
    QVERIFY(std::abs(m.model_states_mb[0] - 528.6845) < 1e-9);
    QCOMPARE_EXACT(m.activation_mb[0], 1435.359375);
    QVERIFY(std::abs(m.total_mb[0] - 2988.043875) < 1e-9);
    QCOMPARE(m.weight_mb[0], 2989);
}

void TestWorkedExample::embeddingTable_data()
{
    QTest::addColumn<int>("row");
    for (std::size_t i = 0; i < embeddingRows().size(); ++i)
        QTest::newRow(embeddingRows()[i].strategy) << int(i);
}

void TestWorkedExample::embeddingTable()
{
    QFETCH(int, row);
    const EmbeddingRow& r = embeddingRows()[std::size_t(row)];
    const EmbeddingStrategy e = embeddingNamed(r.strategy);
    const EmbeddingTime t = embeddingTime(goldenModel(), e, 16, 1);
    const EmbeddingMemory m = embeddingMemory(goldenModel(), e, 16, 1);
    QCOMPARE(t.local_batch, std::int64_t(r.lbsz));
    QCOMPARE_PRINTED(t.compute_ms, r.computeMs, 9);
    QVERIFY(std::abs(t.stages[0].message_mb - r.messageMb) < 5e-7);
    QCOMPARE_PRINTED(t.dpc_ms_per_mb, r.dpc, 12);
    QVERIFY(std::abs(t.stages[0].vocab_tp_ms - r.tpMs) < 1e-12);
    QCOMPARE_EXACT(t.sync_s[0], r.syncS);
    QCOMPARE_EXACT(t.no_sync_s[0], r.noSyncS);
    QVERIFY(std::abs(m.model_states_mb[0] - r.modelStatesMb) < 5e-7);
    QVERIFY(std::abs(m.activation_mb[0] - r.activationMb) < 5e-7);
    QVERIFY2(std::abs(m.total_mb[0] - r.totalMb) < 1e-9, qPrintable(QString::number(m.total_mb[0], 'g', 17)));
    QCOMPARE(m.weight_mb[0], r.weightMb);
}

void TestWorkedExample::transitionCosts()
{
    // §7.8, case 1 (TP/SP degree changes; depends on the larger degree only).
    const CostModel& model = goldenModel();
    QCOMPARE_EXACT(redistributionCost(model, 2, 1, 16, 1), 0.024287350531283475);
    QCOMPARE_EXACT(redistributionCost(model, 4, 1, 16, 1), 0.06326290135056153);
    QCOMPARE_EXACT(redistributionCost(model, 8, 1, 16, 1), 0.15231936084252573);
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-1-8f"), layerNamed("1-4*-2-c-sp"), 16, 1), 0.06326290135056153);
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-4*-2-c-sp"), layerNamed("1-1-8f"), 16, 1), 0.06326290135056153);
    // Case 2: the §5.2 bias table among z2, z2-c, z3, z3-c (rows former, columns latter).
    const char* names[4] = { "1-1-8", "1-1-8-c", "1-1-8f", "1-1-8f-c" };
    const double expected[4][4] = { { 0, 2e-9, 1e-9, 3e-9 }, { 0, 0, 0, 3e-9 }, { 0, 1e-9, 0, 3e-9 }, { 0, 0, 0, 0 } };
    for (int a = 0; a < 4; ++a) {
        for (int b = 0; b < 4; ++b)
            QCOMPARE_EXACT(interLayerCost(model, layerNamed(names[a]), layerNamed(names[b]), 16, 1), expected[a][b]);
    }
    // dp = 1: ddp -> ddp-c 2e-9, reverse 0; TP t -> Ulysses t 1e-10, reverse 0.
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-8*-1"), layerNamed("1-8*-1-c"), 16, 1), 2e-9);
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-8*-1-c"), layerNamed("1-8*-1"), 16, 1), 0.0);
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-2*-4"), layerNamed("1-2*-4-sp"), 16, 1), 1e-10);
    QCOMPARE_EXACT(interLayerCost(model, layerNamed("1-2*-4-sp"), layerNamed("1-2*-4"), 16, 1), 0.0);
}

void TestWorkedExample::knapsackOfWinningTask()
{
    // §7.8: the DP of task (16, 1, 1, sp_only, 8): 32 layers, 29493 rows, 14 strategies.
    const CostModel& model = goldenModel();
    SearchTask task;
    task.gbsz = 16;
    task.chunks = 1;
    task.pp = 1;
    task.mode = TpSpMode::SpOnly;
    task.buffer_tp = 8;
    const TaskCandidates candidates = taskCandidates(task, goldenSpace(), golden());
    const int S = int(candidates.layers.size());
    std::vector<int> weights;
    std::vector<double> intra;
    std::vector<double> inter;
    std::vector<double> noSync;
    for (int i : candidates.layers) {
        const LayerStrategy& s = goldenSpace().layers[std::size_t(i)];
        weights.push_back(layerMemory(model, s, 16, 1, 0).weight_mb);
        const LayerTime t = layerTime(model, s, 16, 1);
        intra.push_back(t.sync_s);
        noSync.push_back(t.no_sync_s);
    }
    for (int a : candidates.layers) {
        for (int b : candidates.layers)
            inter.push_back(interLayerCost(
                model, goldenSpace().layers[std::size_t(a)], goldenSpace().layers[std::size_t(b)], 16, 1));
    }
    StageDp dp;
    dp.run({ 29492, 32, S, weights.data(), intra.data(), inter.data() });

    // The row f[26503][.] read for the winning embedding (#3).
    const double row[14] = { 1.0822415274795405, 1.0822415284795406, 1.080314364873851, 1.0803143678738507,
        1.1099080301217132, 1.108285678010824, 1.1057729154051343, 1.1063585154051343, 1.1502879809409912,
        1.149367828830102, 1.1461528662244123, 1.1474406662244123, 1.260716802280689, 1.2633130022806889 };
    for (int s = 0; s < S; ++s)
        QCOMPARE_EXACT(dp.value(32, 26503, s), row[s]);

    // One read-out per embedding candidate: O = E, r = M - O, argmin, plan, remaining, pipeline cost.
    struct Expected {
        const char* embedding;
        int other;
        int argmin;
        double objective;
        std::vector<std::pair<int, int>> plan; // (strategy position, layers)
        int remaining;
        double cost;
    };
    const std::vector<Expected> rows = {
        { "1-1-8", 3687, 2, 1.0866574317013191, { { 3, 20 }, { 1, 1 }, { 2, 11 } }, 35, 1.0920623989362435 },
        { "1-1-8f", 3236, 0, 1.0844494795904298, { { 3, 20 }, { 1, 1 }, { 2, 10 }, { 0, 1 } }, 147,
            1.0901812390278964 },
        { "1-2*-4-sp", 3439, 2, 1.0866574317013191, { { 3, 20 }, { 1, 1 }, { 2, 11 } }, 283, 1.0920623989362435 },
        { "1-2*-4f-sp", 2989, 2, 1.080314364873851, { { 3, 20 }, { 2, 12 } }, 107, 1.0860461243113173 },
        { "1-4*-2-sp", 3312, 0, 1.0844494795904298, { { 3, 20 }, { 1, 1 }, { 2, 10 }, { 0, 1 } }, 71,
            1.0898544468253542 },
        { "1-4*-2f-sp", 2862, 2, 1.080314364873851, { { 3, 20 }, { 2, 12 } }, 234, 1.0860461243113173 },
        { "1-8*-1-sp", 6405, 2, 1.1123104885163924, { { 3, 23 }, { 1, 1 }, { 2, 8 } }, 212, 1.1177154557513167 },
    };
    for (const Expected& e : rows) {
        const EmbeddingStrategy embedding = embeddingNamed(e.embedding);
        const int other = embeddingMemory(model, embedding, 16, 1).weight_mb[0];
        QCOMPARE(other, e.other);
        std::vector<int> plan(32);
        const StageDp::Readout out = dp.readout(29492 - other, 32, plan);
        QVERIFY(out.feasible);
        QCOMPARE(plan.back(), e.argmin);
        QCOMPARE_EXACT(out.objective_s, e.objective);
        std::vector<int> expectedPlan;
        for (const auto& [position, count] : e.plan)
            expectedPlan.insert(expectedPlan.end(), std::size_t(count), position);
        QCOMPARE(plan, expectedPlan);
        QCOMPARE(out.remaining_mb, e.remaining);
        std::vector<double> sync;
        std::vector<double> noSyncPlan;
        for (int position : plan) {
            sync.push_back(intra[std::size_t(position)]);
            noSyncPlan.push_back(noSync[std::size_t(position)]);
        }
        const std::vector<int> division { 32 };
        const PipelineCost cost
            = pipelineCost(sync, noSyncPlan, division, embeddingTime(model, embedding, 16, 1).no_sync_s, 1);
        QCOMPARE_EXACT(cost.time_cost_s, e.cost);
    }
    // The DP total Galvatron's C++ returns and its caller discards (#3): f + W.
    std::vector<int> plan(32);
    const StageDp::Readout winner = dp.readout(29492 - 2989, 32, plan);
    QCOMPARE_EXACT(
        winner.objective_s + embeddingTime(model, embeddingNamed("1-2*-4f-sp"), 16, 1).sync_s[0], 1.1039512208884816);
}

void TestWorkedExample::pipelineCostOfWinner()
{
    // §7.9: 20 x 1-1-8f-c then 12 x 1-1-8f, embedding N = 0.023473459913359522, pp 1, chunks 1.
    std::vector<double> sync(20, 0.03696645600419197);
    sync.insert(sync.end(), 12, 0.028415437065834215);
    std::vector<double> noSync(20, 0.03641202786432034);
    noSync.insert(noSync.end(), 12, 0.027861008925962587);
    QCOMPARE_EXACT(profile::numpySum(sync), 1.0803143648738498);
    QCOMPARE_EXACT(profile::numpySum(noSync), 1.0625726643979578);
    double sequential = 0;
    for (double v : noSync)
        sequential += v;
    QCOMPARE_EXACT(sequential, 1.0625726643979572); // why numpy's pairwise sum matters
    const std::vector<int> division { 32 };
    const std::vector<double> embedding { 0.023473459913359522 };
    const PipelineCost cost = pipelineCost(sync, noSync, division, embedding, 1);
    QCOMPARE_EXACT(cost.stage_sync_s[0], 1.0803143648738498);
    QCOMPARE_EXACT(cost.stage_no_sync_s[0], 1.0860461243113173);
    QCOMPARE_EXACT(cost.sequential_s, 1.0860461243113173);
    QCOMPARE_EXACT(cost.steady_state_s, 1.0860461243113173);
    QVERIFY(cost.exposed_sync_s[0] < 0);
    QCOMPARE_EXACT(cost.sync_tail_s, 0.0);
    QCOMPARE_EXACT(cost.time_cost_s, 1.0860461243113173);
    QCOMPARE_EXACT(16 / cost.time_cost_s, 14.73233930110096);
    // Memory: 20 x 463 + 12 x 1428 + 2989 + int(0) = 29385 <= 29492; cost = 29492 - 107 + 7372.
    QCOMPARE(20 * 463 + 12 * 1428 + 2989, 29385);
    QCOMPARE(29492 - (29492 - 29385) + 7372, 36757);
}

void TestWorkedExample::pipelineExample()
{
    // §7.10: 24 GB, settle_bsz 32, task (32, 16, 4, tp_only, 2).
    const SearchSettings settings = llamaSettings(24, 32);
    const CostModel model = withCurveFit(llamaInputs(), settings);
    const StrategySpace space = enumerateStrategies(settings);
    for (const PipelineLayerRow& r : pipelineLayerRows()) {
        LayerStrategy s;
        for (const LayerStrategy& candidate : space.layers) {
            if (candidate.notation() == r.strategy)
                s = candidate;
        }
        QCOMPARE(QString::fromStdString(s.notation()), QString::fromLatin1(r.strategy));
        const LayerTime t = layerTime(model, s, 32, 16);
        QCOMPARE(t.local_batch, std::int64_t(r.lbsz));
        QCOMPARE_PRINTED(t.steps.fct_ms, r.fctMs, 7);
        QCOMPARE_EXACT(t.steps.p2p_message_mb, r.p2pMessageMb);
        QCOMPARE_EXACT(t.sync_s, r.syncS);
        QCOMPARE_EXACT(t.no_sync_s, r.noSyncS);
        for (int stage = 0; stage < 4; ++stage)
            QCOMPARE(layerMemory(model, s, 32, 16, stage).weight_mb, r.weightsMb[std::size_t(stage)]);
    }
    QCOMPARE_EXACT(model.inputs().p2p.at(4), 0.007215996420865776);

    EmbeddingStrategy embedding;
    for (const EmbeddingStrategy& e : space.embeddings) {
        if (e.notation() == "4-1-2f")
            embedding = e;
    }
    const EmbeddingTime et = embeddingTime(model, embedding, 32, 16);
    QCOMPARE_PRINTED(et.compute_ms, 5.035227582, 9);
    QCOMPARE_PRINTED(et.stages[0].compute_ms, 2.517613791, 9);
    QCOMPARE_PRINTED(et.stages[0].message_mb, 252.6256104, 7);
    QCOMPARE_PRINTED(et.stages[3].message_mb, 252.6334229, 7);
    QCOMPARE(et.no_sync_s, std::vector<double>({ 0.007654826646847401, 0, 0, 0.007654829800763371 }));
    QCOMPARE(embeddingMemory(model, embedding, 32, 16).weight_mb, std::vector<int>({ 2962, 1024, 1024, 2884 }));

    // The plan: stage 0 4-1-2-c x8; stage 1 4-2*-1-c x5, 4-2*-1 x3; stage 2 x3 / x5; stage 3 x1 / x7.
    const auto time = [&](const char* name) {
        for (const LayerStrategy& s : space.layers) {
            if (s.notation() == name)
                return layerTime(model, s, 32, 16);
        }
        return LayerTime {};
    };
    std::vector<std::pair<const char*, int>> runs = { { "4-1-2-c", 8 }, { "4-2*-1-c", 5 }, { "4-2*-1", 3 },
        { "4-2*-1-c", 3 }, { "4-2*-1", 5 }, { "4-2*-1-c", 1 }, { "4-2*-1", 7 } };
    std::vector<double> sync;
    std::vector<double> noSync;
    for (const auto& [name, count] : runs) {
        const LayerTime t = time(name);
        sync.insert(sync.end(), std::size_t(count), t.sync_s);
        noSync.insert(noSync.end(), std::size_t(count), t.no_sync_s);
    }
    const PipelineCost cost = pipelineCost(sync, noSync, evenDivision(32, 4), et.no_sync_s, 16);
    QCOMPARE(cost.stage_sync_s,
        std::vector<double>({ 0.1532038945832605, 0.14371503289806623, 0.13364672882033307, 0.1235784247425999 }));
    QCOMPARE(cost.stage_no_sync_s,
        std::vector<double>({ 0.15802980377604567, 0.14371503289806623, 0.13364672882033307, 0.13123325454336326 }));
    for (std::size_t i = 0; i < 4; ++i) {
        QCOMPARE_EXACT(cost.stage_sync_s[i],
            (std::vector<double> {
                0.1532038945832605, 0.14371503289806623, 0.13364672882033307, 0.1235784247425999 })[i]);
        QCOMPARE_EXACT(cost.exposed_sync_s[i],
            (std::vector<double> {
                -0.004825909192785166, -0.15802980377604567, -0.3017448366741119, -0.44304639529520834 })[i]);
    }
    QCOMPARE_EXACT(cost.sequential_s, 2.5351236381882574);
    QCOMPARE_EXACT(cost.steady_state_s, 2.5284768604167307);
    QCOMPARE_EXACT(cost.sync_tail_s, 0.0);
    QCOMPARE_EXACT(cost.time_cost_s, 2.5351236381882574);
    QCOMPARE_EXACT(32 / cost.time_cost_s, 12.622658523617021);
}

QTEST_GUILESS_MAIN(TestWorkedExample)
#include "tst_worked_example.moc"
