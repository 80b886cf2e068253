// SPDX-License-Identifier: GPL-3.0-or-later
// Galvatron main's answers, reproduced: the three real runs of expected_main.json (strategy key
// for key, time to 1e-9 relative with our least-squares fits, memory per stage to the MB), every
// one of the 74 tasks of the golden run and the other runs of docs/galvatron-search.md §7.12 bit for bit with
// Galvatron's own fit coefficients, and results independent of the thread count.
#include <QTest>

#include "core/common/progress.h"
#include "core/export/galvatron_config.h"
#include "core/galvatron/search_engine.h"

#include "golden_tasks.h"
#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::test;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {

const nlohmann::ordered_json& baselineJson()
{
    static const nlohmann::ordered_json json
        = readJsonFile(fixture(QStringLiteral("galvatron-baseline/expected_main.json")).toStdString());
    return json;
}

SearchSettings settingsOf(const nlohmann::ordered_json& s)
{
    SearchSettings settings;
    settings.num_nodes = s["num_nodes"];
    settings.num_gpus_per_node = s["gpus_per_node"];
    settings.memory_constraint_gb = s["memory_constraint_gb"];
    settings.settle_bsz = s["settle_bsz"];
    settings.settle_chunk = s["settle_chunk"];
    settings.time_profile_mode = *profile::parseTimeProfileMode(s["time_profile_mode"].get<std::string>());
    settings.memory_profile_mode = *profile::parseMemoryProfileMode(s["memory_profile_mode"].get<std::string>());
    settings.mixed_precision = *galvatron::parseMixedPrecision(s["mixed_precision"].get<std::string>());
    settings.default_dp_type = *galvatron::parseDpType(s["default_dp_type"].get<std::string>());
    settings.pipeline_type = *galvatron::parsePipelineType(s["pipeline_type"].get<std::string>());
    settings.async_grad_reduce = s["async_grad_reduce"];
    settings.sequence_parallel = s["sequence_parallel"];
    settings.global_memory_buffer = s["global_memory_buffer"];
    settings.max_tp_deg = s["max_tp_deg"];
    settings.max_pp_deg = s["max_pp_deg"];
    settings.max_sp_deg = s["max_sp_deg"];
    const auto& m = s["model"];
    settings.model = { m["name"], m["seq_length"], m["hidden_size"], m["num_layers"], m["num_heads"], m["vocab_size"] };
    return settings;
}

std::string modeOf(const Plan& plan)
{
    return std::string(tpSpModeName(plan.tp_sp_mode));
}

} // namespace

class TestSearchBaseline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void expectedMain_data();
    void expectedMain();
    void goldenTaskTable();
    void galvatronRuns_data();
    void galvatronRuns();
    void threadCountDoesNotMatter();
};

void TestSearchBaseline::expectedMain_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < baselineJson()["cases"].size(); ++i)
        QTest::newRow(baselineJson()["cases"][i]["name"].get<std::string>().c_str()) << int(i);
}

void TestSearchBaseline::expectedMain()
{
    QFETCH(int, index);
    const auto& c = baselineJson()["cases"][std::size_t(index)];
    const auto& expected = c["expected"];
    const SearchSettings settings = settingsOf(c["settings"]);
    const SearchInputs inputs = llamaInputs();
    NullProgress progress;

    for (bool curveFit : { false, true }) {
        const SearchResult result = curveFit
            ? stratex::galvatron::search(withCurveFit(inputs, settings), settings, progress, 2)
            : stratex::galvatron::search(inputs, settings, progress, 2);
        QVERIFY(result.best.has_value());
        const Plan& best = *result.best;
        QCOMPARE(best.gbsz, expected["gbsz"].get<int>());
        QCOMPARE(best.chunks, expected["chunks"].get<int>());
        QCOMPARE(best.pp, expected["pp"].get<int>());
        QCOMPARE(best.memory_cost_mb_per_stage, expected["memory_cost_mb_per_stage"].get<std::vector<int>>());
        QCOMPARE(best.memory_remaining_mb_per_stage, expected["memory_remaining_mb_per_stage"].get<std::vector<int>>());
        // Strategy key for key, in Galvatron's key order.
        const nlohmann::ordered_json strategy = exporting::galvatronConfigJson(best);
        QCOMPARE(strategy.dump(), expected["strategy"].dump());
        const double expectedTime = expected["time_cost_s"].get<double>();
        if (curveFit)
            QCOMPARE_EXACT(best.time_cost_s, expectedTime);
        else
            QVERIFY2(std::abs(best.time_cost_s / expectedTime - 1) < 1e-9,
                qPrintable(QString::number(best.time_cost_s, 'g', 17)));
        QCOMPARE_EXACT(best.throughput_samples_per_s, best.gbsz / best.time_cost_s);
    }
}

