// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the planner suites (tst_planner, tst_planner_layouts, tst_planner_results) share: the
// ground truth's samples, the base configuration, and the checks every valid plan passes.

#include <cmath>
#include <set>
#include <vector>

#include <QTest>

#include "core/planner/planner.h"
#include "core/sim/simulator.h"

#include "planner_test_fixtures.h"

namespace stratex::test {

// The samples of the DP ground truth's record `record` (tests/data/dynapipe), ids in order.
inline std::vector<planner::Sample> groundTruthSamples(std::size_t record)
{
    std::vector<planner::Sample> samples;
    int id = 0;
    for (const JsonView& length : test::dpGroundTruth().root().at(record)["sample_lengths"].elements())
        samples.push_back({ id++, length.positiveInt(), 0 });
    return samples;
}

// Four stages of eight layers, 36 GB a device, in `mode`.
inline planner::PlannerConfig baseConfig(planner::PlannerMode mode)
{
    planner::PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.device_memory_mb = 36000;
    config.mode = mode;
    return config;
}

// A valid plan: feasible, within memory, re-simulating to its makespan and peaks, every
// micro-batch once, deadlock-free instruction lists.
inline void verifyPlanValid(const planner::PlanResult& plan, const planner::PlannerConfig& config)
{
    QVERIFY2(plan.feasible, plan.infeasible_reason.c_str());
    QCOMPARE(plan.groups.size(), std::size_t(config.dp_size));
    std::set<int> ids;
    for (const planner::GroupPlan& group : plan.groups) {
        QVERIFY(group.feasible);
        QCOMPARE(group.peak_memory_mb_per_device.size(), std::size_t(config.num_stages));
        for (double peak : group.peak_memory_mb_per_device)
            QVERIFY(peak <= config.device_memory_mb + 1e-6);
        // The recorded input re-simulates to the reported makespan and peaks.
        sim::SimulationOptions options;
        options.memory_limit_mb = group.memory_throttled ? config.device_memory_mb : 0;
        const sim::SimulationResult again = sim::simulate(group.input, group.schedule, options);
        QCOMPARE(again.makespan_us, group.simulation.makespan_us);
        QCOMPARE(again.peak_memory_mb_per_device, group.peak_memory_mb_per_device);
        QVERIFY(std::fabs(group.makespan_ms - again.makespan_us / 1000) < 1e-9);
        // Execution order = the simulated order; recompute per device as the plan says.
        QCOMPARE(group.microbatches.size(), group.input.microbatches.size());
        for (std::size_t k = 0; k < group.microbatches.size(); ++k) {
            const int id = group.microbatches[k].microbatch.id;
            QCOMPARE(group.input.microbatches[k].id, id);
            QCOMPARE(group.microbatches[k].recompute_per_device, group.recompute.ofMicrobatch(id));
            QVERIFY(ids.insert(id).second);
        }
        // Instruction lists: one per rank, deadlock-free.
        QCOMPARE(group.instructions.ranks.size(), std::size_t(config.num_stages));
        QVERIFY2(group.deadlock.ok, group.deadlock.problem.c_str());
        QCOMPARE(group.instructions.n_microbatches, static_cast<int>(group.microbatches.size()));
        QVERIFY(!group.simulation.timeline.devices.empty());
    }
    QCOMPARE(static_cast<int>(ids.size()), plan.global_microbatches());
    QVERIFY(plan.planning_time_ms >= plan.microbatching_time_ms);
}

} // namespace stratex::test
