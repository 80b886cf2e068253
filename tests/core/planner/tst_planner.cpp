// SPDX-License-Identifier: GPL-3.0-or-later
// The planner's modes end to end: normal and fast mode produce valid, memory-fitting, deadlock-free
// plans; the search space of each mode; reproducibility and the seed's spread; auto mode; normal
// never worse than fast; pruning keeps the plan; the mode comparison. Model and cluster shapes:
// tst_planner_layouts; results, failures and the plan JSON: tst_planner_results.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/planner/planner_compare.h"
#include "core/planner/planner_json.h"
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

namespace {

// Same plan apart from wall-clock fields.
std::string planFingerprint(const PlanResult& plan)
{
    nlohmann::ordered_json json = planJson(plan, 0);
    json.erase("planning_time_ms");
    json.erase("microbatching_time_ms");
    json.erase("scheduling_time_ms");
    return json.dump();
}

} // namespace

class TestPlanner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bothModesProduceValidPlans_data();
    void bothModesProduceValidPlans();
    void searchSpaceOfEachMode();
    void reproducibleFromTheSeed();
    void autoModeAndEnvironment();
    void compareModes();
    void seedSpread();
    void normalNeverWorseThanFast_data();
    void normalNeverWorseThanFast();
    void pruningKeepsThePlan();
};

void TestPlanner::bothModesProduceValidPlans_data()
{
    QTest::addColumn<int>("record");
    QTest::addColumn<double>("memory");
    QTest::addColumn<PlannerMode>("mode");
    for (const PlannerMode mode : { PlannerMode::Normal, PlannerMode::Fast }) {
        const std::string name(plannerModeName(mode));
        QTest::newRow(("64-36000-" + name).c_str()) << 0 << 36000.0 << mode;
        QTest::newRow(("64-80000-" + name).c_str()) << 3 << 80000.0 << mode;
        QTest::newRow(("128-36000-" + name).c_str()) << 6 << 36000.0 << mode;
    }
}

void TestPlanner::bothModesProduceValidPlans()
{
    QFETCH(int, record);
    QFETCH(double, memory);
    QFETCH(PlannerMode, mode);
    PlannerConfig config = baseConfig(mode);
    config.device_memory_mb = memory;
    NullProgress progress;
    const PlanResult plan
        = planGlobalBatch(groundTruthSamples(static_cast<std::size_t>(record)), test::gptCostModel(), config, progress);
    verifyPlanValid(plan, config);
    QCOMPARE(plan.mode, mode);
    QVERIFY(plan.candidates_simulated > 0);
}

void TestPlanner::searchSpaceOfEachMode()
{
    NullProgress progress;
    const std::vector<Sample> samples = groundTruthSamples(0);
    const PlanResult normal = planGlobalBatch(samples, test::gptCostModel(), baseConfig(PlannerMode::Normal), progress);
    const PlanResult fast = planGlobalBatch(samples, test::gptCostModel(), baseConfig(PlannerMode::Fast), progress);
    // Fast: wait-free-cyclic only, the weakest type first (stronger ones only if nothing fits).
    QCOMPARE(fast.groups[0].schedule, ScheduleKind::WaitFreeCyclic);
    QVERIFY(fast.groups[0].schedule_candidates <= 3);
    QVERIFY(fast.groups[0].adjust_rounds <= 3);
    // Normal: fast mode's search first, then wait-free-cyclic, 1F1B and ZB-H1 on a linear
    // placement with three recompute types; candidates the lower bound rules out try no order.
    QCOMPARE(normal.groups[0].schedule_candidates, fast.groups[0].schedule_candidates + 9);
    QVERIFY(normal.groups[0].permutations_tried > fast.groups[0].permutations_tried);
    QVERIFY(normal.groups[0].permutations_tried <= fast.groups[0].permutations_tried + 9 * 7); // 3! + identity
    QVERIFY(fast.candidates_simulated < normal.candidates_simulated);
    // By construction normal mode is never worse than fast mode.
    QVERIFY(normal.makespan_ms <= fast.makespan_ms);
    // Same micro-batches either way (the DP does not depend on the mode).
    QCOMPARE(fast.microbatching.dp.microbatches, normal.microbatching.dp.microbatches);
}

