// SPDX-License-Identifier: GPL-3.0-or-later
// DualPipeV (deepseek-ai/DualPipe, dualpipev.py) on a V placement: it completes with every
// chunk's F, B and W once, its instructions are deadlock-free with no transfer at the V's turn,
// its peak keeps PP + 1 chunk activations per device and its bubble stays within DualPipe's
// published (PP/2 - 1)(F&B + B - 3W) (README table, PP = 2p stages, B the full backward, F&B =
// F + B here: the simulator does not overlap two chunks); it refuses m < 2p and non-V placements.
#include <functional>

#include <QTest>

#include "core/common/error.h"
#include "core/sim/instructions.h"
#include "core/sim/simulator.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

// p devices, one layer per chunk: [0, 1, ..., p-1, p-1, ..., 0].
std::vector<int> vAssignment(int p)
{
    std::vector<int> assignment;
    for (int d = 0; d < p; ++d)
        assignment.push_back(d);
    for (int d = p - 1; d >= 0; --d)
        assignment.push_back(d);
    return assignment;
}

// Every micro-batch and layer alike, no communication; B = input gradient, W = weight gradient.
SimulationInput uniformV(int p, int m, double fUs, double bUs, double wUs, double storedMb, double peakMb)
{
    SimulationInput input;
    input.device_assignment = vAssignment(p);
    for (int j = 0; j < m; ++j) {
        MicrobatchSpec mb;
        mb.id = j;
        LayerCost layer;
        layer.fw_us = fUs;
        layer.bw_us = bUs + wUs;
        layer.w_us = wUs;
        layer.stored_mb = storedMb;
        layer.peak_mb = peakMb;
        mb.layers.assign(input.device_assignment.size(), layer);
        input.microbatches.push_back(mb);
    }
    return input;
}

std::string errorOf(const std::function<void()>& call)
{
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestSimDualPipeV : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void uniform_data();
    void uniform();
    void refusals();
};

void TestSimDualPipeV::uniform_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("f");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("w");
    for (int p : { 2, 3, 4, 8 }) {
        for (int m : { 2 * p, 2 * p + 1, 3 * p + 5 }) {
            for (const auto& [f, b, w] : { std::tuple { 1000.0, 1000.0, 1000.0 }, std::tuple { 1000.0, 1200.0, 800.0 },
                     std::tuple { 1000.0, 2000.0, 500.0 }, std::tuple { 700.0, 900.0, 900.0 } }) {
                const std::string name = "p" + std::to_string(p) + " m" + std::to_string(m) + " F"
                    + std::to_string(int(f)) + " B" + std::to_string(int(b)) + " W" + std::to_string(int(w));
                QTest::newRow(name.c_str()) << p << m << f << b << w;
            }
        }
    }
}

void TestSimDualPipeV::uniform()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, f);
    QFETCH(double, b);
    QFETCH(double, w);
    constexpr double kStoredMb = 10;
    constexpr double kPeakMb = 12;
    const SimulationInput input = uniformV(p, m, f, b, w, kStoredMb, kPeakMb);
    SimulationOptions options;
    options.build_timeline = true;
    const SimulationResult result = simulate(input, ScheduleKind::DualPipeV, options);
    QVERIFY(result.feasible);
    // The turn is split: 2p stages, two per device.
    QCOMPARE(result.layout.stageCount(), 2 * p);
    for (int d = 0; d < p; ++d)
        QCOMPARE(result.compute_ops_per_device[static_cast<std::size_t>(d)], 2 * m * 3); // F, B, W per chunk

    // Each device computes 2m chunks; DualPipe's bubble bound per device on top.
    const double work = 2.0 * m * (f + b + w);
    const double fullBackward = b + w;
    const double bubbleBound = (p - 1) * ((f + fullBackward) + fullBackward - 3 * w);
    QVERIFY2(result.makespan_us >= work - 1e-6, qPrintable(QString::number(result.makespan_us)));
    QVERIFY2(result.makespan_us <= work + bubbleBound + 1e-6,
        qPrintable(QStringLiteral("makespan %1, work %2, bubble bound %3")
                       .arg(result.makespan_us)
                       .arg(work)
                       .arg(bubbleBound)));

    // PP + 1 = 2p + 1 chunk activations at most: 2p kept while the next forward peaks.
    QCOMPARE(result.maxPeakMemoryMb(), 2 * p * kStoredMb + kPeakMb);

    const ExecutionInstructions instructions = buildInstructions(result, input);
    const DeadlockCheck check = checkDeadlockFree(instructions);
    QVERIFY2(check.ok, check.problem.c_str());
    // No transfer at the turn: device p-1 neither sends to nor receives from itself.
    for (const Instruction& instruction : instructions.ranks[static_cast<std::size_t>(p - 1)].instructions)
        QVERIFY(instruction.peer != p - 1);
}

void TestSimDualPipeV::refusals()
{
    QVERIFY(errorOf([] {
        simulate(uniformV(4, 7, 1, 1, 1, 1, 1), ScheduleKind::DualPipeV);
    }).find("at least 2 x 4 micro-batches")
        != std::string::npos);
    SimulationInput linear = uniformV(2, 4, 1, 1, 1, 1, 1);
    linear.device_assignment = { 0, 0, 1, 1 };
    QVERIFY(errorOf([&] { simulate(linear, ScheduleKind::DualPipeV); }).find("V-shaped") != std::string::npos);
    SimulationInput interleaved = linear;
    interleaved.device_assignment = { 0, 1, 0, 1 };
    QVERIFY(errorOf([&] { simulate(interleaved, ScheduleKind::DualPipeV); }).find("got interleaved [0,1,0,1]")
        != std::string::npos);
}

QTEST_GUILESS_MAIN(TestSimDualPipeV)
#include "tst_sim_dualpipev.moc"
