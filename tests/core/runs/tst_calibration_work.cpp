// SPDX-License-Identifier: GPL-3.0-or-later
// The calibration's work budget (issue 26: `calibrate` on 10,000 records hung, leave-one-out is
// n + 1 fits over n runs): the estimate in run evaluations, and calibrateCluster(), fitPresets()
// and crossValidate() refusing beyond the budget before any fit, naming the estimate and
// --lift-work-budget. The bundled records' cross-validation and preset fit stay within it.
#include <QTest>

#include "core/common/work_limits.h"
#include "core/common/work_budget.h"
#include "core/runs/calibration_work.h"
#include "core/runs/cluster_calibration.h"
#include "core/runs/cross_validation.h"

using namespace stratex;
using namespace stratex::runs;

namespace {

// n runs on one GPU, `sources` publications with fit runs: the estimate needs nothing else, and
// the refusal comes before any run is costed.
std::vector<ReferenceRun> fakeRuns(int n, int sources)
{
    std::vector<ReferenceRun> runs(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        runs[std::size_t(i)].id = "run" + std::to_string(i);
        runs[std::size_t(i)].source = "source" + std::to_string(i % std::max(1, sources));
        runs[std::size_t(i)].fit = true;
        runs[std::size_t(i)].cluster.gpu.name = "h100-80gb";
    }
    return runs;
}

} // namespace

class TestCalibrationWork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void calibrationEstimate_data();
    void calibrationEstimate();
    void refusedBeforeAnyFit_data();
    void refusedBeforeAnyFit();
    void bundledRecordsWithinBudget();
};

void TestCalibrationWork::calibrationEstimate_data()
{
    QTest::addColumn<int>("runs");
    QTest::addColumn<int>("parameters"); // 0: the defaults (6)
    QTest::addColumn<double>("work");
    QTest::addColumn<bool>("beyond");
    // One fit: n (3 + 60 (k + 2)) evaluations; from 3 runs on n more fits of n - 1 runs, each
    // followed by one prediction.
    QTest::newRow("one run, defaults") << 1 << 0 << 1.0 * (3 + 60 * 8) << false;
    QTest::newRow("two runs, one parameter") << 2 << 1 << 2.0 * (3 + 60 * 3) << false;
    QTest::newRow("three runs leave one out") << 3 << 2 << 3.0 * 243 + 3 * (2.0 * 243 + 1) << false;
    QTest::newRow("twenty runs") << 20 << 0 << 20.0 * 483 + 20 * (19.0 * 483 + 1) << false;
    // The 10,000 records: 4.8e10 evaluations, hours.
    QTest::newRow("10,000 records") << 10000 << 0 << 10000.0 * 483 + 10000 * (9999.0 * 483 + 1) << true;
}

void TestCalibrationWork::calibrationEstimate()
{
    QFETCH(int, runs);
    QFETCH(int, parameters);
    QFETCH(double, work);
    QFETCH(bool, beyond);
    CalibrationOptions options;
    for (int i = 0; i < parameters; ++i)
        options.parameters.push_back(defaultCalibrationParameters()[std::size_t(i)]);
    const WorkEstimate estimate = estimateCalibrationWork(std::size_t(runs), options);
    QCOMPARE(estimate.work, work);
    QCOMPARE(estimate.budget, limits::kMaxCalibrationWork);
    QCOMPARE(estimate.exceedsBudget(), beyond);
}

void TestCalibrationWork::refusedBeforeAnyFit_data()
{
    QTest::addColumn<QString>("job"); // calibrate, preset fit, cross-validate
    QTest::addColumn<int>("runs");
    QTest::addColumn<int>("sources");
    QTest::addColumn<QString>("named"); // in the message
    QTest::newRow("calibrate 10,000 records") << "calibrate" << 10000 << 1 << "10,000 runs";
    QTest::newRow("calibrate 100 records") << "calibrate" << 100 << 1 << "101 fits";
    QTest::newRow("preset fit of 10,000 records") << "preset fit" << 10000 << 5 << "10,000 runs";
    QTest::newRow("cross-validate 10,000 records") << "cross-validate" << 10000 << 50 << "50 folds";
    QTest::newRow("cross-validate 2,000 records of 2,000 sources")
        << "cross-validate" << 2000 << 2000 << "2,000 sources";
}

void TestCalibrationWork::refusedBeforeAnyFit()
{
    QFETCH(QString, job);
    QFETCH(int, runs);
    QFETCH(int, sources);
    QFETCH(QString, named);
    const std::vector<ReferenceRun> list = fakeRuns(runs, sources);
    CalibrationOptions options;
    NullProgress progress;
    auto start = [&] {
        if (job == QLatin1String("calibrate"))
            (void)calibrateCluster(list, std::nullopt, options, progress);
        else if (job == QLatin1String("preset fit"))
            (void)fitPresets(list, options);
        else
            (void)crossValidate(list, options, 1);
    };
    try {
        start();
        QFAIL("no refusal");
    } catch (const WorkBudgetExceeded& beyond) {
        const QString message = QString::fromUtf8(beyond.what());
        QVERIFY2(beyond.estimate().exceedsBudget(), qPrintable(message));
        QVERIFY2(message.contains(named), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("--lift-work-budget")), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("times its work budget")), qPrintable(message));
    }
    // Lifted (--lift-work-budget, the page's "Run anyway"), the same check lets it through.
    options.lift_work_budget = true;
    if (job == QLatin1String("calibrate"))
        requireBoundedCalibration(list.size(), options);
    else if (job == QLatin1String("preset fit"))
        requireBoundedPresetFit(list, options);
    else
        requireBoundedCrossValidation(list, options);
}

void TestCalibrationWork::bundledRecordsWithinBudget()
{
    const std::vector<ReferenceRun> bundled = readReferenceRuns(STRATEX_RESOURCES_DIR "/reference-runs");
    QVERIFY(bundled.size() > 100);
    CalibrationOptions options;
    options.robust_scale = 0.15; // as `reference --fit` and --cross-validate
    const WorkEstimate cv = estimateCrossValidationWork(bundled, options);
    QVERIFY2(!cv.exceedsBudget(), cv.describe().c_str());
    const WorkEstimate fit = estimatePresetFitWork(bundled, options);
    QVERIFY2(!fit.exceedsBudget(), fit.describe().c_str());
    QVERIFY(fit.work < cv.work);
}

QTEST_APPLESS_MAIN(TestCalibrationWork)
#include "tst_calibration_work.moc"