void TestPlanner::reproducibleFromTheSeed()
{
    NullProgress progress;
    const std::vector<Sample> samples = groundTruthSamples(6);
    PlannerConfig config = baseConfig(PlannerMode::Fast);
    config.seed = 11;
    const PlanResult a = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    const PlanResult b = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    QCOMPARE(planFingerprint(a), planFingerprint(b));
    // The chosen order depends on the seed's shuffles (other seeds may pick other orders).
    std::set<std::string> orders;
    for (std::uint64_t seed : { 1, 2, 3, 4 }) {
        config.seed = seed;
        const PlanResult plan = planGlobalBatch(samples, test::gptCostModel(), config, progress);
        std::string order;
        for (const PlannedMicroBatch& mb : plan.groups[0].microbatches)
            order += std::to_string(mb.microbatch.id) + ",";
        orders.insert(order);
    }
    QVERIFY(orders.size() > 1);
}

void TestPlanner::autoModeAndEnvironment()
{
    PlannerConfig config = baseConfig(PlannerMode::Auto);
    // The default threshold, from the measured comparisons (docs/dynapipe-planner.md §11).
    QCOMPARE(resolvePlannerMode(config, 134), PlannerMode::Normal);
    QCOMPARE(resolvePlannerMode(config, 135), PlannerMode::Fast);
    config.auto_fast_above_microbatches = 16;
    QCOMPARE(resolvePlannerMode(config, 16), PlannerMode::Normal);
    QCOMPARE(resolvePlannerMode(config, 17), PlannerMode::Fast);
    config.mode = PlannerMode::Normal;
    QCOMPARE(resolvePlannerMode(config, 100), PlannerMode::Normal);
    QCOMPARE(plannerModeFromEnvironmentValue("1"), std::optional(PlannerMode::Fast));
    QCOMPARE(plannerModeFromEnvironmentValue("TRUE"), std::optional(PlannerMode::Fast));
    QCOMPARE(plannerModeFromEnvironmentValue("0"), std::optional(PlannerMode::Normal));
    QCOMPARE(plannerModeFromEnvironmentValue("auto"), std::optional(PlannerMode::Auto));
    QCOMPARE(plannerModeFromEnvironmentValue(""), std::optional<PlannerMode>());
    QCOMPARE(plannerModeFromEnvironmentValue(nullptr), std::optional<PlannerMode>());
    // 22 micro-batches: auto plans in normal mode by default, in fast mode above a threshold of 16.
    NullProgress progress;
    PlannerConfig low = baseConfig(PlannerMode::Auto);
    const PlanResult plan = planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), low, progress);
    QCOMPARE(plan.requested_mode, PlannerMode::Auto);
    QCOMPARE(plan.mode, PlannerMode::Normal);
    low.auto_fast_above_microbatches = 16;
    QCOMPARE(planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), low, progress).mode, PlannerMode::Fast);
}

void TestPlanner::compareModes()
{
    NullProgress progress;
    const std::vector<Sample> pool = groundTruthSamples(6);
    const std::vector<PlanCompareRow> rows
        = comparePlannerModes(pool, { 16, 48 }, test::gptCostModel(), baseConfig(PlannerMode::Auto), progress);
    QCOMPARE(rows.size(), std::size_t(2));
    for (const PlanCompareRow& row : rows) {
        QVERIFY(row.normal_feasible && row.fast_feasible);
        QVERIFY(row.microbatches > 0);
        QVERIFY(std::fabs(row.speedup - row.normal_time_ms / row.fast_time_ms) < 1e-9);
        QVERIFY(std::fabs(row.quality_loss_percent
                    - (row.fast_makespan_ms - row.normal_makespan_ms) / row.normal_makespan_ms * 100)
            < 1e-9);
        QVERIFY(row.fast_simulations < row.normal_simulations);
    }
    const std::string csv = planCompareCsv(rows);
    QVERIFY(csv.starts_with("batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,"
                            "fast_makespan_ms,quality_loss_percent\n16,"));
    QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), 3L);
    QCOMPARE(planCompareJson(rows)["rows"].size(), std::size_t(2));
    QVERIFY_THROWS_EXCEPTION(
        Error, comparePlannerModes(pool, { 500 }, test::gptCostModel(), baseConfig(PlannerMode::Auto), progress));
}

