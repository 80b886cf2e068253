// SPDX-License-Identifier: GPL-3.0-or-later
// Tracer rank selection and batch configs, against the seed tracer's tables (seeds 000 and 001).
#include <set>

#include <QTest>

#include "core/ranks/batch_config.h"
#include "core/ranks/ranks_json.h"
#include "core/ranks/tracer_plan.h"

using namespace stratex::ranks;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {
std::vector<int> range(int first, int count, int step)
{
    std::vector<int> values;
    for (int i = 0; i < count; ++i)
        values.push_back(first + i * step);
    return values;
}
} // namespace

class TestTracerPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void denseSelection_data();
    void denseSelection();
    void moeSelection_data();
    void moeSelection();
    void seedBatchTable_data();
    void seedBatchTable();
    void parseBatchLines_data();
    void parseBatchLines();
    void batchListSkipsInvalidAndGoesOn();
    void emptyListFallsBackToDefault();
    void globalBatchDerivation_data();
    void globalBatchDerivation();
    void jsonShape();
};

void TestTracerPlan::denseSelection_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<QString>("order");
    QTest::addColumn<std::vector<int>>("ranks");
    QTest::addColumn<double>("saving");

    // Seed 000 table.
    QTest::newRow("pp2-tp2-dp1") << 4 << 2 << 2 << 1 << kDefaultOrder << std::vector<int> { 0, 2 } << 50.0;
    QTest::newRow("pp4-tp2-dp1") << 8 << 4 << 2 << 1 << kDefaultOrder << std::vector<int> { 0, 2, 4, 6 } << 50.0;
    QTest::newRow("pp2-tp4-dp1") << 8 << 2 << 4 << 1 << kDefaultOrder << std::vector<int> { 0, 4 } << 75.0;
    QTest::newRow("pp8-tp1-dp1") << 8 << 8 << 1 << 1 << kDefaultOrder << range(0, 8, 1) << 0.0;
    // Seed 001: WS 8192, PP 16, TP 8 -> 0, 512, 1024, ... (16 of 8192).
    QTest::newRow("ws8192-pp16-tp8") << 8192 << 16 << 8 << 1 << kDefaultOrder << range(0, 16, 512) << 99.8;
    QTest::newRow("ws8192-pp32-tp4") << 8192 << 32 << 4 << 1 << kDefaultOrder << range(0, 32, 256) << 99.6;
    // With CP the stage stride is TP*CP*DP = world/PP.
    QTest::newRow("cp2") << 64 << 4 << 2 << 2 << kDefaultOrder << range(0, 4, 16) << 93.8;
    // --use-tp-pp-dp-mapping: stage p -> p*TP*CP (Megatron refuses CP > 1 there unless ETP*EP = TP*CP).
    QTest::newRow("pp-before-dp") << 64 << 4 << 2 << 1 << "tp-cp-ep-pp-dp" << range(0, 4, 2) << 93.8;
}

void TestTracerPlan::denseSelection()
{
    QFETCH(int, world);
    QFETCH(int, pp);
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(QString, order);
    QFETCH(std::vector<int>, ranks);
    QFETCH(double, saving);

    TracerSettings settings;
    settings.cp = cp;
    settings.order = order.toStdString();
    BatchConfig input;
    input.world = world;
    input.pp = pp;
    input.tp = tp;
    const TraceConfigPlan plan = planTraceConfig(1, input, settings);
    QVERIFY2(plan.valid, plan.error.c_str());
    QCOMPARE(plan.ranks, ranks);
    QCOMPARE(plan.originalRanks, world);
    QCOMPARE(plan.savingPercent, saving);
}

void TestTracerPlan::moeSelection_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<int>("etp");
    QTest::addColumn<std::vector<int>>("ranks");

    // Expert grid r = etp + ep*ETP + edp*ETP*EP + pp*W/PP: ranks ep*ETP + pp*W/PP.
    QTest::newRow("w64-pp2-tp2-ep4") << 64 << 2 << 2 << 4 << 0 << std::vector<int> { 0, 2, 4, 6, 32, 34, 36, 38 };
    QTest::newRow("folded-etp1") << 64 << 2 << 2 << 8 << 1
                                 << std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7, 32, 33, 34, 35, 36, 37, 38, 39 };
    QTest::newRow("ep1-is-dense") << 16 << 4 << 2 << 1 << 0 << std::vector<int> { 0, 4, 8, 12 };
}

void TestTracerPlan::moeSelection()
{
    QFETCH(int, world);
    QFETCH(int, pp);
    QFETCH(int, tp);
    QFETCH(int, ep);
    QFETCH(int, etp);
    QFETCH(std::vector<int>, ranks);
    ParallelConfig config;
    config.world = world;
    config.pp = pp;
    config.tp = tp;
    config.ep = ep;
    config.etp = etp;
    const RankGrid grid = RankGrid::create(config);
    QCOMPARE(selectTraceRanks(grid, TraceSelection::Moe), ranks);
    // Every selected rank has etp = edp = 0, and all (pp, ep) pairs are covered once.
    std::set<std::pair<int, int>> covered;
    for (int rank : ranks) {
        const RankCoordinates c = grid.coordinates(rank);
        QCOMPARE(c.etp, 0);
        QCOMPARE(c.edp, 0);
        covered.insert({ c.pp, c.ep });
    }
    QCOMPARE(int(covered.size()), pp * ep);
}

