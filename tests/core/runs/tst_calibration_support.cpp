// SPDX-License-Identifier: GPL-3.0-or-later
// What a calibration's runs can support (issue 24, finding 4): more fitted parameters than
// measurements is under-determined (no calibrated cluster is saved), as many is exactly
// determined (nothing checks the fit), and peak memories count only when a memory parameter is
// fitted, as calibrate() uses them.
#include <QTest>

#include "core/runs/calibration.h"
#include "core/runs/calibration_support.h"

using namespace stratex;
using namespace stratex::runs;

Q_DECLARE_METATYPE(std::vector<std::string>)

class TestCalibrationSupport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void counts_data();
    void counts();
};

void TestCalibrationSupport::counts_data()
{
    QTest::addColumn<int>("runs");
    QTest::addColumn<int>("withPeak");
    QTest::addColumn<std::vector<std::string>>("parameters");
    QTest::addColumn<int>("measurements");
    QTest::addColumn<bool>("under");
    QTest::addColumn<bool>("exact");
    const std::vector<std::string> six { "gemm", "gemm_half_dim", "hbm", "network", "collective_latency_us",
        "dp_overlap" };
    // The case: six parameters on one Megatron log.
    QTest::newRow("six on one log") << 1 << 0 << six << 1 << true << false;
    QTest::newRow("the defaults on one log") << 1 << 0 << std::vector<std::string> {} << 1 << true << false;
    QTest::newRow("one on one log") << 1 << 0 << std::vector<std::string> { "gemm" } << 1 << false << true;
    QTest::newRow("two on two") << 2 << 0 << std::vector<std::string> { "gemm", "dp_overlap" } << 2 << false << true;
    QTest::newRow("two on three") << 3 << 0 << std::vector<std::string> { "gemm", "dp_overlap" } << 3 << false << false;
    // Peaks are measurements only for a memory parameter.
    QTest::newRow("peaks, no memory parameter") << 2 << 2 << std::vector<std::string> { "gemm", "hbm", "network" }
                                                << 2 << true << false;
    QTest::newRow("peaks, memory parameter") << 2 << 2
                                             << std::vector<std::string> { "gemm", "memory_reserve_gb", "network" } << 4
                                             << false << false;
}

void TestCalibrationSupport::counts()
{
    QFETCH(int, runs);
    QFETCH(int, withPeak);
    QFETCH(std::vector<std::string>, parameters);
    QFETCH(int, measurements);
    QFETCH(bool, under);
    QFETCH(bool, exact);
    std::vector<ReferenceRun> list(static_cast<std::size_t>(runs));
    for (int i = 0; i < withPeak; ++i)
        list[std::size_t(i)].peak_memory_gib = 30.0;
    const CalibrationSupport support = calibrationSupport(list, parameters);
    QCOMPARE(support.parameters,
        int(parameters.empty() ? defaultCalibrationParameters().size() : parameters.size()));
    QCOMPARE(support.measurements, measurements);
    QCOMPARE(support.underDetermined(), under);
    QCOMPARE(support.exactlyDetermined(), exact);
    QCOMPARE(support.hasHeldOutError(), runs >= 3);
    const std::string warning = support.warning();
    QCOMPARE(warning.empty(), !under && !exact);
    if (under) {
        QVERIFY2(warning.find("under-determined") != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("not saved") != std::string::npos, warning.c_str());
        // What to bring: the kinds of runs and how many.
        QVERIFY2(warning.find("Megatron-LM logs") != std::string::npos, warning.c_str());
        QVERIFY2(warning.find("Bring at least " + std::to_string(std::max(support.parameters + 1, 3))) != std::string::npos,
            warning.c_str());
    }
}

QTEST_APPLESS_MAIN(TestCalibrationSupport)
#include "tst_calibration_support.moc"