void TestPlanner::seedSpread()
{
    NullProgress progress;
    const std::vector<Sample> pool = groundTruthSamples(0);
    PlannerConfig config = baseConfig(PlannerMode::Auto);
    const std::vector<PlanCompareRow> rows = comparePlannerModes(pool, { 24 }, test::gptCostModel(), config, progress, 4);
    const PlanCompareRow& row = rows[0];
    QCOMPARE(row.normal_spread.seeds, 4);
    QCOMPARE(row.fast_spread.seeds, 4);
    QCOMPARE(row.fast_spread.feasible, 4);
    // The first seed's plan is one of the four.
    QVERIFY(row.fast_spread.min_ms <= row.fast_makespan_ms && row.fast_makespan_ms <= row.fast_spread.max_ms);
    QVERIFY(row.normal_spread.min_ms <= row.normal_makespan_ms && row.normal_makespan_ms <= row.normal_spread.max_ms);
    QVERIFY(row.fast_spread.min_ms <= row.fast_spread.median_ms && row.fast_spread.median_ms <= row.fast_spread.max_ms);
    // Each seed's normal plan is at most its fast plan, so the best normal is at most the best fast.
    QVERIFY(row.normal_spread.min_ms <= row.fast_spread.min_ms);
    const std::string csv = planCompareCsv(rows);
    QVERIFY(csv.find(",seeds,normal_makespan_min_ms,") != std::string::npos);
    const nlohmann::ordered_json json = planCompareJson(rows);
    QCOMPARE(json["rows"][0]["seeds"].get<int>(), 4);
    QVERIFY(json["rows"][0]["fast_makespan_spread_ms"].contains("spread_percent"));
    QVERIFY(planCompareText(rows).find("over 4 seeds") != std::string::npos);
    // One seed: the table keeps its old columns.
    const std::vector<PlanCompareRow> one = comparePlannerModes(pool, { 24 }, test::gptCostModel(), config, progress);
    QVERIFY(planCompareCsv(one).find("seeds") == std::string::npos);
    QVERIFY_THROWS_EXCEPTION(Error, comparePlannerModes(pool, { 24 }, test::gptCostModel(), config, progress, 0));
    // Spread statistics.
    const MakespanSpread spread = makespanSpread({ 3, 1, 2, 10 }, 5);
    QCOMPARE(spread.median_ms, 2.5);
    QCOMPARE(spread.feasible, 4);
    QCOMPARE(spread.spreadPercent(), 900.0);
}

void TestPlanner::normalNeverWorseThanFast_data()
{
    // Issue 13: normal mode may search more, but never return a plan worse than fast mode's on the
    // same input. 200 random inputs: lengths, pipeline depth, placement, memory (tight to loose),
    // data-parallel groups and seeds, drawn from a fixed seed so a failure is reproducible by name.
    QTest::addColumn<QString>("lengths");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<int>("dp");
    QTest::addColumn<double>("memory");
    QTest::addColumn<int>("seed");
    std::mt19937_64 rng(13);
    auto uniform = [&](double low, double high) { return std::uniform_real_distribution<double>(low, high)(rng); };
    auto integer = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
    for (int i = 0; i < 200; ++i) {
        const int stages = integer(0, 2) == 0 ? 2 : 4;
        const int chunks = stages == 4 && integer(0, 4) == 0 ? 2 : 1;
        const int dp = integer(0, 5) == 0 ? 2 : 1;
        const int samples = integer(6, 28) * dp;
        // The model state alone is ~26 GB on 4 stages and ~52 GB on 2 (GPT-6.7B, 32 layers).
        const double memory = stages == 4 ? uniform(29000, 45000) : uniform(56000, 80000);
        const QString lengths = QStringLiteral("lognormal:%1,%2,%3:%4")
                                    .arg(uniform(5.0, 6.8), 0, 'f', 2)
                                    .arg(uniform(0.4, 1.1), 0, 'f', 2)
                                    .arg(samples)
                                    .arg(integer(0, 999));
        const int seed = integer(0, 99);
        QTest::newRow(qPrintable(QStringLiteral("%1 %2 p%3 c%4 dp%5 %6MB s%7")
                                     .arg(i)
                                     .arg(lengths)
                                     .arg(stages)
                                     .arg(chunks)
                                     .arg(dp)
                                     .arg(int(memory))
                                     .arg(seed)))
            << lengths << stages << chunks << dp << memory << seed;
    }
}

