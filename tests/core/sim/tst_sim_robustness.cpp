// SPDX-License-Identifier: GPL-3.0-or-later
// A seeded sweep over random placements (linear, interleaved with merged runs, arbitrary), micro-
// batch counts, costs (zeros included), links, encoder-decoder splits and scheduler limits: every
// valid schedule simulates without an internal error, respects the memory limit where it
// promises to, and yields deadlock-free instruction lists.
#include <random>

#include <QTest>

#include "core/common/error.h"
#include "core/sim/instructions.h"
#include "core/sim/simulator.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

std::vector<int> randomAssignment(std::mt19937& rng, int& kind)
{
    const int devices = 1 + static_cast<int>(rng() % 6);
    std::vector<int> assignment;
    kind = static_cast<int>(rng() % 3);
    if (kind == 0) { // linear, some devices with several layers
        for (int d = 0; d < devices; ++d)
            assignment.insert(assignment.end(), 1 + rng() % 3, d);
    } else if (kind == 1) { // interleaved, runs of 1-2 layers
        const int chunks = 2 + static_cast<int>(rng() % 3);
        for (int c = 0; c < chunks; ++c) {
            for (int d = 0; d < devices; ++d)
                assignment.insert(assignment.end(), 1 + rng() % 2, d);
        }
    } else { // anything that uses every device
        const int layers = devices + static_cast<int>(rng() % 8);
        for (int l = 0; l < layers; ++l)
            assignment.push_back(static_cast<int>(rng() % static_cast<unsigned>(devices)));
        std::vector<char> used(static_cast<std::size_t>(devices), 0);
        for (int d : assignment)
            used[static_cast<std::size_t>(d)] = 1;
        for (int d = 0; d < devices; ++d) {
            if (!used[static_cast<std::size_t>(d)])
                assignment.push_back(d);
        }
    }
    return assignment;
}

SimulationInput randomInput(std::mt19937& rng, const std::vector<int>& assignment)
{
    SimulationInput input;
    input.device_assignment = assignment;
    const int m = 1 + static_cast<int>(rng() % 20);
    auto uniform = [&](int n) { return static_cast<double>(rng() % static_cast<unsigned>(n)); };
    for (int j = 0; j < m; ++j) {
        MicrobatchSpec mb;
        mb.id = 1000 - j;
        for (std::size_t l = 0; l < assignment.size(); ++l) {
            LayerCost layer;
            layer.fw_us = rng() % 5 == 0 ? 0 : uniform(3000);
            layer.bw_us = rng() % 7 == 0 ? 0 : uniform(5000);
            if (rng() % 2)
                layer.w_us = layer.bw_us * uniform(100) / 100.0;
            layer.stored_mb = uniform(100);
            layer.peak_mb = uniform(300);
            layer.fw_comm_mb = uniform(4);
            layer.bw_comm_mb = uniform(4);
            mb.layers.push_back(layer);
        }
        input.microbatches.push_back(mb);
    }
    const int devices = analyzeAssignment(assignment).n_devices;
    if (rng() % 2) {
        input.comm.inter_node_bw_gbps = 100;
        input.comm.intra_node_bw_gbps = 1000;
        input.comm.inter_node_lat_us = uniform(10);
        for (int d = 0; d < devices; ++d)
            input.comm.node_of_device.push_back(d / 2);
    }
    if (rng() % 3 == 0 && assignment.size() > 2)
        input.first_decoder_layer = 1 + static_cast<int>(rng() % (assignment.size() - 1));
    if (rng() % 2)
        input.model_state_mb_per_layer.assign(assignment.size(), uniform(50));
    return input;
}

} // namespace

class TestSimRobustness : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sweep_data();
    void sweep();
};

void TestSimRobustness::sweep_data()
{
    QTest::addColumn<unsigned>("seed");
    for (unsigned seed = 1; seed <= 40; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
}

void TestSimRobustness::sweep()
{
    QFETCH(unsigned, seed);
    std::mt19937 rng(seed);
    for (int round = 0; round < 25; ++round) {
        int kind = 0;
        const std::vector<int> assignment = randomAssignment(rng, kind);
        const SimulationInput input = randomInput(rng, assignment);
        const PipelineLayout layout = analyzeAssignment(assignment);
        for (ScheduleKind schedule : validSchedules(layout)) {
            SimulationOptions options;
            if (rng() % 4 == 0)
                options.memory_limit_mb = 100 + rng() % 1500;
            if (rng() % 6 == 0)
                options.max_inflight_microbatches = 1 + static_cast<int>(rng() % 4);
            const QByteArray where = QByteArray(scheduleName(schedule).data()) + " on "
                + QByteArray::fromStdString(assignmentText(assignment))
                + ", m=" + QByteArray::number(static_cast<int>(input.microbatches.size()));
            // DualPipeV refuses fewer than two micro-batches per device and direction.
            if (schedule == ScheduleKind::DualPipeV
                && input.microbatches.size() < 2 * static_cast<std::size_t>(layout.n_devices)) {
                QVERIFY_THROWS_EXCEPTION(Error, simulate(input, schedule, options));
                continue;
            }
            try {
                const SimulationResult result = simulate(input, schedule, options);
                const bool throttled = schedule == ScheduleKind::Cyclic || schedule == ScheduleKind::WaitFreeCyclic;
                QVERIFY2(result.feasible || (throttled && (options.memory_limit_mb > 0)), where.constData());
                if (!result.feasible)
                    continue;
                // Every forward is new to its device on a linear layout, so the limit holds.
                if (throttled && options.memory_limit_mb > 0 && layout.kind == AssignmentKind::Linear)
                    QVERIFY2(result.maxPeakMemoryMb() <= options.memory_limit_mb + 1e-6, where.constData());
                const ExecutionInstructions plan = buildInstructions(result, input);
                const DeadlockCheck check = checkDeadlockFree(plan);
                QVERIFY2(check.ok, (where + ": " + QByteArray::fromStdString(check.problem)).constData());
            } catch (const Error& error) {
                QFAIL((where + ": " + error.what()).constData());
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestSimRobustness)
#include "tst_sim_robustness.moc"
