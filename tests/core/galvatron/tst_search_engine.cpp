// SPDX-License-Identifier: GPL-3.0-or-later
// The search beyond Galvatron's single answer: top-K and Pareto sets, progress and cancellation,
// honest costing of batches that do not divide, evaluation of plans and strategy files with the
// full breakdown, and the errors a search reports before it starts.
#include <atomic>
#include <mutex>
#include <thread>

#include <QTest>

#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/strategy_file.h"

#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::test;

namespace {

class RecordingProgress final : public ProgressSink {
public:
    void report(double fraction, std::string_view message) override
    {
        const std::lock_guard lock(m_mutex);
        fractions.push_back(fraction);
        messages.emplace_back(message);
    }
    bool cancelled() const override { return m_cancel.load(); }
    void cancel() { m_cancel.store(true); }

    std::vector<double> fractions;
    std::vector<std::string> messages;

private:
    std::mutex m_mutex;
    std::atomic<bool> m_cancel { false };
};

// Cancels itself after `reports` progress reports.
class CancelAfter final : public ProgressSink {
public:
    explicit CancelAfter(int reports)
        : m_left(reports)
    {
    }
    void report(double, std::string_view) override { --m_left; }
    bool cancelled() const override { return m_left.load() <= 0; }

private:
    std::atomic<int> m_left;
};

SearchResult run(const SearchSettings& settings, int threads = 2)
{
    NullProgress progress;
    return stratex::galvatron::search(llamaInputs(), settings, progress, threads);
}

SearchSettings rangeSettings(int memory, int minBsz, int maxBsz)
{
    SearchSettings settings = llamaSettings(memory, -1);
    settings.min_bsz = minBsz;
    settings.max_bsz = maxBsz;
    settings.bsz_scale = 8;
    return settings;
}

} // namespace

class TestSearchEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void topAndPareto();
    void progressReports();
    void bestSoFarStreamsImprovements_data();
    void bestSoFarStreamsImprovements();
    void cancelStopsTheSearch();
    void unevenBatchIsCostedHonestly();
    void exactBatchesMatchGalvatron();
    void skipLeavesOutUnevenStrategies();
    void evaluateReproducesSearchedPlans_data();
    void evaluateReproducesSearchedPlans();
    void evaluateShippedConfig();
    void evaluateBreakdownAddsUp();
    void strategyFileVariants();
    void strategyFileErrors_data();
    void strategyFileErrors();
    void settingsErrors();
    void missingDegreeFailsBeforeSearching();
    void withoutSequenceParallel();
};

void TestSearchEngine::topAndPareto()
{
    const SearchResult result = run(rangeSettings(24, 8, 32));
    QVERIFY(result.best);
    QVERIFY(!result.top.empty() && result.top.size() <= 10);
    QCOMPARE(result.top.front().task_index, result.best->task_index);
    for (std::size_t i = 1; i < result.top.size(); ++i)
        QVERIFY(result.top[i - 1].throughput_samples_per_s >= result.top[i].throughput_samples_per_s);
    // One plan per (pp, mode, gbsz, chunks).
    for (std::size_t i = 0; i < result.top.size(); ++i) {
        for (std::size_t j = i + 1; j < result.top.size(); ++j) {
            const Plan& a = result.top[i];
            const Plan& b = result.top[j];
            QVERIFY(!(a.pp == b.pp && a.tp_sp_mode == b.tp_sp_mode && a.gbsz == b.gbsz && a.chunks == b.chunks));
        }
    }
    QVERIFY(result.pareto.size() >= 2);
    for (std::size_t i = 0; i < result.pareto.size(); ++i) {
        if (i > 0) {
            QVERIFY(result.pareto[i - 1].peakMemoryMb() < result.pareto[i].peakMemoryMb());
            QVERIFY(result.pareto[i - 1].throughput_samples_per_s < result.pareto[i].throughput_samples_per_s);
        }
    }
    QCOMPARE(result.pareto.back().throughput_samples_per_s, result.best->throughput_samples_per_s);
    // Nothing in the task list beats a Pareto plan on both axes.
    for (const TaskSummary& task : result.tasks) {
        if (task.status != TaskOutcome::Status::Feasible)
            continue;
        for (const Plan& p : result.pareto)
            QVERIFY(!(
                task.throughput_samples_per_s > p.throughput_samples_per_s && task.peak_memory_mb < p.peakMemoryMb()));
    }
    QCOMPARE(result.stats.tasks, std::int64_t(result.tasks.size()));
    QVERIFY(result.stats.dp_calls > 0 && result.stats.dp_calls < result.stats.galvatron_dp_calls);
}

