// SPDX-License-Identifier: GPL-3.0-or-later
// The simulator against the closed forms of docs/dynapipe-planner.md §10 for uniform micro-batches,
// over many (p, m, v): makespans, bubbles and peak in-flight activations.
#include <algorithm>
#include <cmath>

#include <QTest>

#include "core/sim/simulator.h"

#include "sim_test_inputs.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

using test::close;
using test::kPeakMb;
using test::kStoredMb;
using test::peakFor;

QString name(const char* format, int a, int b, int c = 0)
{
    return QString::asprintf(format, a, b, c);
}

} // namespace

class TestSimAnalytic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void linear_data();
    void linear();
    void interleaved_data();
    void interleaved();
    void zbH1Bubble_data();
    void zbH1Bubble();
    void zbH1Memory_data();
    void zbH1Memory();
    void interleavedWithoutFullGroups_data();
    void interleavedWithoutFullGroups();
    void linearWithTransfers_data();
    void linearWithTransfers();
};

void TestSimAnalytic::linear_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("tf");
    QTest::addColumn<double>("tb");
    for (int p : { 1, 2, 3, 4, 6, 8, 16 }) {
        for (int m : { 1, 2, 3, 4, 7, 8, 16, 33, 64 }) {
            const double tf = 700 + 100 * p;
            QTest::newRow(qPrintable(name("p=%d m=%d", p, m))) << p << m << tf << 2.5 * tf;
        }
    }
}

// GPipe, 1F1B and unconstrained wait-free-cyclic: T = (m+p-1)(tf+tb); bubble fraction
// (p-1)/(m+p-1); in flight m (GPipe), min(p-s, m) (1F1B), min(m, 2(p-s)-1) (wait-free cyclic).
void TestSimAnalytic::linear()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, tf);
    QFETCH(double, tb);
    const SimulationInput input = test::uniformInput(test::linearAssignment(p), m, tf, tb, kStoredMb, kPeakMb);
    const double expected = (m + p - 1) * (tf + tb);
    for (ScheduleKind kind : { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::WaitFreeCyclic }) {
        const SimulationResult result = simulate(input, kind);
        const QByteArray what = QByteArray(scheduleName(kind).data()) + " makespan "
            + QByteArray::number(result.makespan_us) + ", expected " + QByteArray::number(expected);
        QVERIFY2(close(result.makespan_us, expected), what.constData());
        for (int s = 0; s < p; ++s) {
            int inflight = m;
            if (kind == ScheduleKind::OneFOneB)
                inflight = std::min(p - s, m);
            else if (kind == ScheduleKind::WaitFreeCyclic)
                inflight = std::min(m, 2 * (p - s) - 1);
            QVERIFY2(close(result.peak_memory_mb_per_device[static_cast<std::size_t>(s)], peakFor(inflight)),
                qPrintable(QStringLiteral("%1 stage %2: peak %3, expected %4")
                               .arg(QLatin1String(scheduleName(kind).data()))
                               .arg(s)
                               .arg(result.peak_memory_mb_per_device[static_cast<std::size_t>(s)])
                               .arg(peakFor(inflight))));
        }
        const std::vector<DeviceUtilization> use = deviceUtilization(result.timeline);
        for (const DeviceUtilization& device : use) {
            QVERIFY(close(device.busy_us, m * (tf + tb)));
            QVERIFY(close(device.bubble_percent, 100.0 * (p - 1) / (m + p - 1)));
        }
    }
}

void TestSimAnalytic::interleaved_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (int p : { 2, 3, 4, 8 }) {
        for (int v : { 2, 3, 4 }) {
            for (int groups : { 1, 2, 3, 8 })
                QTest::newRow(qPrintable(name("p=%d v=%d m=%d", p, v, p * groups))) << p << v << p * groups;
        }
    }
}

// Interleaved 1F1B with per-chunk times t/v: T = m(tf+tb) + (p-1)(tf+tb)/v; in flight
// min((p-s-1)*2 + (v-1)*p + 1, m*v) chunk activations (Megatron requires m % p == 0).
void TestSimAnalytic::interleaved()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    const double tf = 1200;
    const double tb = 2400;
    const SimulationInput input
        = test::uniformInput(test::interleavedAssignment(p, v), m, tf / v, tb / v, kStoredMb, kPeakMb);
    const SimulationResult result = simulate(input, ScheduleKind::Interleaved1F1B);
    const double expected = m * (tf + tb) + (p - 1) * (tf + tb) / v;
    QVERIFY2(close(result.makespan_us, expected),
        qPrintable(QStringLiteral("makespan %1, expected %2").arg(result.makespan_us).arg(expected)));
    for (int s = 0; s < p; ++s) {
        const int inflight = std::min((p - s - 1) * 2 + (v - 1) * p + 1, m * v);
        QVERIFY2(close(result.peak_memory_mb_per_device[static_cast<std::size_t>(s)], peakFor(inflight)),
            qPrintable(QStringLiteral("stage %1: peak %2, expected %3")
                           .arg(s)
                           .arg(result.peak_memory_mb_per_device[static_cast<std::size_t>(s)])
                           .arg(peakFor(inflight))));
    }
    const std::vector<DeviceUtilization> use = deviceUtilization(result.timeline);
    for (const DeviceUtilization& device : use)
        QVERIFY(close(device.bubble_percent, 100.0 * (p - 1) / (v * m + p - 1)));
    // Comm volume is v times that of a linear placement: every chunk boundary sends.
    int sends = 0;
    for (const DeviceTimeline& device : result.timeline.devices) {
        for (const TimelineOp& op : device.comm)
            sends += op.kind == OpKind::Send ? 1 : 0;
    }
    QCOMPARE(sends, 2 * m * (p * v - 1));
}