void TestSearchBaseline::goldenTaskTable()
{
    const SearchSettings settings = llamaSettings(36, 16);
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(withCurveFit(llamaInputs(), settings), settings, progress, 2);
    const auto& golden = goldenTasks();
    QCOMPARE(result.tasks.size(), golden.size());
    for (std::size_t i = 0; i < golden.size(); ++i) {
        const TaskSummary& task = result.tasks[i];
        const GoldenTask& g = golden[i];
        const QByteArray where = "task #" + QByteArray::number(int(i));
        QVERIFY2(task.task.gbsz == 16 && task.task.chunks == g.chunks && task.task.pp == g.pp
                && std::string(tpSpModeName(task.task.mode)) == g.mode && task.task.buffer_tp == g.bufferTp,
            where.constData());
        if (g.timeCost == 0.0) {
            QVERIFY2(task.status == TaskOutcome::Status::Infeasible, where.constData());
            QVERIFY2(task.throughput_samples_per_s == 0.0, where.constData());
            continue;
        }
        QVERIFY2(task.status == TaskOutcome::Status::Feasible, where.constData());
        QVERIFY2(task.time_cost_s == g.timeCost,
            qPrintable(QStringLiteral("%1: time %2, expected %3")
                           .arg(QString::fromLatin1(where))
                           .arg(task.time_cost_s, 0, 'g', 17)
                           .arg(g.timeCost, 0, 'g', 17)));
        QVERIFY2(task.throughput_samples_per_s == g.throughput, where.constData());
        QVERIFY2(task.memory_cost_mb_per_stage == g.memory, where.constData());
        QVERIFY2(task.vtp == g.vtp && task.vsp == g.vsp && task.embed_sdp == g.embedSdp, where.constData());
    }
    // The plans of the per-group bests carry memory and embedding choices: check them all.
    int checked = 0;
    for (const Plan& plan : result.top) {
        const GoldenTask& g = golden[std::size_t(plan.task_index)];
        QCOMPARE(plan.memory_cost_mb_per_stage, g.memory);
        QCOMPARE(plan.vtp(), g.vtp);
        QCOMPARE(plan.vsp(), g.vsp);
        QCOMPARE(plan.embedSdp(), g.embedSdp);
        ++checked;
    }
    QVERIFY(checked > 0);
    // Galvatron main calls its C++ DP 520 times in this run (docs/galvatron-search.md §5.6); we compute far fewer.
    QCOMPARE(result.stats.galvatron_dp_calls, std::int64_t(520));
    QVERIFY(result.stats.dp_calls < 150);
    QCOMPARE(result.best->task_index, 4);
}

void TestSearchBaseline::galvatronRuns_data()
{
    QTest::addColumn<int>("memory");
    QTest::addColumn<int>("bsz");
    QTest::addColumn<QString>("timeMode");
    QTest::addColumn<QString>("variant");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<int>("pp");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("bufferTp");
    QTest::addColumn<double>("time");
    QTest::addColumn<std::vector<int>>("memoryPerStage");
    QTest::addColumn<QString>("embedding");
    // docs/galvatron-search.md §7.12 (1 node x 8 GPUs).
    QTest::newRow("16GB bsz16") << 16 << 16 << "batch"
                                << "" << 2 << 1 << "tp_with_sp" << 8 << 1.6014062718496251 << std::vector<int> { 16353 }
                                << "2/1/1";
    QTest::newRow("16GB bsz32") << 16 << 32 << "batch"
                                << "" << 8 << 2 << "tp_only" << 4 << 3.1120040406212945
                                << std::vector<int> { 15863, 16186 } << "1/0/0";
    QTest::newRow("16GB bsz64") << 16 << 64 << "batch"
                                << "" << 16 << 2 << "tp_only" << 4 << 5.873279452694564
                                << std::vector<int> { 15863, 16186 } << "1/0/0";
    QTest::newRow("24GB bsz16") << 24 << 16 << "batch"
                                << "" << 1 << 1 << "sp_only" << 8 << 1.1715563136948948 << std::vector<int> { 24523 }
                                << "4/1/1";
    QTest::newRow("24GB bsz32") << 24 << 32 << "batch"
                                << "" << 16 << 4 << "tp_only" << 2 << 2.5351236381882574
                                << std::vector<int> { 24557, 23827, 24084, 24148 } << "1/0/1";
    QTest::newRow("24GB bsz64") << 24 << 64 << "batch"
                                << "" << 32 << 4 << "tp_only" << 2 << 5.056953720833461
                                << std::vector<int> { 24557, 23827, 24084, 24148 } << "1/0/1";
    QTest::newRow("36GB bsz16 golden") << 36 << 16 << "batch"
                                       << "" << 1 << 1 << "sp_only" << 8 << 1.0860461243113173
                                       << std::vector<int> { 36757 } << "2/1/1";
    QTest::newRow("36GB bsz32") << 36 << 32 << "batch"
                                << "" << 1 << 1 << "sp_only" << 8 << 2.123156532597149 << std::vector<int> { 36807 }
                                << "4/1/1";
    QTest::newRow("36GB bsz64") << 36 << 64 << "batch"
                                << "" << 1 << 1 << "sp_only" << 8 << 4.189589479607197 << std::vector<int> { 36815 }
                                << "4/1/1";
    QTest::newRow("36GB bsz16 static") << 36 << 16 << "static"
                                       << "" << 4 << 1 << "tp_with_sp" << 4 << 1.0048692072601322
                                       << std::vector<int> { 34600 } << "2/1/0";
    // 2 nodes x 8 GPUs: the 1-node latency table (the run of docs/galvatron-search.md §7.12 gives
    // the same bits with it).
    QTest::newRow("2x8 36GB bsz32 max pp 16")
        << 36 << 32 << "batch"
        << "2nodes-maxpp16" << 2 << 1 << "tp_only" << 4 << 1.0983952055351098 << std::vector<int> { 36617 } << "4/0/0";
    QTest::newRow("24GB bsz16 gpipe ddp no-async") << 24 << 16 << "batch"
                                                   << "gpipe-ddp-noasync" << 1 << 1 << "sp_only" << 8
                                                   << 1.1715563136948948 << std::vector<int> { 24523 } << "4/1/1";
}