void TestTracerPlan::seedBatchTable_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("selected");
    QTest::addColumn<double>("saving");
    QTest::addColumn<QString>("logDir");
    // Seed 001's batch table and its log directory names (model 485, one micro-batch of one sample).
    QTest::newRow("8192-16-8") << "8192 16 8" << 64 << 16 << 99.8
                               << "SIM_GPT_485_Config1_WS8192_PP16_TP8_DP64_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH64";
    QTest::newRow("8192-32-8") << "8192 32 8" << 32 << 32 << 99.6
                               << "SIM_GPT_485_Config1_WS8192_PP32_TP8_DP32_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH32";
    QTest::newRow("8192-32-4") << "8192 32 4" << 64 << 32 << 99.6
                               << "SIM_GPT_485_Config1_WS8192_PP32_TP4_DP64_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH64";
    QTest::newRow("4096-16-4") << "4096 16 4" << 64 << 16 << 99.6
                               << "SIM_GPT_485_Config1_WS4096_PP16_TP4_DP64_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH64";
    QTest::newRow("2048-8-4") << "2048 8 4" << 64 << 8 << 99.6
                              << "SIM_GPT_485_Config1_WS2048_PP8_TP4_DP64_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH64";
}

void TestTracerPlan::seedBatchTable()
{
    QFETCH(QString, line);
    QFETCH(int, dp);
    QFETCH(int, selected);
    QFETCH(double, saving);
    QFETCH(QString, logDir);
    const TraceConfigPlan plan = planTraceConfig(1, parseBatchConfigLine(line.toStdString()), TracerSettings {});
    QVERIFY2(plan.valid, plan.error.c_str());
    QCOMPARE(plan.dp, dp);
    QCOMPARE(int(plan.ranks.size()), selected);
    QCOMPARE(plan.savingPercent, saving);
    QCOMPARE(QString::fromStdString(plan.logDir), logDir);
}

void TestTracerPlan::parseBatchLines_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("tp");
    QTest::addColumn<QString>("error");
    QTest::newRow("plain") << "8192 16 8" << 8192 << 16 << 8 << "";
    QTest::newRow("tabs-and-comment") << "\t4096\t16  4   # world_size=4096" << 4096 << 16 << 4 << "";
    QTest::newRow("bash-quoted") << "\"8192 32 8\"   # from BATCH_CONFIGS" << 8192 << 32 << 8 << "";
    QTest::newRow("commas") << "1024,8,2" << 1024 << 8 << 2 << "";
    QTest::newRow("two-fields") << "8192 16" << 0 << 0 << 0 << "expected three numbers";
    QTest::newRow("four-fields") << "8192 16 8 2" << 0 << 0 << 0 << "expected three numbers";
    QTest::newRow("word") << "abc 16 8" << 0 << 0 << 0 << "WORLD_SIZE must be an integer";
    QTest::newRow("fraction") << "8192 1.5 8" << 0 << 0 << 0 << "PP must be an integer";
    QTest::newRow("zero-tp") << "8192 16 0" << 0 << 0 << 0 << "TP must be a positive integer";
    QTest::newRow("negative") << "-8 1 1" << 0 << 0 << 0 << "WORLD_SIZE must be a positive integer";
    QTest::newRow("overflow") << "99999999999 1 1" << 0 << 0 << 0 << "WORLD_SIZE must be";
}

void TestTracerPlan::parseBatchLines()
{
    QFETCH(QString, line);
    QFETCH(int, world);
    QFETCH(int, pp);
    QFETCH(int, tp);
    QFETCH(QString, error);
    const BatchConfig config = parseBatchConfigLine(line.toStdString());
    if (error.isEmpty()) {
        QVERIFY2(config.parseError.empty(), config.parseError.c_str());
        QCOMPARE(config.world, world);
        QCOMPARE(config.pp, pp);
        QCOMPARE(config.tp, tp);
    } else {
        QVERIFY2(QString::fromStdString(config.parseError).contains(error), config.parseError.c_str());
    }
}