void TestSearchEngine::progressReports()
{
    RecordingProgress progress;
    stratex::galvatron::search(llamaInputs(), llamaSettings(36, 16), progress, 2);
    QVERIFY(progress.fractions.size() >= 3);
    QCOMPARE(progress.fractions.front(), 0.0);
    QCOMPARE(progress.fractions.back(), 1.0);
    for (std::size_t i = 1; i < progress.fractions.size(); ++i)
        QVERIFY(progress.fractions[i] >= progress.fractions[i - 1]);
    for (const std::string& message : progress.messages)
        QVERIFY(!message.empty());
}

void TestSearchEngine::bestSoFarStreamsImprovements_data()
{
    QTest::addColumn<int>("threads");
    QTest::newRow("1-thread") << 1;
    QTest::newRow("2-threads") << 2;
}

void TestSearchEngine::bestSoFarStreamsImprovements()
{
    QFETCH(int, threads);
    std::vector<Plan> streamed;
    std::mutex mutex;
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(
        llamaInputs(), rangeSettings(24, 8, 32), progress, threads, 10, [&](const Plan& plan) {
            const std::lock_guard lock(mutex);
            streamed.push_back(plan);
        });
    QVERIFY(result.best);
    QVERIFY(!streamed.empty());
    // Each streamed plan improves on the one before; the last one is the final answer.
    for (std::size_t i = 1; i < streamed.size(); ++i) {
        QVERIFY(streamed[i].throughput_samples_per_s > streamed[i - 1].throughput_samples_per_s
            || (streamed[i].throughput_samples_per_s == streamed[i - 1].throughput_samples_per_s
                && streamed[i].task_index < streamed[i - 1].task_index));
    }
    QCOMPARE(streamed.back().task_index, result.best->task_index);
    QCOMPARE(streamed.back().time_cost_s, result.best->time_cost_s);
    QCOMPARE(streamed.back().memory_cost_mb_per_stage, result.best->memory_cost_mb_per_stage);
}

void TestSearchEngine::cancelStopsTheSearch()
{
    // Cancelled by the sink itself after two reports...
    CancelAfter sink(2);
    QVERIFY_THROWS_EXCEPTION(Cancelled, stratex::galvatron::search(llamaInputs(), rangeSettings(36, 8, 256), sink, 2));
    // ... and from another thread while the search runs.
    RecordingProgress progress;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        progress.cancel();
    });
    bool cancelled = false;
    try {
        stratex::galvatron::search(llamaInputs(), rangeSettings(36, 8, 512), progress, 2);
    } catch (const Cancelled&) {
        cancelled = true;
    }
    canceller.join();
    QVERIFY(cancelled);
    QVERIFY(progress.fractions.empty() || progress.fractions.back() < 1.0);
}

void TestSearchEngine::unevenBatchIsCostedHonestly()
{
    // Galvatron main's 8-64 range "finds" gbsz 56 at ~24.2 samples/s because 28 samples per
    // micro-batch over dp 8 are costed as 3 each; costed honestly every plan runs at ~15.
    SearchSettings settings = rangeSettings(36, 8, 64);
    settings.uneven_batch = UnevenBatch::Galvatron;
    const SearchResult galvatron = run(settings);
    QCOMPARE(galvatron.best->gbsz, 56);
    QVERIFY(std::abs(galvatron.best->throughput_samples_per_s - 24.19) < 0.05);
    settings.uneven_batch = UnevenBatch::Honest;
    const SearchResult honest = run(settings);
    QVERIFY(honest.best->throughput_samples_per_s < 16.0);
    QCOMPARE(honest.best->gbsz, 64);
    QVERIFY(!honest.notes.empty());
}

void TestSearchEngine::exactBatchesMatchGalvatron()
{
    // Where every division is exact the policies give the same bits.
    SearchSettings settings = llamaSettings(24, 32);
    const SearchResult honest = run(settings);
    settings.uneven_batch = UnevenBatch::Galvatron;
    const SearchResult galvatron = run(settings);
    QCOMPARE(honest.tasks.size(), galvatron.tasks.size());
    for (std::size_t i = 0; i < honest.tasks.size(); ++i) {
        QVERIFY(honest.tasks[i].throughput_samples_per_s == galvatron.tasks[i].throughput_samples_per_s);
        QVERIFY(honest.tasks[i].peak_memory_mb == galvatron.tasks[i].peak_memory_mb);
    }
    QVERIFY(honest.notes.empty());
}

