// SPDX-License-Identifier: GPL-3.0-or-later
// The flexible-N interleaved schedule of Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models",
// §3.3.2 and Figure 6; Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage):
// - every (micro-batch, chunk) runs its forward and its backward once, after what it depends on,
//   and the per-rank instruction lists are deadlock-free, for N below, at and above p;
// - N = p reproduces Megatron's interleaved order (interleaved-1F1B) op for op;
// - the table is Megatron-Core's documented one (model_parallel_config.py, PP 2 VP 2 N 3 M 5);
// - the peak in-flight chunk activations of rank r are min((p-r-1)*2 + (v-1)*N + 1, m*v): N
//   contiguous micro-batches per chunk cost (v - 1) activations each;
// - with uniform micro-batches and p <= N the bubble stays (p-1)(tf+tb)/v ("Overall pipeline
//   bubble ratio is (PP - 1) / (V * M)", §3.3.2).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <QTest>

#include "core/common/error.h"
#include "core/sim/instructions.h"
#include "core/sim/peak_moment.h"
#include "core/sim/simulator.h"

#include "sim_test_inputs.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

using test::close;
using test::kPeakMb;
using test::kStoredMb;
using test::peakFor;

// The (m, N) the schedule runs: one group, or N >= p with a last group of 0 or at least p.
bool runs(int p, int m, int n)
{
    return n == m || (n >= p && (m % n == 0 || m % n >= p));
}

SimulationOptions groupOf(int n)
{
    SimulationOptions options;
    options.microbatch_group_size = n;
    return options;
}

// (kind, micro-batch, stage) of every compute op of a device, in start order.
using OpKey = std::tuple<int, int, int>;
std::vector<OpKey> computeOrder(const DeviceTimeline& device)
{
    std::vector<OpKey> keys;
    for (const TimelineOp& op : device.compute)
        keys.emplace_back(int(op.kind), op.microbatch, op.stage);
    return keys;
}

std::string errorOf(const std::function<void()>& call)
{
    try {
        call();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestSimFlexibleInterleaved : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void orderValid_data();
    void orderValid();
    void groupOfPIsMegatronInterleaved_data();
    void groupOfPIsMegatronInterleaved();
    void megatronDocumentedTable();
    void peakInflight_data();
    void peakInflight();
    void bubble_data();
    void bubble();
    void groupSizeChecked();
};

void TestSimFlexibleInterleaved::orderValid_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    std::set<std::tuple<int, int, int, int>> rows;
    for (int p : { 2, 3, 4, 5, 8 }) {
        for (int v : { 2, 3, 4 }) {
            for (int m : { 1, 2, p - 1, p, p + 1, 2 * p, 2 * p + 3, 10 }) {
                if (m < 1)
                    continue;
                for (int n : { 1, 2, p - 1, p, p + 1, 5, m }) {
                    if (n < 1 || n > m || !runs(p, m, n) || !rows.insert({ p, v, m, n }).second)
                        continue;
                    QTest::addRow("p=%d v=%d m=%d N=%d", p, v, m, n) << p << v << m << n;
                }
            }
        }
    }
}

