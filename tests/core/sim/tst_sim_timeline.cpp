// SPDX-License-Identifier: GPL-3.0-or-later
// The simulator's timeline: lanes never double-book an executor, every dependency of the op
// graph holds, receives mirror sends, memory curves agree with the reported peaks, micro-batch
// ids survive reordering, and runs are deterministic.
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <QTest>

#include "core/sim/simulator.h"

#include "sim_test_inputs.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

constexpr double kEps = 1e-6;

// Heterogeneous micro-batches with communication: every layer differs a little.
SimulationInput heteroWithComm(const std::vector<int>& assignment, int microbatches)
{
    SimulationInput input;
    input.device_assignment = assignment;
    for (int j = 0; j < microbatches; ++j) {
        MicrobatchSpec mb;
        mb.id = 1000 + 7 * j;
        for (std::size_t l = 0; l < assignment.size(); ++l) {
            LayerCost layer;
            const double scale = 1.0 + 0.37 * ((j * 5 + static_cast<int>(l) * 3) % 7) / 7.0;
            layer.fw_us = 800 * scale;
            layer.bw_us = 1700 * scale;
            layer.stored_mb = 90 * scale;
            layer.peak_mb = 150 * scale;
            layer.fw_comm_mb = 3 * scale;
            layer.bw_comm_mb = 3 * scale;
            mb.layers.push_back(layer);
        }
        input.microbatches.push_back(mb);
    }
    input.model_state_mb_per_layer.assign(assignment.size(), 500);
    input.comm.inter_node_bw_gbps = 200;
    input.comm.intra_node_bw_gbps = 2400;
    input.comm.inter_node_lat_us = 5;
    const PipelineLayout layout = analyzeAssignment(assignment);
    for (int d = 0; d < layout.n_devices; ++d)
        input.comm.node_of_device.push_back(d / 2); // two devices per node
    return input;
}

using OpKey = std::tuple<int, int, int, bool>; // (position, stage, kind, grad)

OpKey keyOf(const TimelineOp& op)
{
    return { op.position, op.stage, static_cast<int>(op.kind), op.grad };
}

} // namespace

class TestSimTimeline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void invariants_data();
    void invariants();
    void idsSurviveReordering();
    void timelineIsOptional();
    void deterministic();
    void utilization();
};

void TestSimTimeline::invariants_data()
{
    QTest::addColumn<std::vector<int>>("assignment");
    QTest::addColumn<int>("schedule");
    const std::vector<std::vector<int>> assignments { { 0, 0, 1, 1, 2, 2, 3, 3 }, { 0, 1, 2, 3, 0, 1, 2, 3 },
        { 0, 1, 2, 3, 3, 2, 1, 0 }, { 0, 1, 2 }, { 0, 0, 0 } };
    for (const auto& assignment : assignments) {
        for (ScheduleKind kind : validSchedules(analyzeAssignment(assignment))) {
            QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(
                QString::fromStdString(assignmentText(assignment)), QLatin1String(scheduleName(kind).data()))))
                << assignment << static_cast<int>(kind);
        }
    }
}