void TestSearchEngine::skipLeavesOutUnevenStrategies()
{
    SearchSettings settings = rangeSettings(36, 8, 64);
    settings.uneven_batch = UnevenBatch::Skip;
    const SearchResult result = run(settings);
    for (const Plan& plan : result.top) {
        for (const galvatron::LayerStrategy& s : plan.layers)
            QCOMPARE((plan.gbsz / plan.chunks) % s.dp, 0);
    }
}

void TestSearchEngine::evaluateReproducesSearchedPlans_data()
{
    QTest::addColumn<int>("memory");
    QTest::addColumn<int>("bsz");
    QTest::addColumn<bool>("gpipe");
    QTest::newRow("36GB bsz16") << 36 << 16 << false;
    QTest::newRow("24GB bsz32 (pp 4)") << 24 << 32 << false;
    QTest::newRow("16GB bsz16") << 16 << 16 << false;
    QTest::newRow("16GB bsz32 gpipe") << 16 << 32 << true;
}

void TestSearchEngine::evaluateReproducesSearchedPlans()
{
    QFETCH(int, memory);
    QFETCH(int, bsz);
    QFETCH(bool, gpipe);
    SearchSettings settings = llamaSettings(memory, bsz);
    if (gpipe)
        settings.pipeline_type = galvatron::PipelineType::GPipe;
    const galvatron::CostModel model = buildCostModel(llamaInputs(), settings);
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(model, settings, progress, 2);
    QVERIFY(!result.top.empty());
    for (const Plan& searched : result.top) {
        const Evaluation ev = evaluate(model, settings, searched);
        QCOMPARE_EXACT(ev.plan.time_cost_s, searched.time_cost_s);
        QCOMPARE(ev.plan.memory_cost_mb_per_stage, searched.memory_cost_mb_per_stage);
        QCOMPARE(ev.plan.memory_remaining_mb_per_stage, searched.memory_remaining_mb_per_stage);
        QVERIFY(ev.fits);
    }
    // The winner read back as a strategy file (no task attached) costs the same.
    Plan asFile = *result.best;
    asFile.task_index = -1;
    const Evaluation ev = evaluate(model, settings, asFile);
    QCOMPARE_EXACT(ev.plan.time_cost_s, result.best->time_cost_s);
    QCOMPARE(ev.plan.memory_cost_mb_per_stage, result.best->memory_cost_mb_per_stage);
    QCOMPARE(ev.plan.tp_sp_mode, result.best->tp_sp_mode);
}

void TestSearchEngine::evaluateShippedConfig()
{
    // The config Galvatron ships next to the llama2-7b profiles (v2.x file: no world_size).
    const SearchSettings settings = llamaSettings(36, 16);
    const StrategyFile file
        = StrategyFile::load(galvatronFixture("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json"));
    QVERIFY(!file.world_size);
    const Plan plan = planFromStrategyFile(file, settings);
    QCOMPARE(plan.layerSummary(), std::string("1-1-8f-c x20, 1-1-8f x12"));
    QCOMPARE(plan.embedding.notation(), std::string("1-2*-4f-sp"));
    const Evaluation ev = evaluate(withCurveFit(llamaInputs(), settings), settings, plan);
    QCOMPARE_EXACT(ev.plan.time_cost_s, 1.0860461243113173);
    QCOMPARE(ev.plan.memory_cost_mb_per_stage, std::vector<int>({ 36757 }));
    QCOMPARE(ev.plan.memory_remaining_mb_per_stage, std::vector<int>({ 107 }));
    QCOMPARE(ev.plan.tp_sp_mode, TpSpMode::SpOnly);
}

void TestSearchEngine::evaluateBreakdownAddsUp()
{
    const SearchSettings settings = llamaSettings(24, 32);
    const galvatron::CostModel model = buildCostModel(llamaInputs(), settings);
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(model, settings, progress, 2);
    const Evaluation ev = evaluate(model, settings, *result.best);
    QCOMPARE(ev.layers.size(), std::size_t(32));
    QCOMPARE(ev.stages.size(), std::size_t(4));
    for (const StageBreakdown& stage : ev.stages) {
        int weights = 0;
        for (int i = stage.first_layer; i < stage.first_layer + stage.layers; ++i) {
            QCOMPARE(ev.layers[std::size_t(i)].stage, stage.stage);
            weights += ev.layers[std::size_t(i)].memory.weight_mb;
        }
        QCOMPARE(stage.layer_memory_mb, weights);
        QCOMPARE(stage.global_buffer_mb, 32); // §7.10
        QCOMPARE(stage.memory_cost_mb,
            stage.layer_memory_mb + stage.embedding_memory_mb + stage.global_buffer_mb + ev.budget.reserve_mb);
        QCOMPARE(stage.memory_remaining_mb, ev.budget.dp_budget_mb - (stage.memory_cost_mb - ev.budget.reserve_mb));
    }
    QCOMPARE(ev.stages[1].embedding_memory_mb, 1024); // middle stages hold only the context
    QCOMPARE(ev.stages[1].embedding_time_s, 0.0);
}