void TestSimFlexibleInterleaved::orderValid()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    QFETCH(int, n);
    SimulationInput input = test::uniformInput(test::interleavedAssignment(p, v), m, 500, 1000, kStoredMb, kPeakMb);
    for (MicrobatchSpec& mb : input.microbatches) {
        for (LayerCost& layer : mb.layers) {
            layer.fw_comm_mb = 2;
            layer.bw_comm_mb = 2;
        }
    }
    input.comm.intra_node_bw_gbps = 100; // 160 us per transfer
    input.comm.intra_node_lat_us = 10;
    // simulate() throws when a fixed order cannot finish (a deadlock).
    SimulationResult result;
    const std::string error = errorOf([&] { result = simulate(input, ScheduleKind::FlexibleInterleaved, groupOf(n)); });
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(result.feasible);
    const int stages = p * v;
    // Every chunk's forward and backward once per micro-batch.
    std::map<OpKey, const TimelineOp*> ops;
    for (const DeviceTimeline& device : result.timeline.devices) {
        QCOMPARE(int(device.compute.size()), 2 * v * m);
        for (const TimelineOp& op : device.compute) {
            QCOMPARE(op.stage % p, device.device); // chunk c of rank r is stage c*p + r
            const bool added = ops.emplace(OpKey { int(op.kind), op.microbatch, op.stage }, &op).second;
            QVERIFY2(added, "an op ran twice");
        }
    }
    QCOMPARE(int(ops.size()), 2 * stages * m);
    // Dependencies: forward k after forward k-1, the last backward after the last forward,
    // backward k after backward k+1.
    const auto at = [&](OpKind kind, int j, int k) { return ops.at(OpKey { int(kind), j, k }); };
    for (int j = 0; j < m; ++j) {
        for (int k = 1; k < stages; ++k)
            QVERIFY(at(OpKind::Forward, j, k)->start_us >= at(OpKind::Forward, j, k - 1)->endUs() - 1e-9);
        QVERIFY(at(OpKind::Backward, j, stages - 1)->start_us >= at(OpKind::Forward, j, stages - 1)->endUs() - 1e-9);
        for (int k = 0; k + 1 < stages; ++k)
            QVERIFY(at(OpKind::Backward, j, k)->start_us >= at(OpKind::Backward, j, k + 1)->endUs() - 1e-9);
    }
    // Per-rank instruction lists that a runtime could execute without deadlock.
    const DeadlockCheck check = checkDeadlockFree(buildInstructions(result, input));
    QVERIFY2(check.ok, check.problem.c_str());
}

void TestSimFlexibleInterleaved::groupOfPIsMegatronInterleaved_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (int p : { 2, 3, 4, 8 }) {
        for (int v : { 2, 3, 4 }) {
            for (int groups : { 1, 2, 3, 5 })
                QTest::addRow("p=%d v=%d m=%d", p, v, p * groups) << p << v << p * groups;
        }
    }
}

// N = p (the default, Megatron's depth-first order): the same ops in the same order at the same
// times as interleaved-1F1B, also with uneven chunk times and transfers.
void TestSimFlexibleInterleaved::groupOfPIsMegatronInterleaved()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    SimulationInput input = test::uniformInput(test::interleavedAssignment(p, v), m, 500, 1000, kStoredMb, kPeakMb);
    for (MicrobatchSpec& mb : input.microbatches) {
        for (std::size_t l = 0; l < mb.layers.size(); ++l) {
            mb.layers[l].fw_us += 37.0 * double(l % 3);
            mb.layers[l].fw_comm_mb = 1;
            mb.layers[l].bw_comm_mb = 1;
        }
    }
    input.comm.intra_node_bw_gbps = 200;
    const SimulationResult megatron = simulate(input, ScheduleKind::Interleaved1F1B);
    for (int n : { 0, p }) {
        const SimulationResult flexible = simulate(input, ScheduleKind::FlexibleInterleaved, groupOf(n));
        QCOMPARE(flexible.makespan_us, megatron.makespan_us);
        QCOMPARE(flexible.peak_memory_mb_per_device, megatron.peak_memory_mb_per_device);
        for (int d = 0; d < p; ++d) {
            const DeviceTimeline& a = flexible.timeline.devices[std::size_t(d)];
            const DeviceTimeline& b = megatron.timeline.devices[std::size_t(d)];
            QCOMPARE(computeOrder(a), computeOrder(b));
            for (std::size_t k = 0; k < a.compute.size(); ++k)
                QCOMPARE(a.compute[k].start_us, b.compute[k].start_us);
        }
    }
}