void TestSimAnalytic::zbH1Bubble_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("tF");
    QTest::addColumn<double>("tB");
    QTest::addColumn<double>("tW");
    const double triples[][3] = { { 1000, 1000, 1000 }, { 1000, 1500, 500 }, { 1000, 1200, 800 }, { 2000, 1000, 1000 },
        { 1000, 1000, 500 }, { 1500, 1000, 250 } };
    for (const auto& t : triples) {
        for (int p : { 2, 3, 4, 8 }) {
            for (int m : { p, 2 * p, 3 * p + 1, 32 }) {
                QTest::newRow(
                    qPrintable(QStringLiteral("p=%1 m=%2 F=%3 B=%4 W=%5").arg(p).arg(m).arg(t[0]).arg(t[1]).arg(t[2])))
                    << p << m << t[0] << t[1] << t[2];
            }
        }
    }
}

// ZB-H1 (Qi et al.): bubble (p-1)(T_F+T_B-T_W) for m >= p and T_W <= min(T_F, T_B); with
// T_F = T_B = T_W the bubble rate is (p-1)/(3m). 1F1B on the same input: (p-1)(T_F+T_B+T_W).
void TestSimAnalytic::zbH1Bubble()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, tF);
    QFETCH(double, tB);
    QFETCH(double, tW);
    const SimulationInput input = test::uniformInput(test::linearAssignment(p), m, tF, tB + tW, kStoredMb, kPeakMb, tW);
    const SimulationResult zb = simulate(input, ScheduleKind::ZbH1);
    const double work = m * (tF + tB + tW);
    QVERIFY2(close(zb.makespan_us - work, (p - 1) * (tF + tB - tW)),
        qPrintable(QStringLiteral("bubble %1, expected %2").arg(zb.makespan_us - work).arg((p - 1) * (tF + tB - tW))));
    if (tF == tB && tB == tW)
        QVERIFY(close((zb.makespan_us - work) / work, (p - 1) / (3.0 * m)));
    const SimulationResult oneF = simulate(input, ScheduleKind::OneFOneB);
    QVERIFY(close(oneF.makespan_us - work, (p - 1) * (tF + tB + tW)));
    // B and W are separate ops under ZB-H1: 3 compute ops per micro-batch and stage.
    for (int ops : zb.compute_ops_per_device)
        QCOMPARE(ops, 3 * m);
}

void TestSimAnalytic::zbH1Memory_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (int p : { 2, 3, 4, 8 }) {
        for (int m : { p, 2 * p, 32 })
            QTest::newRow(qPrintable(name("p=%d m=%d", p, m))) << p << m;
    }
}

// Per-device ZB-H1 memory (p-i+1)M_B + (i-1)M_W (1-based i): stage s holds p-s backward
// activations and s weight-gradient activations waiting for their W.
void TestSimAnalytic::zbH1Memory()
{
    QFETCH(int, p);
    QFETCH(int, m);
    const double mB = 100;
    const double mW = 40;
    SimulationInput input = test::uniformInput(test::linearAssignment(p), m, 1000, 2000, mB, mB, 1000);
    for (MicrobatchSpec& mb : input.microbatches) {
        for (LayerCost& layer : mb.layers)
            layer.w_stored_mb = mW;
    }
    const SimulationResult zb = simulate(input, ScheduleKind::ZbH1);
    for (int i = 1; i <= p; ++i) {
        const double expected = (p - i + 1) * mB + (i - 1) * mW;
        QVERIFY2(close(zb.peak_memory_mb_per_device[static_cast<std::size_t>(i - 1)], expected),
            qPrintable(QStringLiteral("device %1: %2, expected %3")
                           .arg(i - 1)
                           .arg(zb.peak_memory_mb_per_device[static_cast<std::size_t>(i - 1)])
                           .arg(expected)));
    }
    // Default: W keeps the whole activation, so every stage peaks like 1F1B's first stage.
    SimulationInput conservative = test::uniformInput(test::linearAssignment(p), m, 1000, 2000, mB, mB);
    const SimulationResult held = simulate(conservative, ScheduleKind::ZbH1);
    for (double peak : held.peak_memory_mb_per_device)
        QVERIFY(close(peak, p * mB));
}

void TestSimAnalytic::interleavedWithoutFullGroups_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::addColumn<int>("m");
    for (int p = 2; p <= 6; ++p) {
        for (int v = 2; v <= 4; ++v) {
            for (int m = 1; m <= 4 * p; ++m) {
                if (m % p != 0)
                    QTest::newRow(qPrintable(name("p=%d v=%d m=%d", p, v, m))) << p << v << m;
            }
        }
    }
}