void TestPlanner::normalNeverWorseThanFast()
{
    QFETCH(QString, lengths);
    QFETCH(int, stages);
    QFETCH(int, chunks);
    QFETCH(int, dp);
    QFETCH(double, memory);
    QFETCH(int, seed);
    const std::vector<Sample> samples
        = generateSyntheticSamples(parseSyntheticLengthSpec(lengths.toStdString()), false);
    PlannerConfig config;
    config.num_stages = stages;
    config.chunks_per_device = chunks;
    config.layers_per_stage = 32 / stages / chunks;
    config.dp_size = dp;
    config.device_memory_mb = memory;
    config.seed = static_cast<std::uint64_t>(seed);
    config.build_instructions = false;
    NullProgress progress;
    config.mode = PlannerMode::Fast;
    const PlanResult fast = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    config.mode = PlannerMode::Normal;
    const PlanResult normal = planGlobalBatch(samples, test::gptCostModel(), config, progress);
    QCOMPARE(normal.global_microbatches(), fast.global_microbatches());
    if (fast.feasible) {
        QVERIFY2(normal.feasible, normal.infeasible_reason.c_str());
        QVERIFY2(normal.makespan_ms <= fast.makespan_ms,
            qPrintable(QStringLiteral("normal %1 ms > fast %2 ms").arg(normal.makespan_ms).arg(fast.makespan_ms)));
        for (double peak : normal.peak_memory_mb_per_device)
            QVERIFY(peak <= memory + 1e-6);
    }
}

void TestPlanner::pruningKeepsThePlan()
{
    // The lower bound only skips candidates that cannot win: the same plan with and without it,
    // for less work. Tight memory (many adjustment rounds) on the 256-sample fixture batch.
    const std::vector<Sample> samples = groundTruthSamples(14);
    NullProgress progress;
    for (PlannerMode mode : { PlannerMode::Normal, PlannerMode::Fast }) {
        PlannerConfig config = baseConfig(mode);
        config.build_instructions = false;
        GroupSearchInput input;
        input.model = &test::gptCostModel();
        input.config = config;
        input.pipeline = makePipelineModel(4, 8, 1, false);
        input.microbatches = buildMicroBatches(samples, test::gptCostModel(),
            [&] {
                MicroBatchBuildConfig build;
                build.num_stages = 4;
                build.layers_per_stage = 8;
                build.device_memory_mb = 36000;
                return build;
            }(),
            progress)
                                 .dp.microbatches;
        input.limits = searchLimits(mode);
        const GroupPlan pruned = searchGroupPlan(input, progress);
        input.limits.prune_by_bound = false;
        const GroupPlan full = searchGroupPlan(input, progress);
        QCOMPARE(pruned.makespan_ms, full.makespan_ms);
        QCOMPARE(pruned.schedule, full.schedule);
        QCOMPARE(pruned.recompute, full.recompute);
        QVERIFY(pruned.simulations <= full.simulations);
        QCOMPARE(full.pruned, 0);
        if (mode == PlannerMode::Normal)
            QVERIFY(pruned.pruned > 0);
    }
}

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