// Megatron-Core's example of the tunable table (model_parallel_config.py,
// microbatch_group_size_per_vp_stage, NVIDIA/Megatron-LM d98e8a6): PP 2, VP 2, N 3, M 5 runs the
// forwards of rank 0 as micro-batches 0 1 2 0 1 2 3 4 3 4 on chunks 0 0 0 1 1 1 0 0 1 1.
void TestSimFlexibleInterleaved::megatronDocumentedTable()
{
    const SimulationInput input = test::uniformInput(test::interleavedAssignment(2, 2), 5, 500, 1000, 1, 1);
    const SimulationResult result = simulate(input, ScheduleKind::FlexibleInterleaved, groupOf(3));
    std::vector<std::pair<int, int>> forwards; // (micro-batch, chunk) on rank 0
    for (const TimelineOp& op : result.timeline.devices.front().compute) {
        if (op.kind == OpKind::Forward)
            forwards.emplace_back(op.microbatch, op.chunk);
    }
    const std::vector<std::pair<int, int>> expected { { 0, 0 }, { 1, 0 }, { 2, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 },
        { 3, 0 }, { 4, 0 }, { 3, 1 }, { 4, 1 } };
    QCOMPARE(forwards, expected);
    // Backwards mirror the chunks: chunk 1 of micro-batches 0 1 2 first, then chunk 0.
    std::vector<std::pair<int, int>> backwards;
    for (const TimelineOp& op : result.timeline.devices.front().compute) {
        if (op.kind == OpKind::Backward)
            backwards.emplace_back(op.microbatch, op.chunk);
    }
    const std::vector<std::pair<int, int>> mirrored { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 0, 0 }, { 1, 0 }, { 2, 0 },
        { 3, 1 }, { 4, 1 }, { 3, 0 }, { 4, 0 } };
    QCOMPARE(backwards, mirrored);
}

void TestSimFlexibleInterleaved::peakInflight_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    for (int p : { 2, 4, 8 }) {
        for (int v : { 2, 4 }) {
            for (int m : { 1, p - 1, p, 2 * p, 3 * p + 1 }) {
                for (int n = 1; n <= m; ++n) {
                    if (runs(p, m, n))
                        QTest::addRow("p=%d v=%d m=%d N=%d", p, v, m, n) << p << v << m << n;
                }
            }
        }
    }
}

// The ledger's peak on rank r: its warm-up forwards, (p-r-1)*2 + (v-1)*N, plus the first
// steady-state forward, or every chunk of every micro-batch when that is fewer. Each step of N
// holds v - 1 more chunk activations on every rank that does not run them all.
void TestSimFlexibleInterleaved::peakInflight()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    QFETCH(int, n);
    const SimulationInput input
        = test::uniformInput(test::interleavedAssignment(p, v), m, 500, 1000, kStoredMb, kPeakMb);
    SimulationOptions options = groupOf(n);
    options.build_timeline = false;
    const SimulationResult result = simulate(input, ScheduleKind::FlexibleInterleaved, options);
    for (int r = 0; r < p; ++r) {
        const int inflight = std::min((p - r - 1) * 2 + (v - 1) * n + 1, m * v);
        QVERIFY2(close(result.peak_memory_mb_per_device[std::size_t(r)], peakFor(inflight)),
            qPrintable(QStringLiteral("rank %1: peak %2 MB, expected %3 chunk activations = %4 MB")
                           .arg(r)
                           .arg(result.peak_memory_mb_per_device[std::size_t(r)])
                           .arg(inflight)
                           .arg(peakFor(inflight))));
    }
}

void TestSimFlexibleInterleaved::bubble_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("n");
    for (int p : { 2, 3, 4, 8 }) {
        for (int v : { 2, 3 }) {
            for (int m : { 2 * p, 3 * p, 4 * p + 2 }) {
                for (int n = p; n <= m; ++n) {
                    const int last = m % n;
                    if (last == 0 || last >= p) // Megatron-Core's rule: no dependency bubbles
                        QTest::addRow("p=%d v=%d m=%d N=%d", p, v, m, n) << p << v << m << n;
                }
            }
        }
    }
}

// Uniform micro-batches, no transfers, p <= N and a last group of 0 or at least p micro-batches:
// T = m(tf+tb) + (p-1)(tf+tb)/v, whatever N (§3.3.2's bubble ratio (PP - 1) / (V * M)).
void TestSimFlexibleInterleaved::bubble()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    QFETCH(int, n);
    const double tf = 1200;
    const double tb = 2400;
    const SimulationInput input
        = test::uniformInput(test::interleavedAssignment(p, v), m, tf / v, tb / v, kStoredMb, kPeakMb);
    SimulationOptions options = groupOf(n);
    options.build_timeline = false;
    const SimulationResult result = simulate(input, ScheduleKind::FlexibleInterleaved, options);
    const double expected = m * (tf + tb) + (p - 1) * (tf + tb) / v;
    QVERIFY2(close(result.makespan_us, expected),
        qPrintable(QStringLiteral("makespan %1, expected %2").arg(result.makespan_us).arg(expected)));
}

