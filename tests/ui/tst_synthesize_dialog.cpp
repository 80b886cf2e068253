// SPDX-License-Identifier: GPL-3.0-or-later
// The Synthesize dialog with a calibrated cluster file (what the Calibrate page saves): the file's
// GPU figures and efficiencies go into the set it writes, and from there into the stratex search;
// choosing another GPU drops them; a broken file is named. Offscreen, with a screenshot.
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/synthesis_record.h"
#include "ui/search/synthesize_dialog.h"

#include "controllers/stratex_search_controller.h"

using namespace stratex;
using namespace stratex::ui;
using namespace stratex::controllers;

namespace {

// A calibrated 2 x 8 A100 cluster whose GEMMs reach 0.4321 of peak.
QString writeCalibratedCluster(const QTemporaryDir& dir)
{
    hardware::ClusterDescription cluster { hardware::gpuPreset("a100-80gb"), 2, 8 };
    hardware::Efficiency efficiency = hardware::efficiencyFor(cluster.gpu);
    efficiency.gemm = 0.4321;
    cluster.efficiency = efficiency;
    const QString path = dir.filePath(QStringLiteral("cluster.json"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(QByteArray::fromStdString(hardware::toJson(cluster).dump(2)));
    return path;
}

} // namespace

class TestSynthesizeDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void calibratedClusterReachesTheSearch_data()
    {
        QTest::addColumn<QString>("gpu"); // chosen after loading the file; "" keeps the file's
        QTest::addColumn<double>("gemm"); // the efficiency the stratex search then uses
        QTest::newRow("the file's GPU") << "" << 0.4321;
        QTest::newRow("another GPU") << "h100-80gb" << hardware::efficiencyFor(hardware::gpuPreset("h100-80gb")).gemm;
    }
    void calibratedClusterReachesTheSearch()
    {
        QFETCH(QString, gpu);
        QFETCH(double, gemm);
        QTemporaryDir dir;
        SynthesizeDialog dialog;
        dialog.nodesBox()->setValue(1);
        QString error;
        QVERIFY2(dialog.setClusterFile(writeCalibratedCluster(dir), &error), qPrintable(error));
        QCOMPARE(dialog.gpuBox()->currentText(), QStringLiteral("a100-80gb"));
        QCOMPARE(dialog.nodesBox()->value(), 2); // the file's shape
        if (!gpu.isEmpty())
            dialog.gpuBox()->setCurrentText(gpu);
        dialog.modelBox()->setCurrentText(QStringLiteral("llama2-7b"));
        dialog.folderEdit()->setText(dir.filePath(QStringLiteral("set")));
        QVERIFY2(dialog.synthesize(&error), qPrintable(error));

        const auto record = profile::synth::readSynthesisRecord(dir.filePath(QStringLiteral("set")).toStdString());
        QVERIFY(record);
        QCOMPARE(record->cluster.efficiency.has_value(), gpu.isEmpty());
        StratexSearchInputs inputs;
        inputs.profiles_dir = dir.filePath(QStringLiteral("set")).toStdString();
        inputs.stratex.global_batch_size = 32;
        const megatron::StrategySearchRequest request = resolveStratexRequest(inputs);
        QCOMPARE(request.efficiency.gemm, gemm);
        QCOMPARE(request.cluster.worldSize(), 16);

        if (gpu.isEmpty()) {
            const QString png = QCoreApplication::applicationDirPath() + QStringLiteral("/tst_synthesize_dialog.png");
            QVERIFY(dialog.grab().save(png));
        }
    }

    void brokenClusterFileIsNamed_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("not JSON") << QByteArray("gpu: a100") << "cluster.json";
        hardware::ClusterDescription custom { hardware::gpuPreset("a100-80gb"), 1, 8 };
        custom.gpu.name = "my-gpu";
        QTest::newRow("a GPU of its own")
            << QByteArray::fromStdString(hardware::toJson(custom).dump()) << "\"my-gpu\" is not a preset";
    }
    void brokenClusterFileIsNamed()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("cluster.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        SynthesizeDialog dialog;
        const QString gpuBefore = dialog.gpuBox()->currentText();
        QString error;
        QVERIFY(!dialog.setClusterFile(file.fileName(), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QCOMPARE(dialog.gpuBox()->currentText(), gpuBefore);
        QVERIFY(!dialog.settings().cluster.efficiency);
    }
};

QTEST_MAIN(TestSynthesizeDialog)
#include "tst_synthesize_dialog.moc"
