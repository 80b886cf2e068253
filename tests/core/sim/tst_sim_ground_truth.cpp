// SPDX-License-Identifier: GPL-3.0-or-later
// The simulator against DynaPipe's own simulator: every case of schedule_ground_truth.json
// (read in place), its repo_test_configs (with communication) and the memory-limited
// wait-free-cyclic runs.
#include <cmath>

#include <QTest>

#include "core/common/json_reader.h"
#include "core/sim/sim_cases.h"
#include "core/sim/simulator.h"

#include "sim_test_inputs.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

std::vector<double> numbers(const JsonView& array)
{
    std::vector<double> values;
    for (const JsonView& element : array.elements())
        values.push_back(element.number());
    return values;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

QString listText(const std::vector<double>& values)
{
    QString text;
    for (double v : values)
        text += QString::number(v) + QLatin1Char(' ');
    return text;
}

} // namespace

class TestSimGroundTruth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cases_data();
    void cases();
    void repoTestConfigs_data();
    void repoTestConfigs();
    void memoryLimitedWaitFreeCyclic_data();
    void memoryLimitedWaitFreeCyclic();
    void fixtureIsComplete();
};

void TestSimGroundTruth::cases_data()
{
    QTest::addColumn<int>("index");
    const JsonView cases = test::scheduleGroundTruth().root()["cases"];
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const JsonView c = cases.at(i);
        QTest::newRow(qPrintable(
            QStringLiteral("%1 %2: %3")
                .arg(i)
                .arg(QString::fromStdString(c["schedule"].string()), QString::fromStdString(c["desc"].string()))))
            << static_cast<int>(i);
    }
}

void TestSimGroundTruth::cases()
{
    QFETCH(int, index);
    const JsonView expected = test::scheduleGroundTruth().root()["cases"].at(static_cast<std::size_t>(index));
    const SimulationCase simCase = readSimulationCase(expected);
    const SimulationResult result = simulate(simCase.input, simCase.schedule, simCase.options);
    QVERIFY(result.feasible);
    QVERIFY2(close(result.makespan_us, expected["makespan_us"].number()),
        qPrintable(
            QStringLiteral("makespan %1, expected %2").arg(result.makespan_us).arg(expected["makespan_us"].number())));
    const std::vector<double> peaks = numbers(expected["peak_memory_mb_per_device"]);
    QCOMPARE(result.peak_memory_mb_per_device.size(), peaks.size());
    for (std::size_t d = 0; d < peaks.size(); ++d) {
        QVERIFY2(close(result.peak_memory_mb_per_device[d], peaks[d]),
            qPrintable(QStringLiteral("peaks %1, expected %2")
                           .arg(listText(result.peak_memory_mb_per_device), listText(peaks))));
    }
    const std::vector<double> computeOps = numbers(expected["n_compute_instrs_per_device"]);
    QCOMPARE(result.compute_ops_per_device.size(), computeOps.size());
    for (std::size_t d = 0; d < computeOps.size(); ++d)
        QCOMPARE(result.compute_ops_per_device[d], static_cast<int>(computeOps[d]));
    // The timeline tells the same story as the summary.
    QCOMPARE(result.timeline.devices.size(), peaks.size());
    for (std::size_t d = 0; d < peaks.size(); ++d) {
        QCOMPARE(static_cast<int>(result.timeline.devices[d].compute.size()), result.compute_ops_per_device[d]);
        QVERIFY(close(result.timeline.devices[d].peak_memory_mb, peaks[d]));
    }
}

void TestSimGroundTruth::repoTestConfigs_data()
{
    QTest::addColumn<int>("index");
    const JsonView configs = test::scheduleGroundTruth().root()["repo_test_configs"];
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const JsonView c = configs.at(i);
        QTest::newRow(qPrintable(
            QStringLiteral("%1 %2 %3 %4")
                .arg(i)
                .arg(QString::fromStdString(c["batch"].string()), QString::fromStdString(c["schedule"].string()),
                    QString::fromStdString(c["device_assignment"].raw().dump()))))
            << static_cast<int>(i);
    }
}