void TestSimFlexibleInterleaved::groupSizeChecked()
{
    const SimulationInput input = test::uniformInput(test::interleavedAssignment(2, 2), 4, 500, 1000, 1, 1);
    QCOMPARE(errorOf([&] { simulate(input, ScheduleKind::FlexibleInterleaved, groupOf(5)); }),
        std::string("flexible-interleaved: micro-batch group size N = 5 with 4 micro-batches on 2 devices: N must be "
                    "between 1 and the micro-batches (0: the default)"));
    QVERIFY(errorOf([&] { simulate(input, ScheduleKind::FlexibleInterleaved, groupOf(-1)); }).find("N = -1")
        != std::string::npos);
    QVERIFY(errorOf([&] { simulatePeakMoments(input, ScheduleKind::FlexibleInterleaved, 9); }).find("N = 9")
        != std::string::npos);
    // The (m, N) whose order would deadlock: N below p with more than one group, and a last
    // group shorter than p (Megatron-Core refuses both).
    const SimulationInput three = test::uniformInput(test::interleavedAssignment(3, 2), 5, 500, 1000, 1, 1);
    QCOMPARE(errorOf([&] { simulate(three, ScheduleKind::FlexibleInterleaved, groupOf(2)); }),
        std::string("flexible-interleaved: micro-batch group size N = 2 with 5 micro-batches on 3 devices: N below "
                    "the devices runs only as one group (N = micro-batches)"));
    QCOMPARE(errorOf([&] { simulate(three, ScheduleKind::FlexibleInterleaved, groupOf(4)); }),
        std::string("flexible-interleaved: micro-batch group size N = 4 with 5 micro-batches on 3 devices: the last "
                    "group would hold 1 micro-batches; it needs 0 or at least 3 (Megatron-Core's rule)"));
    QVERIFY(errorOf([&] { simulate(three, ScheduleKind::FlexibleInterleaved, groupOf(5)); }).empty());
    // The default N is the smallest that runs from min(p, m) up: 5 micro-batches on 3 devices
    // run as N = 3 (a last group of 2 < 3) or 4 (1) cannot, so as one group of 5.
    QCOMPARE(simulate(three, ScheduleKind::FlexibleInterleaved).makespan_us,
        simulate(three, ScheduleKind::FlexibleInterleaved, groupOf(5)).makespan_us);
    // 7 on 3: N = 3 leaves 1, N = 4 leaves 3 >= 3: the default is 4.
    const SimulationInput seven = test::uniformInput(test::interleavedAssignment(3, 2), 7, 500, 1000, 1, 1);
    QCOMPARE(simulate(seven, ScheduleKind::FlexibleInterleaved).peak_memory_mb_per_device,
        simulate(seven, ScheduleKind::FlexibleInterleaved, groupOf(4)).peak_memory_mb_per_device);
    QVERIFY(simulate(seven, ScheduleKind::FlexibleInterleaved).peak_memory_mb_per_device
        != simulate(seven, ScheduleKind::FlexibleInterleaved, groupOf(7)).peak_memory_mb_per_device);
    const SimulationInput linear = test::uniformInput(test::linearAssignment(2), 4, 500, 1000, 1, 1);
    QVERIFY(errorOf([&] { simulate(linear, ScheduleKind::FlexibleInterleaved); })
                .find("flexible-interleaved needs an interleaved device assignment")
        != std::string::npos);
    // Other schedules ignore N.
    QCOMPARE(simulate(input, ScheduleKind::Interleaved1F1B, groupOf(3)).makespan_us,
        simulate(input, ScheduleKind::Interleaved1F1B).makespan_us);
}

QTEST_GUILESS_MAIN(TestSimFlexibleInterleaved)
#include "tst_sim_flexible_interleaved.moc"