void TestSearchEngine::strategyFileVariants()
{
    // v2.4 Swin output: pp 8, uneven division, chunks 41 (1024 / 41 is not whole), no embed_sdp.
    SearchSettings settings = llamaSettings(34, -1);
    settings.model.num_layers = 48;
    const StrategyFile swin = StrategyFile::load(
        galvatronFixture("galvatron_config_swin-huge_1nodes_8gpus_per_node_34GB_bf16_[tpconsec_off].json"));
    QCOMPARE(swin.layers(), 48);
    QCOMPARE(swin.embed_sdp, 0);
    const Plan plan = planFromStrategyFile(swin, settings);
    QCOMPARE(plan.pp_division, std::vector<int>({ 3, 7, 7, 7, 7, 7, 7, 3 }));
    QCOMPARE(plan.chunks, 41);
    QCOMPARE(plan.layers.front().notation(), std::string("8-1-1"));
    QCOMPARE(plan.embedding.notation(), std::string("8-1-1"));
    // Costed on a 48-layer llama: the uneven batch is flagged.
    SearchSettings costing = settings;
    costing.settle_bsz = 1024;
    const galvatron::CostModel model = buildCostModel(llamaInputs(), costing);
    const Evaluation ev = evaluate(model, costing, plan);
    QCOMPARE(ev.stages.size(), std::size_t(8));
    QCOMPARE(ev.stages[0].layers, 3);
    bool flagged = false;
    for (const std::string& note : ev.notes)
        flagged = flagged || note.find("does not divide") != std::string::npos;
    QVERIFY(flagged);

    // A 3.0 file with world_size, use_sp and vocab_sdp instead of embed_sdp.
    const JsonDocument doc = jsonText(R"({"pp_deg": 2, "tp_sizes_enc": "2,2,4,4", "tp_consecutive_flags": "1,1,1,1",
        "dp_types_enc": "0,1,0,1", "use_sp": "0,0,1,1", "checkpoint": "1,0,1,0", "world_size": 8, "global_bsz": 8,
        "chunks": 4, "pp_division": "2,2", "pipeline_type": "gpipe", "default_dp_type": "ddp", "vtp": 2, "vsp": 1,
        "vocab_sdp": 1})",
        "strategy.json");
    SearchSettings four = llamaSettings(24, 8);
    four.model.num_layers = 4;
    const Plan small = planFromStrategyFile(StrategyFile::fromJson(doc.root()), four);
    QCOMPARE(small.layerSummary(), std::string("2-2*-2-c, 2-2*-2f, 2-4*-1-c-sp, 2-4*-1-sp"));
    QCOMPARE(small.embedding.notation(), std::string("2-2*-2f-sp"));
    QCOMPARE(small.pipeline_type, galvatron::PipelineType::GPipe);
    QCOMPARE(small.default_dp_type, galvatron::DpType::Ddp);
}