// m not divisible by p: the missing slots of the last group are skipped; every op still runs
// once, the order stays deadlock-free and the makespan is bounded by GPipe-style sequential
// execution and below by the per-device work.
void TestSimAnalytic::interleavedWithoutFullGroups()
{
    QFETCH(int, p);
    QFETCH(int, v);
    QFETCH(int, m);
    const SimulationInput input
        = test::uniformInput(test::interleavedAssignment(p, v), m, 500, 1000, kStoredMb, kPeakMb);
    const SimulationResult result = simulate(input, ScheduleKind::Interleaved1F1B);
    for (int ops : result.compute_ops_per_device)
        QCOMPARE(ops, 2 * v * m);
    const double work = m * v * 1500.0;
    QVERIFY(result.makespan_us >= work);
    QVERIFY(result.makespan_us <= m * p * v * 1500.0 + 1e-6);
    const SimulationResult wfc = simulate(input, ScheduleKind::WaitFreeCyclic);
    QVERIFY(wfc.makespan_us >= work);
}


void TestSimAnalytic::linearWithTransfers_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("messageMb"); // 0: the transfer is the latency alone
    QTest::addColumn<double>("latencyUs");
    QTest::addColumn<double>("bandwidthGbps");
    for (int p : { 2, 3, 4, 5, 8 }) {
        for (int m : { 1, 2, 3, 5, 8, 13, 16, 32 }) {
            QTest::newRow(qPrintable(name("latency p=%d m=%d", p, m))) << p << m << 0.0 << 120.0 << 0.0;
            QTest::newRow(qPrintable(name("bandwidth p=%d m=%d", p, m))) << p << m << 25.0 << 10.0 << 400.0;
        }
    }
}

// Uniform micro-batches (tf = 1000, tb = 2000 us) with a transfer of c = lat + MB * 8000 / Gbit/s
// between neighbouring stages, c below tf:
// - GPipe: the forward wave crosses p - 1 links once and the backward wave once, the rest
//   overlaps with compute: T = (m + p - 1)(tf + tb) + 2(p - 1)c.
// - 1F1B: the same fill and drain, and in the steady state 1F1B's in-flight limit closes a cycle
//   over the whole pipeline (stage 0's forward of micro-batch j + p waits for j's backward, which
//   crossed 2(p - 1) links): each micro-batch after the second pays 2c(p - 1)/p, a cycle's transfers
//   landing on the critical path whole: T = (m + p - 1)(tf + tb) + 2c((p - 1) + ceil((m - 2)(p - 1)/p))
//   for m >= 2.
void TestSimAnalytic::linearWithTransfers()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, messageMb);
    QFETCH(double, latencyUs);
    QFETCH(double, bandwidthGbps);
    constexpr double tf = 1000;
    constexpr double tb = 2000;
    SimulationInput input = test::uniformInput(test::linearAssignment(p), m, tf, tb, kStoredMb, kPeakMb);
    for (MicrobatchSpec& mb : input.microbatches) {
        for (LayerCost& layer : mb.layers) {
            layer.fw_comm_mb = messageMb;
            layer.bw_comm_mb = messageMb;
        }
    }
    input.comm.intra_node_lat_us = latencyUs;
    input.comm.intra_node_bw_gbps = bandwidthGbps;
    const double c = latencyUs + (bandwidthGbps > 0 ? messageMb * 8000 / bandwidthGbps : 0);
    QVERIFY(c > 0 && c < tf);
    const double compute = (m + p - 1) * (tf + tb);
    const double gpipe = compute + 2 * (p - 1) * c;
    const int steady = m >= 2 ? ((m - 2) * (p - 1) + p - 1) / p : 0; // ceil((m - 2)(p - 1)/p)
    const double oneFOneB = compute + 2 * c * ((p - 1) + steady);
    const SimulationResult g = simulate(input, ScheduleKind::GPipe);
    QVERIFY2(close(g.makespan_us, gpipe), qPrintable(QStringLiteral("GPipe %1, expected %2").arg(g.makespan_us).arg(gpipe)));
    const SimulationResult o = simulate(input, ScheduleKind::OneFOneB);
    QVERIFY2(close(o.makespan_us, oneFOneB),
        qPrintable(QStringLiteral("1F1B %1, expected %2").arg(o.makespan_us).arg(oneFOneB)));
    // Free links give back the formula without transfers.
    input.comm = CommModel {};
    QVERIFY(close(simulate(input, ScheduleKind::OneFOneB).makespan_us, compute));
    // Every transfer is a send and a receive on the timeline, lasting c.
    int sends = 0;
    for (const DeviceTimeline& device : o.timeline.devices) {
        for (const TimelineOp& op : device.comm) {
            QVERIFY(close(op.duration_us, c));
            sends += op.kind == OpKind::Send;
        }
    }
    QCOMPARE(sends, 2 * (p - 1) * m);
}

QTEST_GUILESS_MAIN(TestSimAnalytic)
#include "tst_sim_analytic.moc"