void TestSimTimeline::invariants()
{
    QFETCH(std::vector<int>, assignment);
    QFETCH(int, schedule);
    const SimulationInput input = heteroWithComm(assignment, 9);
    const SimulationResult result = simulate(input, static_cast<ScheduleKind>(schedule));
    const Timeline& timeline = result.timeline;
    const int n = result.layout.stageCount();
    QCOMPARE(static_cast<int>(timeline.devices.size()), result.layout.n_devices);

    std::map<OpKey, const TimelineOp*> byKey;
    std::map<std::tuple<int, int, bool>, const TimelineOp*> recvs; // (position, stage, grad)
    double lastEnd = 0;
    std::set<std::uint32_t> orders;
    for (const DeviceTimeline& device : timeline.devices) {
        for (std::size_t i = 0; i < device.compute.size(); ++i) {
            const TimelineOp& op = device.compute[i];
            QVERIFY(op.isCompute());
            QCOMPARE(result.layout.stages[static_cast<std::size_t>(op.stage)].device, device.device);
            QCOMPARE(op.chunk, result.layout.stages[static_cast<std::size_t>(op.stage)].chunk);
            if (i > 0)
                QVERIFY(device.compute[i - 1].endUs() <= op.start_us + kEps); // one op at a time
            QVERIFY(byKey.emplace(keyOf(op), &op).second);
            QVERIFY(orders.insert(op.order).second);
            lastEnd = std::max(lastEnd, op.endUs());
        }
        double sendFree = 0;
        for (const TimelineOp& op : device.comm) {
            if (op.kind == OpKind::Send) {
                QVERIFY(op.start_us + kEps >= sendFree); // the comm executor sends one at a time
                sendFree = op.endUs();
                QVERIFY(op.peer >= 0 && op.peer != device.device);
                QVERIFY(byKey.emplace(keyOf(op), &op).second);
                QVERIFY(orders.insert(op.order).second);
            } else {
                QCOMPARE(op.kind, OpKind::Recv);
                QVERIFY(recvs.emplace(std::make_tuple(op.position, op.stage, op.grad), &op).second);
            }
            lastEnd = std::max(lastEnd, op.endUs());
        }
    }
    QVERIFY(std::abs(lastEnd - result.makespan_us) < kEps);
    QCOMPARE(static_cast<int>(orders.size()), result.op_count);

    auto get = [&](int position, int stage, OpKind kind, bool grad = false) -> const TimelineOp* {
        const auto found = byKey.find({ position, stage, static_cast<int>(kind), grad });
        return found == byKey.end() ? nullptr : found->second;
    };
    auto after
        = [](const TimelineOp* later, const TimelineOp* earlier) { return later->start_us + kEps >= earlier->endUs(); };
    for (int j = 0; j < static_cast<int>(input.microbatches.size()); ++j) {
        for (int k = 0; k < n; ++k) {
            const TimelineOp* f = get(j, k, OpKind::Forward);
            const TimelineOp* b = get(j, k, OpKind::Backward);
            QVERIFY(f && b);
            QCOMPARE(f->microbatch, input.microbatches[static_cast<std::size_t>(j)].id);
            // Stages on one device (a V's turn) hand over without a transfer.
            const auto deviceOf
                = [&](int stage) { return result.layout.stages[static_cast<std::size_t>(stage)].device; };
            if (k + 1 < n && deviceOf(k) == deviceOf(k + 1)) {
                QVERIFY(!get(j, k, OpKind::Send, false));
                QVERIFY(after(get(j, k + 1, OpKind::Forward), f));
            } else if (k + 1 < n) {
                const TimelineOp* send = get(j, k, OpKind::Send, false);
                QVERIFY(send);
                QVERIFY(after(send, f));
                QVERIFY(after(get(j, k + 1, OpKind::Forward), send));
                const TimelineOp* recv = recvs.at({ j, k, false });
                QCOMPARE(recv->start_us, send->start_us);
                QCOMPARE(recv->duration_us, send->duration_us);
                QCOMPARE(recv->peer, result.layout.stages[static_cast<std::size_t>(k)].device);
                QCOMPARE(send->peer, result.layout.stages[static_cast<std::size_t>(k + 1)].device);
            } else {
                QVERIFY(after(b, f));
            }
            if (k > 0 && deviceOf(k) == deviceOf(k - 1)) {
                QVERIFY(!get(j, k, OpKind::Send, true));
                QVERIFY(after(get(j, k - 1, OpKind::Backward), b));
            } else if (k > 0) {
                const TimelineOp* send = get(j, k, OpKind::Send, true);
                QVERIFY(send);
                QVERIFY(after(send, b));
                QVERIFY(after(get(j, k - 1, OpKind::Backward), send));
                QVERIFY(recvs.count({ j, k, true }) == 1);
            }
        }
    }

    for (const DeviceTimeline& device : timeline.devices) {
        QVERIFY(!device.memory.empty());
        QCOMPARE(device.memory.front().time_us, 0.0);
        double peak = 0;
        for (std::size_t i = 0; i < device.memory.size(); ++i) {
            peak = std::max(peak, device.memory[i].mem_mb);
            if (i > 0)
                QVERIFY(device.memory[i - 1].time_us <= device.memory[i].time_us);
        }
        QVERIFY(std::abs(peak - device.peak_memory_mb) < kEps);
        QVERIFY(
            std::abs(device.peak_memory_mb - result.peak_memory_mb_per_device[static_cast<std::size_t>(device.device)])
            < kEps);
        QVERIFY(std::abs(device.memory.back().mem_mb - device.model_state_mb) < 1e-6); // everything freed
        const int layersHere = static_cast<int>(std::count(assignment.begin(), assignment.end(), device.device));
        QVERIFY(std::abs(device.model_state_mb - 500.0 * layersHere) < kEps);
    }
}

