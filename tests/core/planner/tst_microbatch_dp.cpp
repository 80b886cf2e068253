// SPDX-License-Identifier: GPL-3.0-or-later
// The micro-batch DP against DynaPipe's own outputs (dp_ground_truth.json, every record: the
// objective, t_max, the split, the shapes and per-micro-batch costs), the memory limits of the
// record, an exhaustive-search oracle on small batches, and the builder's recompute order.
#include <cmath>
#include <functional>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/microbatch_builder.h"
#include "core/planner/microbatch_dp.h"
#include "core/planner/microbatch_sample_order.h"
#include "core/planner/microbatch_segment_cost.h"
#include "core/planner/planner_rng.h"

#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;

namespace {

RecomputeType recomputeOf(const std::string& model)
{
    for (RecomputeType type : kAllRecomputeTypes) {
        if (model.find("tp1_" + std::string(recomputeTypeName(type)) + ")") != std::string::npos)
            return type;
    }
    return RecomputeType::None;
}

std::vector<Sample> samplesOf(const JsonView& record)
{
    std::vector<Sample> samples;
    int id = 0;
    for (const JsonView& length : record["sample_lengths"].elements())
        samples.push_back({ id++, length.positiveInt(), 0 });
    return samples;
}

MicroBatchDpConfig dpConfigOf(const JsonView& record)
{
    MicroBatchDpConfig config;
    config.num_stages = record["n_stages"].positiveInt();
    config.layers_per_stage = record["n_layers_per_stage"].positiveInt();
    config.chunks_per_device = record["n_chunks_per_device"].positiveInt();
    config.dp_size = record["dp_size"].positiveInt();
    config.recompute = recomputeOf(record["model"].string());
    config.stored_activation_limit_mb = record["per_mb_stored_activation_limit_mb"].number();
    config.peak_activation_limit_mb = record["peak_activation_limit_mb"].number();
    return config;
}

bool relativelyEqual(double a, double b, double tolerance = 1e-6)
{
    return std::fabs(a - b) <= tolerance * std::max(1.0, std::fabs(b));
}

// Exhaustive oracle: every split of the order into contiguous runs (2^(n-1) of them). A run
// [i, j) is allowed when every run [i, k), k <= j, fits the memory limits (DynaPipe's scan stops
// at the first that does not). The objective charges the smallest bucketed t_max candidate at
// or above the split's slowest run -- exactly the quantity the DP minimises, found without DP.
double oracleObjective(
    const std::vector<Sample>& ordered, const LayerCostModel& model, const MicroBatchDpConfig& config)
{
    const int n = static_cast<int>(ordered.size());
    SegmentShapeConfig shape;
    shape.tp = config.tp;
    shape.recompute = config.recompute;
    shape.layers_per_stage = config.layers_per_stage;
    shape.chunks_per_device = config.chunks_per_device;
    SegmentCostCache costs(model, shape);
    std::vector<std::vector<double>> runTime(
        static_cast<std::size_t>(n + 1), std::vector<double>(static_cast<std::size_t>(n + 1), std::nan("")));
    std::vector<double> times;
    for (int i = 0; i < n; ++i) {
        int maxLen = 0;
        for (int j = i + 1; j <= n; ++j) {
            maxLen = std::max(maxLen, ordered[static_cast<std::size_t>(j - 1)].seqlen);
            const SegmentCost cost = costs.cost(j - i, paddedSeqlen(maxLen, shape), 0);
            if (!(cost.stored_mb <= config.stored_activation_limit_mb
                    && cost.peak_mb <= config.peak_activation_limit_mb))
                break;
            if (std::isfinite(cost.time_ms)) {
                runTime[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = cost.time_ms;
                times.push_back(cost.time_ms);
            }
        }
    }
    std::sort(times.begin(), times.end());
    std::vector<double> candidates;
    for (double t : times) {
        if (candidates.empty() || t - candidates.back() > config.min_tmax_interval_ms)
            candidates.push_back(t);
    }
    double best = std::numeric_limits<double>::infinity();
    for (unsigned cuts = 0; cuts < (1u << (n - 1)); ++cuts) {
        double sum = 0;
        double slowest = 0;
        bool ok = true;
        int begin = 0;
        for (int end = 1; end <= n && ok; ++end) {
            if (end < n && !((cuts >> (end - 1)) & 1u))
                continue;
            const double t = runTime[static_cast<std::size_t>(begin)][static_cast<std::size_t>(end)];
            ok = !std::isnan(t);
            sum += t;
            slowest = std::max(slowest, t);
            begin = end;
        }
        const auto candidate = std::lower_bound(candidates.begin(), candidates.end(), slowest);
        if (ok && candidate != candidates.end()) {
            best = std::min(
                best, double(config.num_stages - 1) * *candidate / config.chunks_per_device + sum / config.dp_size);
        }
    }
    return best;
}

} // namespace

class TestMicroBatchDp : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void reproducesGroundTruth_data();
    void reproducesGroundTruth();
    void limitsMatchGroundTruth_data();
    void limitsMatchGroundTruth();
    void builderPicksFirstFeasibleRecompute_data();
    void builderPicksFirstFeasibleRecompute();
    void matchesExhaustiveOracle_data();
    void matchesExhaustiveOracle();
    void splitsAcrossDataParallelGroups();
    void infeasibleIsReportedNotThrown();
    void cancels();
};