void TestSearchEngine::strategyFileErrors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("keyPath");
    QTest::addColumn<QString>("expected");
    const QString base = QStringLiteral(R"({"pp_deg": 1, "tp_sizes_enc": "1,1", "dp_types_enc": "0,0",
        "checkpoint": "0,0", "global_bsz": 8, "chunks": 1%1})");
    QTest::newRow("missing key") << QStringLiteral(R"({"pp_deg": 1, "tp_sizes_enc": "1,1", "checkpoint": "0,0",
        "global_bsz": 8, "chunks": 1})")
                                 << "/dp_types_enc"
                                 << "key \"dp_types_enc\"";
    QTest::newRow("layer count") << base.arg(QString()).replace(QStringLiteral("\"1,1\""), QStringLiteral("\"1,1,1\""))
                                 << "/dp_types_enc"
                                 << "3 values";
    QTest::newRow("not a list") << base.arg(QString()).replace(
        QStringLiteral("\"dp_types_enc\": \"0,0\""), QStringLiteral("\"dp_types_enc\": \"0;0\""))
                                << "/dp_types_enc"
                                << "comma-separated";
    QTest::newRow("flag out of range") << base.arg(QStringLiteral(", \"use_sp\": \"0,2\"")) << "/use_sp"
                                       << "0 or 1";
    QTest::newRow("world size") << base.arg(QStringLiteral(", \"world_size\": 16")) << "/world_size"
                                << "8 (the cluster";
    QTest::newRow("division") << base.arg(QStringLiteral(", \"pp_division\": \"1,1\"")) << "/pp_division"
                              << "1 positive stage sizes summing to 2";
    QTest::newRow("degree") << base.arg(QStringLiteral(", \"vtp\": 3")) << "/vtp"
                            << "dividing 8";
    QTest::newRow("pipeline type") << base.arg(QStringLiteral(", \"pipeline_type\": \"1f1b\"")) << "/pipeline_type"
                                   << "\"pipedream_flush\" or \"gpipe\"";
    QTest::newRow("model layers") << base.arg(QString())
                                         .replace(QStringLiteral("\"1,1\""), QStringLiteral("\"1,1,1\""))
                                         .replace(QStringLiteral("\"0,0\""), QStringLiteral("\"0,0,0\""))
                                  << "/tp_sizes_enc"
                                  << "2 layers (--num-layers)";
}

void TestSearchEngine::strategyFileErrors()
{
    QFETCH(QString, json);
    QFETCH(QString, keyPath);
    QFETCH(QString, expected);
    SearchSettings settings = llamaSettings(24, 8);
    settings.model.num_layers = 2;
    QVERIFY(throwsInputError(
        [&] { planFromStrategyFile(StrategyFile::fromJson(jsonText(json.toStdString(), "s.json").root()), settings); },
        "s.json", keyPath.toStdString(), expected.toStdString(), ""));
}

void TestSearchEngine::settingsErrors()
{
    SearchSettings settings = llamaSettings(24, 16);
    settings.num_gpus_per_node = 6;
    QVERIFY_THROWS_EXCEPTION(Error, settings.validate());
    settings = rangeSettings(24, 64, 32);
    QVERIFY_THROWS_EXCEPTION(Error, settings.validate());
    settings = llamaSettings(0, 16);
    QVERIFY_THROWS_EXCEPTION(Error, settings.validate());
    settings = llamaSettings(24, 16);
    settings.default_dp_type = galvatron::DpType::Zero3;
    QVERIFY_THROWS_EXCEPTION(Error, settings.validate());
}

void TestSearchEngine::missingDegreeFailsBeforeSearching()
{
    // A memory profile without TP 8 activations cannot serve 8-way TP/SP layers.
    const SearchSettings settings = llamaSettings(36, 16);
    galvatron::CostInputs inputs = galvatron::resolveCostInputs(
        llamaInputs().profiles, settings.time_profile_mode, settings.memory_profile_mode, settings.costSettings());
    inputs.memory.layer.activation_mb_per_sample.erase(8);
    const galvatron::CostModel model(inputs, settings.costSettings());
    NullProgress progress;
    QVERIFY(throwsInputError([&] { stratex::galvatron::search(model, settings, progress, 2); },
        "memory_profiling_bf16_llama2-7b_all.json", "/layertype_0_sp/2048/tp_activation_per_bsz_dict/8", "degree 8",
        "degrees 1, 2, 4"));
    // ... unless the search does not use them.
    SearchSettings limited = settings;
    limited.max_tp_deg = 4;
    limited.max_sp_deg = 4;
    QVERIFY(stratex::galvatron::search(model, limited, progress, 2).best.has_value());
}

void TestSearchEngine::withoutSequenceParallel()
{
    // Galvatron asserts on vocabulary TP without sequence parallelism; those candidates are left out.
    SearchSettings settings = llamaSettings(36, 16);
    const galvatron::CostInputs inputs = galvatron::resolveCostInputs(
        llamaInputs().profiles, settings.time_profile_mode, settings.memory_profile_mode, settings.costSettings());
    settings.sequence_parallel = false;
    const galvatron::CostModel model(inputs, settings.costSettings());
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(model, settings, progress, 2);
    QVERIFY(result.best);
    for (const Plan& plan : result.top)
        QCOMPARE(plan.embedding.tp, 1);
    QVERIFY(!result.notes.empty());
}

QTEST_GUILESS_MAIN(TestSearchEngine)
#include "tst_search_engine.moc"