void TestTracerPlan::batchListSkipsInvalidAndGoesOn()
{
    const std::string text = "# tracer batch\n"
                             "8192 16 8\n"
                             "\n"
                             "4096 16 3   # 4096 is not divisible by 48\n"
                             "8192 16\n"
                             "   # indented comment\n"
                             "2048 8 4\n";
    const std::vector<BatchConfig> configs = parseBatchConfigs(text);
    QCOMPARE(int(configs.size()), 4);
    QCOMPARE(configs[1].lineNumber, 4);
    const std::vector<TraceConfigPlan> plans = planTracer(configs, TracerSettings {});
    QCOMPARE(int(plans.size()), 4);
    QVERIFY(plans[0].valid);
    QVERIFY(!plans[1].valid);
    QVERIFY2(QString::fromStdString(plans[1].error).contains(QStringLiteral("not divisible by tp*pp*cp")),
        plans[1].error.c_str());
    QVERIFY(!plans[2].valid);
    QVERIFY(plans[3].valid);
    QCOMPARE(plans[3].index, 4); // "Config<i>" keeps the position in the list
    QVERIFY(QString::fromStdString(plans[3].logDir).startsWith(QStringLiteral("SIM_GPT_485_Config4_WS2048_")));
}

void TestTracerPlan::emptyListFallsBackToDefault()
{
    const std::vector<TraceConfigPlan> plans = planTracer(parseBatchConfigs("# nothing here\n\n"), TracerSettings {});
    QCOMPARE(int(plans.size()), 1);
    QVERIFY(plans[0].valid);
    QCOMPARE(plans[0].input.world, 8192);
    QCOMPARE(plans[0].input.pp, 2);
    QCOMPARE(plans[0].input.tp, 2);
    QCOMPARE(plans[0].ranks, (std::vector<int> { 0, 4096 }));
}

void TestTracerPlan::globalBatchDerivation_data()
{
    QTest::addColumn<int>("microBatches");
    QTest::addColumn<int>("microBatchSize");
    QTest::addColumn<int>("globalBatch");
    QTest::addColumn<int>("expectedMicroBatches");
    QTest::addColumn<int>("expectedGlobal");
    QTest::addColumn<QString>("error");
    // World 8192, PP 16, TP 8 -> DP 64.
    QTest::newRow("defaults") << 0 << 1 << 0 << 1 << 64 << "";
    QTest::newRow("micro-batches") << 4 << 2 << 0 << 4 << 512 << "";
    QTest::newRow("from-global") << 0 << 2 << 1024 << 8 << 1024 << "";
    QTest::newRow("consistent") << 8 << 2 << 1024 << 8 << 1024 << "";
    QTest::newRow("indivisible") << 0 << 1 << 100 << 0 << 0 << "not divisible by micro-batch size * DP";
    QTest::newRow("inconsistent") << 4 << 2 << 1024 << 0 << 0 << "means 8 micro-batches";
}

void TestTracerPlan::globalBatchDerivation()
{
    QFETCH(int, microBatches);
    QFETCH(int, microBatchSize);
    QFETCH(int, globalBatch);
    QFETCH(int, expectedMicroBatches);
    QFETCH(int, expectedGlobal);
    QFETCH(QString, error);
    TracerSettings settings;
    settings.microBatches = microBatches;
    settings.microBatchSize = microBatchSize;
    settings.globalBatch = globalBatch;
    const TraceConfigPlan plan = planTraceConfig(1, parseBatchConfigLine("8192 16 8"), settings);
    if (!error.isEmpty()) {
        QVERIFY(!plan.valid);
        QVERIFY2(QString::fromStdString(plan.error).contains(error), plan.error.c_str());
        return;
    }
    QVERIFY2(plan.valid, plan.error.c_str());
    QCOMPARE(plan.microBatches, expectedMicroBatches);
    QCOMPARE(plan.globalBatch, expectedGlobal);
    QVERIFY(QString::fromStdString(plan.logDir)
                .endsWith(QStringLiteral("_nMICROB%1_MICROB_SIZE%2_GLOBAL_BATCH%3")
                              .arg(expectedMicroBatches)
                              .arg(microBatchSize)
                              .arg(expectedGlobal)));
}

void TestTracerPlan::jsonShape()
{
    std::vector<BatchConfig> configs { parseBatchConfigLine("8192 16 8"), parseBatchConfigLine("4096 16 3") };
    const auto json = tracerJson(planTracer(configs, TracerSettings {}));
    const auto& first = json["configs"][0];
    QCOMPARE(first["index"].get<int>(), 1);
    QCOMPARE(first["world"].get<int>(), 8192);
    QCOMPARE(first["dp"].get<int>(), 64);
    QCOMPARE(first["valid"].get<bool>(), true);
    QCOMPARE(first["ranks"].size(), std::size_t(16));
    QCOMPARE(first["ranks"][1].get<int>(), 512);
    QCOMPARE(first["original_ranks"].get<int>(), 8192);
    QCOMPARE(first["selected_ranks"].get<int>(), 16);
    QCOMPARE(first["saving_percent"].dump(), std::string("99.8"));
    const auto& second = json["configs"][1];
    QCOMPARE(second["valid"].get<bool>(), false);
    QVERIFY(second.contains("error"));
    QVERIFY(!second.contains("ranks"));
}

QTEST_GUILESS_MAIN(TestTracerPlan)
#include "tst_tracer_plan.moc"