void TestMicroBatchDp::reproducesGroundTruth_data()
{
    QTest::addColumn<int>("index");
    const JsonView records = test::dpGroundTruth().root();
    QCOMPARE(records.size(), std::size_t(18));
    for (std::size_t i = 0; i < records.size(); ++i) {
        const JsonView r = records.at(i);
        const std::string name = std::to_string(r["n_samples"].positiveInt()) + "-"
            + std::to_string(static_cast<int>(r["device_memory_limit_mb"].number())) + "MB-"
            + std::string(recomputeTypeName(recomputeOf(r["model"].string())));
        QTest::newRow(name.c_str()) << static_cast<int>(i);
    }
}

void TestMicroBatchDp::reproducesGroundTruth()
{
    QFETCH(int, index);
    const JsonView record = test::dpGroundTruth().root().at(static_cast<std::size_t>(index));
    NullProgress progress;
    const std::vector<Sample> ordered = orderSamples(samplesOf(record), false, SampleOrderConfig {}, progress);
    const MicroBatchDpResult result = runMicroBatchDp(ordered, test::gptCostModel(), dpConfigOf(record), progress);

    const JsonView objective = record["objective"];
    if (objective.raw().is_null()) { // Infinity: no feasible split
        QVERIFY(!result.feasible);
        QVERIFY(std::isinf(result.objective));
        QVERIFY(result.microbatches.empty());
        QCOMPARE(record["microbatches_sample_ids"].size(), std::size_t(0));
        return;
    }
    QVERIFY(result.feasible);
    QVERIFY2(relativelyEqual(result.objective, objective.number()),
        qPrintable(QStringLiteral("objective %1 vs %2")
                       .arg(result.objective, 0, 'g', 12)
                       .arg(objective.number(), 0, 'g', 12)));
    QVERIFY(relativelyEqual(result.t_max_ms, record["t_max_ms"].number()));
    QVERIFY(relativelyEqual(result.sum_time_ms, record["sum_time_ms"].number()));
    // DynaPipe computes in single precision: the same arithmetic gives the same bits.
    QCOMPARE(result.objective, objective.number());
    QCOMPARE(result.t_max_ms, record["t_max_ms"].number());
    QCOMPARE(result.sum_time_ms, record["sum_time_ms"].number());

    const std::vector<JsonView> expected = record["microbatches_sample_ids"].elements();
    QCOMPARE(result.microbatches.size(), expected.size());
    for (std::size_t m = 0; m < expected.size(); ++m) {
        const MicroBatch& mb = result.microbatches[m];
        std::vector<int> ids;
        for (const JsonView& sequence : expected[m].elements()) {
            QCOMPARE(sequence.size(), std::size_t(1)); // no packing in the fixture
            ids.push_back(static_cast<int>(sequence.at(0).integer()));
        }
        QCOMPARE(mb.sample_ids, ids);
        QCOMPARE(mb.id, static_cast<int>(m));
        const JsonView shape = record["microbatch_shapes_mbs_seqlen"].at(m);
        QCOMPARE(mb.micro_batch_size, shape.at(0).positiveInt());
        QCOMPARE(mb.padded_seqlen, shape.at(1).positiveInt());
        // Single-precision arithmetic in DynaPipe's order: equal to the bit.
        QCOMPARE(mb.time_ms, record["microbatch_time_ms"].at(m).number());
        QCOMPARE(mb.stored_activation_mb, record["stored_mb_per_mb"].at(m).number());
        QCOMPARE(mb.peak_activation_mb, record["peak_mb_per_mb"].at(m).number());
        QVERIFY(mb.time_ms <= result.t_max_ms);
    }
}

void TestMicroBatchDp::limitsMatchGroundTruth_data()
{
    reproducesGroundTruth_data();
}