void TestSearchBaseline::galvatronRuns()
{
    QFETCH(int, memory);
    QFETCH(int, bsz);
    QFETCH(QString, timeMode);
    QFETCH(QString, variant);
    QFETCH(int, chunks);
    QFETCH(int, pp);
    QFETCH(QString, mode);
    QFETCH(int, bufferTp);
    QFETCH(double, time);
    QFETCH(std::vector<int>, memoryPerStage);
    QFETCH(QString, embedding);
    SearchSettings settings = llamaSettings(memory, bsz);
    settings.time_profile_mode = *profile::parseTimeProfileMode(timeMode.toStdString());
    const int nodes = variant == QStringLiteral("2nodes-maxpp16") ? 2 : 1;
    if (nodes == 2) {
        settings.num_nodes = 2;
        settings.max_pp_deg = 16;
    }
    if (variant == QStringLiteral("gpipe-ddp-noasync")) {
        settings.pipeline_type = galvatron::PipelineType::GPipe;
        settings.default_dp_type = galvatron::DpType::Ddp;
        settings.async_grad_reduce = false;
    }
    NullProgress progress;
    const SearchResult result
        = stratex::galvatron::search(withCurveFit(llamaInputs(nodes), settings), settings, progress, 2);
    QVERIFY(result.best);
    const Plan& best = *result.best;
    QCOMPARE(best.gbsz, bsz);
    QCOMPARE(best.chunks, chunks);
    QCOMPARE(best.pp, pp);
    QCOMPARE(QString::fromStdString(modeOf(best)), mode);
    QCOMPARE(best.global_buffer_tp, bufferTp);
    QCOMPARE_EXACT(best.time_cost_s, time);
    QCOMPARE(best.memory_cost_mb_per_stage, memoryPerStage);
    QCOMPARE(QStringLiteral("%1/%2/%3").arg(best.vtp()).arg(best.vsp()).arg(best.embedSdp()), embedding);
}

void TestSearchBaseline::threadCountDoesNotMatter()
{
    SearchSettings settings = llamaSettings(24, -1);
    settings.min_bsz = 8;
    settings.max_bsz = 32;
    const galvatron::CostModel model = buildCostModel(llamaInputs(), settings);
    NullProgress progress;
    const SearchResult one = stratex::galvatron::search(model, settings, progress, 1);
    for (int threads : { 2, 3, 7 }) {
        const SearchResult many = stratex::galvatron::search(model, settings, progress, threads);
        QCOMPARE(many.tasks.size(), one.tasks.size());
        for (std::size_t i = 0; i < one.tasks.size(); ++i) {
            QVERIFY(many.tasks[i].throughput_samples_per_s == one.tasks[i].throughput_samples_per_s);
            QVERIFY(many.tasks[i].peak_memory_mb == one.tasks[i].peak_memory_mb);
        }
        QCOMPARE(exporting::galvatronConfigText(*many.best), exporting::galvatronConfigText(*one.best));
        QCOMPARE(many.top.size(), one.top.size());
        for (std::size_t i = 0; i < one.top.size(); ++i)
            QCOMPARE(many.top[i].task_index, one.top[i].task_index);
        QCOMPARE(many.pareto.size(), one.pareto.size());
        QCOMPARE(many.stats.dp_calls, one.stats.dp_calls);
    }
}

QTEST_GUILESS_MAIN(TestSearchBaseline)
#include "tst_search_baseline.moc"
