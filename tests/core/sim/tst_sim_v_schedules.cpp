// SPDX-License-Identifier: GPL-3.0-or-later
// The V schedules on a V placement, DualPipeV (deepseek-ai/DualPipe, dualpipev.py) and ZB-V
// (Qi et al. 2024 §6, in PyTorch's ScheduleZBVZeroBubble order): they complete with every chunk's
// F, B and W once, their instructions are deadlock-free with no transfer at the V's turn, and
// their published properties hold. Peak: DualPipeV keeps PP + 1 chunk activations per device
// (DualPipe's README table, PP = 2p stages), ZB-V 2p, 1F1B's peak (Qi et al.). Time: with F = B
// = W both meet the bound no V can beat, the last device's fill (p-1)F plus its own work, i.e. a
// bubble-free steady state; otherwise DualPipeV stays within DualPipe's published (PP/2 - 1)(F&B +
// B - 3W) (B the full backward, F&B = F + B here: the simulator does not overlap two chunks) and
// ZB-V within 1F1B's (p-1)(F + B) of the same chunks. DualPipeV refuses m < 2p.
#include <functional>

#include <QTest>

#include "core/common/error.h"
#include "core/sim/instructions.h"
#include "core/sim/simulator.h"

using namespace stratex;
using namespace stratex::sim;

Q_DECLARE_METATYPE(stratex::sim::ScheduleKind)

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

class TestSimVSchedules : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void uniform_data();
    void uniform();
    void fewMicrobatches_data();
    void fewMicrobatches();
    void refusals();
};

void TestSimVSchedules::uniform_data()
{
    QTest::addColumn<ScheduleKind>("schedule");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("f");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("w");
    for (ScheduleKind schedule : { ScheduleKind::DualPipeV, ScheduleKind::ZbV }) {
        for (int p : { 2, 3, 4, 8 }) {
            const int fewest = schedule == ScheduleKind::DualPipeV ? 2 * p : 2 * p - 1;
            for (int m : { fewest, fewest + 1, 3 * p + 5 }) {
                for (const auto& [f, b, w] :
                    { std::tuple { 1000.0, 1000.0, 1000.0 }, std::tuple { 1000.0, 1200.0, 800.0 },
                        std::tuple { 1000.0, 2000.0, 500.0 }, std::tuple { 700.0, 900.0, 900.0 } }) {
                    const std::string name = std::string(scheduleName(schedule)) + " p" + std::to_string(p) + " m"
                        + std::to_string(m) + " F" + std::to_string(int(f)) + " B" + std::to_string(int(b)) + " W"
                        + std::to_string(int(w));
                    QTest::newRow(name.c_str()) << schedule << p << m << f << b << w;
                }
            }
        }
    }
}

void TestSimVSchedules::uniform()
{
    QFETCH(ScheduleKind, schedule);
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
    const SimulationResult result = simulate(input, schedule, options);
    QVERIFY(result.feasible);
    // The turn is split: 2p stages, two per device.
    QCOMPARE(result.layout.stageCount(), 2 * p);
    for (int d = 0; d < p; ++d)
        QCOMPARE(result.compute_ops_per_device[static_cast<std::size_t>(d)], 2 * m * 3); // F, B, W per chunk

    // Each device computes 2m chunks; device p-1 cannot start before p-1 chunk forwards.
    const double work = 2.0 * m * (f + b + w);
    const double fill = (p - 1) * f;
    QVERIFY2(result.makespan_us >= work + fill - 1e-6, qPrintable(QString::number(result.makespan_us)));
    if (f == b && b == w)
        QCOMPARE(result.makespan_us, work + fill);
    const double fullBackward = b + w;
    const double bubbleBound = schedule == ScheduleKind::DualPipeV
        ? (p - 1) * ((f + fullBackward) + fullBackward - 3 * w)
        : (p - 1) * (f + fullBackward);
    QVERIFY2(result.makespan_us <= work + bubbleBound + 1e-6,
        qPrintable(QStringLiteral("makespan %1, work %2, bubble bound %3")
                       .arg(result.makespan_us)
                       .arg(work)
                       .arg(bubbleBound)));

    // DualPipeV: PP + 1 = 2p + 1 chunk activations, 2p kept while the next forward peaks; ZB-V:
    // 2p, 2p - 1 kept.
    const int kept = schedule == ScheduleKind::DualPipeV ? 2 * p : 2 * p - 1;
    QCOMPARE(result.maxPeakMemoryMb(), kept * kStoredMb + kPeakMb);

    const ExecutionInstructions instructions = buildInstructions(result, input);
    const DeadlockCheck check = checkDeadlockFree(instructions);
    QVERIFY2(check.ok, check.problem.c_str());
    // No transfer at the turn: device p-1 neither sends to nor receives from itself.
    for (const Instruction& instruction : instructions.ranks[static_cast<std::size_t>(p - 1)].instructions)
        QVERIFY(instruction.peer != p - 1);
}

void TestSimVSchedules::fewMicrobatches_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (int p : { 2, 4, 8 }) {
        for (int m = 1; m < 2 * p - 1; m += std::max(1, p / 2)) {
            const std::string name = "p" + std::to_string(p) + " m" + std::to_string(m);
            QTest::newRow(name.c_str()) << p << m;
        }
    }
}

void TestSimVSchedules::fewMicrobatches()
{
    // ZB-V lays its order out for 2p - 1 micro-batches and skips the missing ones (as PyTorch
    // does): fewer micro-batches still run, every op once, deadlock-free.
    QFETCH(int, p);
    QFETCH(int, m);
    const SimulationInput input = uniformV(p, m, 1000, 1200, 800, 10, 12);
    SimulationOptions options;
    options.build_timeline = true;
    const SimulationResult result = simulate(input, ScheduleKind::ZbV, options);
    QVERIFY(result.feasible);
    for (int d = 0; d < p; ++d)
        QCOMPARE(result.compute_ops_per_device[static_cast<std::size_t>(d)], 2 * m * 3);
    QVERIFY(checkDeadlockFree(buildInstructions(result, input)).ok);
}

void TestSimVSchedules::refusals()
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
    QVERIFY(errorOf([&] { simulate(linear, ScheduleKind::ZbV); }).find("ZB-V needs a V-shaped") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestSimVSchedules)
#include "tst_sim_v_schedules.moc"