void TestMicroBatchDp::limitsMatchGroundTruth()
{
    QFETCH(int, index);
    const JsonView record = test::dpGroundTruth().root().at(static_cast<std::size_t>(index));
    const RecomputeType rc = recomputeOf(record["model"].string());
    const double state = bottleneckModelStateMb(test::gptCostModel().parameterSizes(1, rc),
        record["n_layers_per_stage"].positiveInt(), 1, OptimizerStateConfig {});
    QVERIFY(relativelyEqual(state, record["model_state_mb"].number(), 1e-12));
    const ActivationLimits limits
        = activationLimits(record["device_memory_limit_mb"].number(), state, record["n_stages"].positiveInt());
    QVERIFY(relativelyEqual(limits.preferred_stored_mb, record["per_mb_stored_activation_limit_mb"].number(), 1e-12));
    QVERIFY(relativelyEqual(limits.available_mb, record["peak_activation_limit_mb"].number(), 1e-12));
}

void TestMicroBatchDp::builderPicksFirstFeasibleRecompute_data()
{
    QTest::addColumn<int>("samples");
    QTest::addColumn<double>("memory");
    QTest::newRow("64-36000") << 64 << 36000.0;
    QTest::newRow("64-80000") << 64 << 80000.0;
    QTest::newRow("128-36000") << 128 << 36000.0;
    QTest::newRow("256-36000") << 256 << 36000.0;
    QTest::newRow("256-80000") << 256 << 80000.0;
}

void TestMicroBatchDp::builderPicksFirstFeasibleRecompute()
{
    QFETCH(int, samples);
    QFETCH(double, memory);
    // The expected pick: the first record (none, selective, full order) with a finite objective.
    const JsonView records = test::dpGroundTruth().root();
    std::optional<JsonView> expected;
    for (const JsonView& r : records.elements()) {
        if (r["n_samples"].positiveInt() == samples && r["device_memory_limit_mb"].number() == memory
            && !r["objective"].raw().is_null() && !expected)
            expected = r;
    }
    QVERIFY(expected);
    MicroBatchBuildConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.device_memory_mb = memory;
    NullProgress progress;
    const MicroBatchBuildResult result
        = buildMicroBatches(samplesOf(*expected), test::gptCostModel(), config, progress);
    QVERIFY(result.feasible);
    QVERIFY(result.used_preferred_limit);
    QCOMPARE(result.recompute, recomputeOf((*expected)["model"].string()));
    QVERIFY(relativelyEqual(result.dp.objective, (*expected)["objective"].number()));
    QCOMPARE(result.dp.microbatches.size(), (*expected)["microbatches_sample_ids"].size());
    QCOMPARE(result.dp_groups.size(), std::size_t(1));
    QCOMPARE(result.dp_groups[0], result.dp.microbatches);
}

void TestMicroBatchDp::matchesExhaustiveOracle_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<int>("dp");
    QTest::addColumn<double>("storedLimit");
    QTest::addColumn<int>("rc");
    // Seeds above 12 cut a shuffled order (as an encoder-decoder order may be: not sorted), where
    // the longest run of a sample is not the one starting at it and a sample left uncovered can
    // come late.
    for (int seed = 1; seed <= 24; ++seed) {
        const int stages = 1 + seed % 8;
        const int chunks = seed % 3 == 0 ? 2 : 1;
        const int dp = seed % 4 == 0 ? 2 : 1;
        const double limit = seed % 2 ? 2000.0 : 6000.0;
        QTest::newRow(("seed-" + std::to_string(seed)).c_str())
            << seed << stages << chunks << dp << limit << int(kAllRecomputeTypes[std::size_t(seed) % 3]);
    }
}