void TestSimTimeline::idsSurviveReordering()
{
    SimulationInput input = heteroWithComm({ 0, 1, 2, 3 }, 6);
    std::reverse(input.microbatches.begin(), input.microbatches.end());
    const SimulationResult result = simulate(input, ScheduleKind::WaitFreeCyclic);
    for (const DeviceTimeline& device : result.timeline.devices) {
        for (const TimelineOp& op : device.compute)
            QCOMPARE(op.microbatch, input.microbatches[static_cast<std::size_t>(op.position)].id);
    }
    // Position 0 is fed first: its first forward starts the run.
    const TimelineOp& first = result.timeline.devices[0].compute.front();
    QCOMPARE(first.position, 0);
    QCOMPARE(first.microbatch, 1000 + 7 * 5);
    QCOMPARE(first.start_us, 0.0);
}

void TestSimTimeline::timelineIsOptional()
{
    const SimulationInput input = heteroWithComm({ 0, 1, 2, 3, 0, 1, 2, 3 }, 8);
    SimulationOptions options;
    options.build_timeline = false;
    for (ScheduleKind kind : { ScheduleKind::Interleaved1F1B, ScheduleKind::WaitFreeCyclic, ScheduleKind::Fifo }) {
        const SimulationResult without = simulate(input, kind, options);
        const SimulationResult with = simulate(input, kind);
        QVERIFY(without.timeline.devices.empty());
        QCOMPARE(without.makespan_us, with.makespan_us);
        QCOMPARE(without.peak_memory_mb_per_device, with.peak_memory_mb_per_device);
        int computeOps = 0;
        for (int ops : with.compute_ops_per_device)
            computeOps += ops;
        const int sends = with.op_count - computeOps;
        QCOMPARE(static_cast<int>(with.timeline.opCount()), computeOps + 2 * sends); // sends and their receives
    }
}

void TestSimTimeline::deterministic()
{
    const SimulationInput input = heteroWithComm({ 0, 1, 2, 3, 3, 2, 1, 0 }, 12);
    for (ScheduleKind kind : { ScheduleKind::WaitFreeCyclic, ScheduleKind::Fifo, ScheduleKind::Cyclic }) {
        const SimulationResult a = simulate(input, kind);
        const SimulationResult b = simulate(input, kind);
        QCOMPARE(a.makespan_us, b.makespan_us);
        for (std::size_t d = 0; d < a.timeline.devices.size(); ++d) {
            const auto& x = a.timeline.devices[d].compute;
            const auto& y = b.timeline.devices[d].compute;
            QCOMPARE(x.size(), y.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                QCOMPARE(x[i].start_us, y[i].start_us);
                QCOMPARE(x[i].order, y[i].order);
            }
        }
    }
}

void TestSimTimeline::utilization()
{
    // Hand-checkable: 2 stages, 2 micro-batches, GPipe: T = (m+p-1)(tf+tb) = 3 * 3000.
    const SimulationInput input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    const SimulationResult result = simulate(input, ScheduleKind::GPipe);
    QCOMPARE(result.makespan_us, 9000.0);
    const std::vector<DeviceUtilization> use = deviceUtilization(result.timeline);
    QCOMPARE(use.size(), std::size_t(2));
    for (const DeviceUtilization& device : use) {
        QCOMPARE(device.busy_us, 6000.0);
        QCOMPARE(device.bubble_us, 3000.0);
        QVERIFY(std::abs(device.busy_percent - 200.0 / 3) < 1e-9);
        QVERIFY(std::abs(device.bubble_percent - 100.0 / 3) < 1e-9);
    }
    // Device 0: F0 [0,1000] F1 [1000,2000] idle, B0 [5000,7000] B1 [7000,9000].
    const auto& ops = result.timeline.devices[0].compute;
    QCOMPARE(ops[2].kind, OpKind::Backward);
    QCOMPARE(ops[2].start_us, 5000.0);
    // Memory: 200 (F0 peak), 100, 300 (F1 peak), 200 stored, then B0 frees to 100, B1 to 0.
    const std::vector<MemorySample>& memory = result.timeline.devices[0].memory;
    const std::vector<std::pair<double, double>> expected { { 0, 200 }, { 1000, 300 }, { 2000, 200 }, { 7000, 100 },
        { 9000, 0 } };
    QCOMPARE(memory.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(memory[i].time_us, expected[i].first);
        QCOMPARE(memory[i].mem_mb, expected[i].second);
    }
    QVERIFY(deviceUtilization(Timeline {}).empty());
}

QTEST_GUILESS_MAIN(TestSimTimeline)
#include "tst_sim_timeline.moc"
