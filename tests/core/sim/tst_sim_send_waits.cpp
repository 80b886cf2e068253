// SPDX-License-Identifier: GPL-3.0-or-later
// SimulationInput::compute_waits_for_previous_send: a compute op waits for the send that followed
// its device's previous op of the same direction (Megatron-Core's interleaved schedule waits on its
// own send handles; docs/collectives.md "Pipeline sends a schedule waits for").
#include <QTest>

#include "core/megatron/pipeline_input.h"
#include "core/sim/simulator.h"

#include "sim_test_inputs.h"

using namespace stratex;
using namespace stratex::sim;

class TestSimSendWaits : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void oneFOneB_data();
    void oneFOneB();
    void megatronInterleavedWaits_data();
    void megatronInterleavedWaits();
};

void TestSimSendWaits::oneFOneB_data()
{
    QTest::addColumn<double>("transferUs");
    QTest::addColumn<bool>("waits");
    QTest::addColumn<double>("expectedUs");
    // Two devices, two micro-batches, tf = tb = 10 us, a transfer of c us (latency only). Orders:
    // device 0 F(0) F(1) B(0) B(1), device 1 F(0) B(0) F(1) B(1).
    // c = 0: nothing to wait for, 60 us either way.
    QTest::newRow("no transfer, no waits") << 0.0 << false << 60.0;
    QTest::newRow("no transfer, waits") << 0.0 << true << 60.0;
    // c = 15 without waits: device 0 sends F(0) 10-25 and F(1) 25-40 on its comm stream; device 1
    // runs F(0) 25-35, B(0) 35-45 (its grad sent 45-60), F(1) 45-55, B(1) 55-65 (sent 65-80);
    // device 0 runs B(0) 60-70, B(1) 80-90.
    QTest::newRow("transfer 15, no waits") << 15.0 << false << 90.0;
    // With waits: device 0's F(1) waits for F(0)'s send (25): 25-35, sent 35-50; device 1 runs
    // F(0) 25-35, B(0) 35-45 (sent 45-60), F(1) 50-60, and B(1) waits for B(0)'s send: 60-70,
    // sent 70-85; device 0's B(0) 60-70, B(1) 85-95.
    QTest::newRow("transfer 15, waits") << 15.0 << true << 95.0;
}

void TestSimSendWaits::oneFOneB()
{
    QFETCH(double, transferUs);
    QFETCH(bool, waits);
    QFETCH(double, expectedUs);
    SimulationInput input = test::uniformInput({ 0, 1 }, 2, 10, 10, 0, 0);
    input.comm.intra_node_lat_us = transferUs;
    input.comm.inter_node_lat_us = transferUs;
    input.compute_waits_for_previous_send = waits;
    const SimulationResult result = simulate(input, ScheduleKind::OneFOneB);
    QVERIFY2(test::close(result.makespan_us, expectedUs),
        qPrintable(QStringLiteral("makespan %1 us, expected %2").arg(result.makespan_us).arg(expectedUs)));
}

void TestSimSendWaits::megatronInterleavedWaits_data()
{
    QTest::addColumn<int>("framework");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("vpp");
    QTest::addColumn<bool>("zbH1");
    QTest::addColumn<bool>("expected");
    using megatron::Framework;
    QTest::newRow("megatron-core interleaved") << int(Framework::MegatronCore) << 4 << 23 << false << true;
    QTest::newRow("megatron-bridge interleaved") << int(Framework::MegatronBridge) << 8 << 4 << false << true;
    QTest::newRow("megatron-core 1f1b") << int(Framework::MegatronCore) << 4 << 1 << false << false;
    QTest::newRow("megatron-core zb-h1") << int(Framework::MegatronCore) << 4 << 2 << true << false;
    QTest::newRow("megatron-core no pp") << int(Framework::MegatronCore) << 1 << 1 << false << false;
    QTest::newRow("torchtitan interleaved") << int(Framework::Torchtitan) << 4 << 2 << false << false;
}

void TestSimSendWaits::megatronInterleavedWaits()
{
    QFETCH(int, framework);
    QFETCH(int, pp);
    QFETCH(int, vpp);
    QFETCH(bool, zbH1);
    QFETCH(bool, expected);
    megatron::ParallelStrategy s;
    s.framework = megatron::Framework(framework);
    s.pp = pp;
    s.vpp = vpp;
    s.schedule = zbH1 ? megatron::PipelineSchedule::ZbH1
        : vpp > 1     ? megatron::PipelineSchedule::Interleaved
                      : megatron::PipelineSchedule::OneFOneB;
    QCOMPARE(megatron::computeWaitsForPreviousSend(s), expected);
}

QTEST_GUILESS_MAIN(TestSimSendWaits)
#include "tst_sim_send_waits.moc"
