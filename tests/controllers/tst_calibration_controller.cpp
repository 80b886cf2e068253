// SPDX-License-Identifier: GPL-3.0-or-later
// CalibrationController without widgets: published run records (files or a folder of them) are
// fitted on a worker, the outcome has each run's errors (held out with 3 runs or more), the saved
// cluster is calibratedClusterJson's and reads back with the fitted efficiencies; a cancelled
// calibration stops between fits; a bad input is reported naming the file.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/common/bounded_read.h"
#include "core/hardware/cluster_json.h"

#include "controllers/calibration_controller.h"
#include "jobs/job_runner.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

QString record(const QString& id)
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/") + id + QStringLiteral(".json");
}

} // namespace

class TestCalibrationController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void calibratesRecords_data()
    {
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<bool>("folder"); // the records copied into a folder, the folder added
        QTest::addColumn<bool>("heldOut");
        const QStringList three { "megatronlm2024-70b-768", "nemo2407-llama2-7b-8", "megatronlm2024-1.7b-48" };
        QTest::newRow("three files") << three << false << true;
        QTest::newRow("a folder of two") << three.mid(0, 2) << true << false;
    }
    void calibratesRecords()
    {
        QFETCH(QStringList, ids);
        QFETCH(bool, folder);
        QFETCH(bool, heldOut);
        QTemporaryDir dir;
        CalibrationInputs inputs;
        inputs.parameters = { "gemm", "dp_overlap" };
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("runs")));
        for (const QString& id : ids) {
            if (folder)
                QVERIFY(QFile::copy(record(id), dir.filePath(QStringLiteral("runs/") + id + QStringLiteral(".json"))));
            else
                inputs.run_paths << record(id);
        }
        if (folder)
            inputs.run_paths << dir.filePath(QStringLiteral("runs"));

        CalibrationController controller;
        QSignalSpy finished(&controller, &CalibrationController::calibrationFinished);
        controller.run(inputs);
        controller.runner()->waitForIdle();
        QCOMPARE(finished.count(), 1);
        const auto outcome = controller.outcome();
        QVERIFY(outcome);
        const runs::ClusterCalibration& c = outcome->calibration;
        QCOMPARE(c.result.before.size(), std::size_t(ids.size()));
        QCOMPARE(c.hasLeftOut(), heldOut);
        QCOMPARE(c.cluster.gpu.name, std::string("h100-80gb"));
        QVERIFY(c.result.cost_after <= c.result.cost_before);

        const QString saved = dir.filePath(QStringLiteral("cluster.json"));
        QString error;
        QVERIFY2(controller.saveCluster(saved, &error), qPrintable(error));
        QCOMPARE(readTextFile(saved.toStdString()), runs::calibratedClusterJson(c).dump(2) + "\n");
        const hardware::ClusterDescription back = hardware::readClusterFile(saved.toStdString());
        QVERIFY(back.efficiency);
        QVERIFY(std::abs(back.efficiency->gemm / c.result.fitted.gemm - 1) < 1e-9);
    }

    void cancelledBetweenFits()
    {
        CalibrationInputs inputs;
        inputs.run_paths << record(QStringLiteral("nemo2407-llama2-7b-8"));
        CancelFlagProgress progress;
        progress.cancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, calibrateFromFiles(inputs, progress));
    }

    void badInputIsReported()
    {
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.log"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a training log\n");
        file.close();
        CalibrationController controller;
        QSignalSpy failed(&controller, &CalibrationController::calibrationFailed);
        CalibrationInputs inputs;
        inputs.run_paths << broken;
        controller.run(inputs);
        controller.runner()->waitForIdle();
        QCOMPARE(failed.count(), 1);
        QVERIFY2(failed.first().first().toString().contains(broken), qPrintable(failed.first().first().toString()));
        QVERIFY(!controller.outcome());
        QString error;
        QVERIFY(!controller.saveCluster(dir.filePath(QStringLiteral("cluster.json")), &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("cluster.json"))));
    }
};

QTEST_GUILESS_MAIN(TestCalibrationController)
#include "tst_calibration_controller.moc"
