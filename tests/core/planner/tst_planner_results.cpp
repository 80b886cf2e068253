// SPDX-License-Identifier: GPL-3.0-or-later
// What the planner answers besides a plan: infeasibility as a result, invalid configurations as
// errors, cancellation, and the plan's summary JSON.
#include <atomic>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/planner.h"
#include "core/planner/planner_json.h"

#include "planner_plan_checks.h"
#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

Q_DECLARE_METATYPE(stratex::planner::PlannerMode)

using test::groundTruthSamples;
using test::baseConfig;

namespace {

// Cancels after a number of progress reports.
class CancelAfter final : public ProgressSink {
public:
    explicit CancelAfter(int reports)
        : m_left(reports)
    {
    }
    void report(double, std::string_view) override { --m_left; }
    bool cancelled() const override { return m_left <= 0; }

private:
    std::atomic<int> m_left;
};

} // namespace

class TestPlannerResults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void infeasibleIsAResult();
    void invalidConfigurationsThrow();
    void cancels();
    void summaryJson();
};

void TestPlannerResults::infeasibleIsAResult()
{
    NullProgress progress;
    PlannerConfig config = baseConfig(PlannerMode::Fast);
    config.device_memory_mb = 20000; // below the model state
    const PlanResult tooSmall = planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), config, progress);
    QVERIFY(!tooSmall.feasible);
    QVERIFY(tooSmall.infeasible_reason.find("model state") != std::string::npos);
    QVERIFY(tooSmall.groups.empty());
    const nlohmann::ordered_json json = planSummaryJson(tooSmall, config.device_memory_mb);
    QCOMPARE(json["feasible"].get<bool>(), false);
    QVERIFY(json.contains("reason"));
}

void TestPlannerResults::invalidConfigurationsThrow()
{
    NullProgress progress;
    PlannerConfig config = baseConfig(PlannerMode::Fast);
    config.tp = 16;
    QVERIFY_THROWS_EXCEPTION(Error, planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), config, progress));
    config = baseConfig(PlannerMode::Fast);
    config.schedules = { ScheduleKind::Interleaved1F1B }; // linear placement
    QVERIFY_THROWS_EXCEPTION(Error, planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), config, progress));
    config = baseConfig(PlannerMode::Fast);
    config.num_stages = 0;
    QVERIFY_THROWS_EXCEPTION(Error, planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), config, progress));
}

void TestPlannerResults::cancels()
{
    for (int reports : { 0, 3, 20 }) {
        CancelAfter progress(reports);
        QVERIFY_THROWS_EXCEPTION(Cancelled,
            planGlobalBatch(groundTruthSamples(6), test::gptCostModel(), baseConfig(PlannerMode::Normal), progress));
    }
}

void TestPlannerResults::summaryJson()
{
    NullProgress progress;
    const PlanResult plan
        = planGlobalBatch(groundTruthSamples(0), test::gptCostModel(), baseConfig(PlannerMode::Fast), progress);
    const nlohmann::ordered_json json = planSummaryJson(plan, 36000);
    std::vector<std::string> keys;
    for (auto it = json.begin(); it != json.end(); ++it)
        keys.push_back(it.key());
    const std::vector<std::string> expected { "feasible", "mode", "requested_mode", "planning_time_ms", "makespan_ms",
        "microbatching_time_ms", "scheduling_time_ms", "candidates_simulated", "communication_modelled",
        "hidden_size", "memory_limit_mb",
        "peak_memory_mb_per_device", "samples", "microbatch_count", "dp_recompute", "dp_objective_ms", "dp_t_max_ms",
        "groups" };
    QCOMPARE(keys, expected);
    QCOMPARE(json["microbatch_count"].get<int>(), 22);
    QCOMPARE(json["hidden_size"].get<int>(), 4096); // "hidden 4096" in the fixture's model name
    QCOMPARE(json["communication_modelled"].get<bool>(), false); // no link given
    QCOMPARE(json["dp_recompute"].get<std::string>(), std::string("selective"));
    const auto& group = json["groups"][0];
    QCOMPARE(group["schedule"].get<std::string>(), std::string("wait-free-cyclic"));
    QCOMPARE(group["deadlock_free"].get<bool>(), true);
    QCOMPARE(group["microbatches"].size(), std::size_t(22));
    QCOMPARE(group["microbatches"][0]["recompute_per_device"].size(), std::size_t(4));
    QVERIFY(!group.contains("instructions"));
    const nlohmann::ordered_json full = planJson(plan, 36000);
    QCOMPARE(full["groups"][0]["instructions"]["ranks"].size(), std::size_t(4));
}

QTEST_GUILESS_MAIN(TestPlannerResults)
#include "tst_planner_results.moc"