void TestMicroBatchDp::matchesExhaustiveOracle()
{
    QFETCH(int, seed);
    QFETCH(int, stages);
    QFETCH(int, chunks);
    QFETCH(int, dp);
    QFETCH(double, storedLimit);
    QFETCH(int, rc);
    PlannerRng rng(static_cast<std::uint64_t>(seed));
    std::vector<Sample> samples;
    for (int i = 0; i < 11; ++i)
        samples.push_back({ i, 8 + static_cast<int>(rng.below(1500)), 0 });
    NullProgress progress;
    std::vector<Sample> ordered = orderSamples(samples, false, SampleOrderConfig {}, progress);
    if (seed > 12)
        rng.shuffle(ordered);
    MicroBatchDpConfig config;
    config.num_stages = stages;
    config.chunks_per_device = chunks;
    config.dp_size = dp;
    config.layers_per_stage = 4;
    config.recompute = RecomputeType(rc);
    config.stored_activation_limit_mb = storedLimit;
    config.peak_activation_limit_mb = 3 * storedLimit;
    const MicroBatchDpResult result = runMicroBatchDp(ordered, test::gptCostModel(), config, progress);
    const double oracle = oracleObjective(ordered, test::gptCostModel(), config);
    QCOMPARE(result.feasible, std::isfinite(oracle));
    if (!result.feasible)
        return;
    QVERIFY2(relativelyEqual(result.objective, oracle, 1e-5),
        qPrintable(QStringLiteral("dp %1 oracle %2").arg(result.objective).arg(oracle)));
    // The reported split is consistent: covers every sample once, respects limits and t_max.
    double sum = 0;
    std::vector<int> seen;
    for (const MicroBatch& mb : result.microbatches) {
        QVERIFY(mb.time_ms <= result.t_max_ms);
        QVERIFY(mb.stored_activation_mb <= storedLimit);
        sum += mb.time_ms;
        seen.insert(seen.end(), mb.sample_ids.begin(), mb.sample_ids.end());
    }
    std::vector<int> expectedIds;
    for (const Sample& s : ordered)
        expectedIds.push_back(s.id);
    QCOMPARE(seen, expectedIds);
    QVERIFY(relativelyEqual(sum, result.sum_time_ms, 1e-5));
    QVERIFY(relativelyEqual(result.objective, (stages - 1) * result.t_max_ms / chunks + sum / dp, 1e-5));
    // Bucketing: the candidate t_max values are exactly representable feasible run times.
    QVERIFY(result.tmax_candidates >= 1 && result.tmax_evaluated <= result.tmax_candidates);
}

void TestMicroBatchDp::splitsAcrossDataParallelGroups()
{
    const JsonView record = test::dpGroundTruth().root().at(7); // 128 samples, 36000 MB, selective
    MicroBatchBuildConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.device_memory_mb = 36000;
    config.dp_size = 3;
    NullProgress progress;
    const MicroBatchBuildResult result = buildMicroBatches(samplesOf(record), test::gptCostModel(), config, progress);
    QVERIFY(result.feasible);
    QCOMPARE(result.dp_groups.size(), std::size_t(3));
    std::vector<int> ids;
    std::vector<double> sums;
    for (const auto& group : result.dp_groups) {
        QVERIFY(!group.empty());
        double sum = 0;
        for (std::size_t k = 0; k < group.size(); ++k) {
            ids.push_back(group[k].id);
            sum += group[k].time_ms;
            if (k > 0)
                QVERIFY(group[k - 1].id < group[k].id); // the DP order is kept
        }
        sums.push_back(sum);
    }
    std::sort(ids.begin(), ids.end());
    for (std::size_t k = 0; k < ids.size(); ++k)
        QCOMPARE(ids[k], static_cast<int>(k));
    const auto [lo, hi] = std::minmax_element(sums.begin(), sums.end());
    QVERIFY2(*hi - *lo <= result.dp.t_max_ms, "groups balanced within one micro-batch");
}

void TestMicroBatchDp::infeasibleIsReportedNotThrown()
{
    MicroBatchBuildConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.device_memory_mb = 30000; // the model state alone is ~29100 MB
    NullProgress progress;
    const std::vector<Sample> samples { { 0, 4096, 0 }, { 1, 100, 0 } };
    const MicroBatchBuildResult result = buildMicroBatches(samples, test::gptCostModel(), config, progress);
    QVERIFY(!result.feasible);
    QVERIFY(!result.infeasible_reason.empty());
    config.device_memory_mb = 20000;
    const MicroBatchBuildResult none = buildMicroBatches(samples, test::gptCostModel(), config, progress);
    QVERIFY(!none.feasible);
    QVERIFY(none.infeasible_reason.find("model state") != std::string::npos);
    config.dp_size = 4;
    config.device_memory_mb = 80000;
    const MicroBatchBuildResult tooFew = buildMicroBatches(samples, test::gptCostModel(), config, progress);
    QVERIFY(!tooFew.feasible);
    QVERIFY(tooFew.infeasible_reason.find("data-parallel") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(Error, buildMicroBatches({}, test::gptCostModel(), config, progress));
    QVERIFY_THROWS_EXCEPTION(Error, buildMicroBatches({ { 0, 100, 5 } }, test::gptCostModel(), config, progress));
}

void TestMicroBatchDp::cancels()
{
    CancelFlagProgress progress;
    progress.cancel();
    const JsonView record = test::dpGroundTruth().root().at(12);
    QVERIFY_THROWS_EXCEPTION(
        Cancelled, runMicroBatchDp(samplesOf(record), test::gptCostModel(), dpConfigOf(record), progress));
}

QTEST_GUILESS_MAIN(TestMicroBatchDp)
#include "tst_microbatch_dp.moc"
