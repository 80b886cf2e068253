// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli calibrate` as a process: it fits measured runs, reports each run's error before,
// after and left out, writes a calibrated cluster that `profile synth --cluster` (and through
// its profile set, `search`) accepts, and refuses bad input naming the file and key.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString run(const char* id)
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/") + QString::fromLatin1(id) + ".json";
}

QString megatronLog()
{
    return QStringLiteral(STRATEX_TEST_DATA_DIR "/measured/megatron-llama2-7b-tp2-pp2-dp4.log");
}

QJsonObject readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace

class TestCliCalibrate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void calibrateThenSynthesize()
    {
        QTemporaryDir dir;
        const QString cluster = dir.filePath("cluster.json");
        const CliResult calibrate
            = runCli({ "calibrate", "--runs", run("megatronlm2024-70b-768"), run("nemo2407-llama2-7b-8"),
                run("megatronlm2024-1.7b-48"), "--fit", "gemm,dp_overlap", "--out", cluster, "--json" });
        QCOMPARE(calibrate.exitCode, 0);
        const QJsonObject report = calibrate.json().object();
        QCOMPARE(report.value("gpu").toString(), QString("h100-80gb"));
        const QJsonArray runs = report.value("runs").toArray();
        QCOMPARE(runs.size(), 3);
        for (const QJsonValue& row : runs) {
            QVERIFY(row.toObject().contains("throughput_error_before"));
            QVERIFY(row.toObject().contains("throughput_error_after"));
            QVERIFY(row.toObject().contains("throughput_error_left_out")); // 3 runs: leave-one-out
        }
        QVERIFY(report.value("mean_absolute_throughput_error_after").toDouble()
            <= report.value("mean_absolute_throughput_error_before").toDouble());

        const QJsonObject written = readJson(cluster);
        QVERIFY(written.contains("efficiency"));
        QCOMPARE(written.value("efficiency").toObject().value("gemm_fraction_of_peak").toDouble(),
            report.value("efficiency_after").toObject().value("gemm_fraction_of_peak").toDouble());
        QVERIFY(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size() == 1); // no temporary left

        const QString profiles = dir.filePath("profiles");
        const CliResult synth = runCli({ "profile", "synth", "--model", "llama2-7b", "--cluster", cluster,
            "--num-nodes", "2", "--out", profiles, "--json" });
        QCOMPARE(synth.exitCode, 0);
        QCOMPARE(synth.json().object().value("gpu").toString(), QString("h100-80gb"));
        const QJsonObject record = readJson(profiles + "/stratex_synthesis.json");
        QCOMPARE(
            record.value("cluster").toObject().value("efficiency").toObject(), written.value("efficiency").toObject());
        const CliResult search
            = runCli({ "search", "--profiles", profiles, "--memory-constraint", "80", "--settle-bsz", "64", "--json" });
        QCOMPARE(search.exitCode, 0);
    }

    // A Megatron-LM log is a run too (the cluster from --gpu and --gpus-per-node), as on the GUI's
    // Calibrate page: its id is the file's name, and the fit brings its error down.
    void calibrateOnAMegatronLog()
    {
        QTemporaryDir dir;
        const QString cluster = dir.filePath("cluster.json");
        const CliResult calibrate = runCli({ "calibrate", "--runs", megatronLog(), "--gpu", "a100-80gb",
            "--gpus-per-node", "8", "--fit", "gemm", "--out", cluster, "--json" });
        QCOMPARE(calibrate.exitCode, 0);
        const QJsonObject report = calibrate.json().object();
        QCOMPARE(report.value("gpu").toString(), QString("a100-80gb"));
        const QJsonArray runs = report.value("runs").toArray();
        QCOMPARE(runs.size(), 1);
        const QJsonObject row = runs.first().toObject();
        QCOMPARE(row.value("id").toString(), QString("megatron-llama2-7b-tp2-pp2-dp4"));
        // The log's mean of iterations 3-8 (after the warm-up).
        QVERIFY(qAbs(row.value("measured_iteration_s").toDouble() - 5.4691) < 1e-3);
        QVERIFY(qAbs(row.value("throughput_error_after").toDouble())
            < qAbs(row.value("throughput_error_before").toDouble()));
        QCOMPARE(readJson(cluster).value("calibration").toObject().value("runs").toArray().size(), 1);
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("file"); // written to run.json in the temporary folder when not empty
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no out") << QStringList { "calibrate", "--runs", run("nemo2407-llama2-7b-8") } << QByteArray()
                                << 2 << "--out FILE is required";
        QTest::newRow("no runs") << QStringList { "calibrate", "--out", "OUT" } << QByteArray() << 2
                                 << "--runs FILE is required";
        QTest::newRow("unknown parameter")
            << QStringList { "calibrate", "--runs", run("nemo2407-llama2-7b-8"), "--fit", "gemm,speed", "--out", "OUT" }
            << QByteArray() << 2 << "unknown parameter \"speed\"";
        QTest::newRow("two gpus") << QStringList { "calibrate", "--runs", run("nemo2407-llama2-7b-8"),
            run("llmfoundry-mpt-13b-8-a100-80gb"), "--out", "OUT" }
                                  << QByteArray() << 1 << "is on a100-80gb";
        QTest::newRow("log without the gpu")
            << QStringList { "calibrate", "--runs", megatronLog(), "--out", "OUT" } << QByteArray() << 1 << "the GPU";
        QTest::newRow("bad record") << QStringList { "calibrate", "--runs", "RUN", "--out", "OUT" }
                                    << QByteArray("{\"id\": \"x\", \"use\": \"train\"}") << 1 << "/use";
        QTest::newRow("bad cluster efficiency")
            << QStringList { "calibrate", "--runs", run("nemo2407-llama2-7b-8"), "--cluster", "RUN", "--out", "OUT" }
            << QByteArray("{\"num_nodes\": 1, \"gpus_per_node\": 8, \"gpu\": \"h100-80gb\", \"efficiency\": "
                          "{\"gemm_fraction_of_peak\": 2}}")
            << 1 << "/efficiency/gemm_fraction_of_peak";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, file);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString input = dir.filePath("run.json");
        if (!file.isEmpty())
            QVERIFY(writeTestFile(input, file));
        args.replaceInStrings(QRegularExpression("^RUN$"), input);
        args.replaceInStrings(QRegularExpression("^OUT$"), dir.filePath("cluster.json"));
        const CliResult result = runCli(args);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(result.err.contains(message.toUtf8()), result.err.constData());
        if (!file.isEmpty())
            QVERIFY2(result.err.contains(input.toUtf8()), result.err.constData()); // the file is named
        QVERIFY(!QFile::exists(dir.filePath("cluster.json"))); // nothing written
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrate)
#include "tst_cli_calibrate.moc"