void TestSimGroundTruth::repoTestConfigs()
{
    QFETCH(int, index);
    const JsonView expected
        = test::scheduleGroundTruth().root()["repo_test_configs"].at(static_cast<std::size_t>(index));
    std::vector<int> assignment;
    for (const JsonView& device : expected["device_assignment"].elements())
        assignment.push_back(static_cast<int>(device.integer()));
    const SimulationInput input = expected["batch"].string() == "uniform" ? test::repoUniformBatch(assignment)
                                                                          : test::repoHeteroBatch(assignment);
    const SimulationResult result = simulate(input, scheduleFromName(expected["schedule"].string()));
    QVERIFY2(close(result.makespan_us / 1000.0, expected["makespan_ms"].number()),
        qPrintable(QStringLiteral("makespan %1 ms, expected %2")
                       .arg(result.makespan_us / 1000)
                       .arg(expected["makespan_ms"].number())));
    QVERIFY(close(result.maxPeakMemoryMb(), expected["max_peak_memory_mb"].number()));
    const auto& peaks = result.peak_memory_mb_per_device;
    const int argmax = static_cast<int>(std::max_element(peaks.begin(), peaks.end()) - peaks.begin());
    QCOMPARE(QStringLiteral("Executor %1 Compute").arg(argmax),
        QString::fromStdString(expected["max_peak_executor"].string()));
}

void TestSimGroundTruth::memoryLimitedWaitFreeCyclic_data()
{
    QTest::addColumn<double>("limit");
    QTest::addColumn<double>("makespanMs");
    QTest::addColumn<double>("peakMb");
    for (const JsonView& r :
        test::scheduleGroundTruth().root()["memory_limited_wait_free_cyclic"]["results"].elements()) {
        const double limit = r["memory_limit_mb"].number();
        QTest::newRow(qPrintable(QStringLiteral("limit %1 MB").arg(limit)))
            << limit << r["makespan_ms"].number() << r["peak_mb"].number();
    }
}

void TestSimGroundTruth::memoryLimitedWaitFreeCyclic()
{
    QFETCH(double, limit);
    QFETCH(double, makespanMs);
    QFETCH(double, peakMb);
    const SimulationInput input = test::uniformInput(test::linearAssignment(4), 8, 1000, 2000, 100, 200);
    // DynaPipe's optimize_schedule: first without a scheduler limit, then with it.
    const SimulationResult retried = simulateWithinMemory(input, ScheduleKind::WaitFreeCyclic, limit);
    QVERIFY(retried.feasible);
    QVERIFY(close(retried.makespan_us / 1000.0, makespanMs));
    QVERIFY(close(retried.maxPeakMemoryMb(), peakMb));
    // The CLI's per-case memory_limit_mb goes straight to the cyclic pass: same numbers.
    SimulationOptions options;
    options.memory_limit_mb = limit;
    const SimulationResult direct = simulate(input, ScheduleKind::WaitFreeCyclic, options);
    QVERIFY(close(direct.makespan_us / 1000.0, makespanMs));
    QVERIFY(close(direct.maxPeakMemoryMb(), peakMb));
    QVERIFY(direct.maxPeakMemoryMb() <= limit + 1e-9);
}

// Guards against a fixture that silently lost its rows.
void TestSimGroundTruth::fixtureIsComplete()
{
    const JsonView root = test::scheduleGroundTruth().root();
    QCOMPARE(root["cases"].size(), std::size_t(20));
    QCOMPARE(root["repo_test_configs"].size(), std::size_t(10));
    QCOMPARE(root["memory_limited_wait_free_cyclic"]["results"].size(), std::size_t(5));
}

QTEST_GUILESS_MAIN(TestSimGroundTruth)
#include "tst_sim_ground_truth.moc"
