// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli export` of a Stratex plan file ("format": "stratex-plan"): every format from the
// file alone, the dimensions Galvatron and PaddleNLP cannot express refused by name (exit 1), and
// the flags of a Galvatron file refused as not applying (exit 2).
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

// Llama 3 70B on 8 x 8 H100: tp 8, pp 4 with 2 virtual stages, dp 2, ZeRO-1, selective recompute.
QByteArray planJson(const QByteArray& strategy)
{
    return "{\"format\": \"stratex-plan\", \"version\": 1, \"model\": {\"preset\": \"llama3-70b\"},\n"
           " \"cluster\": {\"num_nodes\": 8, \"gpus_per_node\": 8, \"gpu\": {\"preset\": \"h100-80gb\"}},\n"
           " \"strategy\": "
        + strategy + "}\n";
}

const QByteArray kInterleaved
    = "{\"tp\": 8, \"pp\": 4, \"vpp\": 2, \"dp\": 2, \"sequence_parallel\": true, \"zero\": 1, "
      "\"recompute\": \"selective\", \"micro_batch_size\": 1, \"global_batch_size\": 64, "
      "\"schedule\": \"interleaved\"}";

QString writePlan(const QTemporaryDir& dir, const QByteArray& strategy)
{
    const QString path = dir.filePath(QStringLiteral("plan.json"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    file.write(planJson(strategy));
    return path;
}

} // namespace

class TestCliExportPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exportsEveryDimension_data();
    void exportsEveryDimension();
    void refusesWhatTheTargetCannotExpress_data();
    void refusesWhatTheTargetCannotExpress();
    void galvatronFlagsDoNotApply();
    void torchtitanVersion_data();
    void torchtitanVersion();
};

void TestCliExportPlan::exportsEveryDimension_data()
{
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("expected");
    QTest::newRow("megatron") << "megatron"
                              << "--num-virtual-stages-per-pipeline-rank 2";
    QTest::newRow("torchtitan") << "torchtitan"
                                << "pipeline_parallel_schedule = \"Interleaved1F1B\"";
    QTest::newRow("pytorch-schedule") << "pytorch-schedule"
                                      << "0F0,0F1,0F2,0F3,4F0";
}

void TestCliExportPlan::exportsEveryDimension()
{
    QFETCH(QString, to);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString plan = writePlan(dir, kInterleaved);
    const CliResult r = runCli({ "export", "--strategy", plan, "--to", to, "--out", dir.filePath("out") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile out(dir.filePath("out"));
    QVERIFY(out.open(QIODevice::ReadOnly));
    const QByteArray text = out.readAll();
    QVERIFY2(text.contains(expected.toUtf8()), text.constData());
    QCOMPARE(bool(out.permissions() & QFileDevice::ExeOwner), to == "megatron");
}

void TestCliExportPlan::refusesWhatTheTargetCannotExpress_data()
{
    QTest::addColumn<QString>("to");
    QTest::addColumn<QByteArray>("strategy");
    QTest::addColumn<QString>("named");
    QTest::newRow("galvatron, vpp") << "galvatron" << kInterleaved << "virtual pipeline stages (vpp 2)";
    QTest::newRow("paddle, cp") << "paddle"
                                << QByteArray("{\"tp\": 8, \"pp\": 1, \"cp\": 2, \"dp\": 4, \"global_batch_size\": 64}")
                                << "context parallelism (cp 2)";
    QTest::newRow("megatron, heads") << "megatron"
                                     << QByteArray("{\"tp\": 3, \"pp\": 1, \"dp\": 21, \"global_batch_size\": 63}")
                                     << "tp x pp x cp x dp = 63, the cluster has 64";
}

void TestCliExportPlan::refusesWhatTheTargetCannotExpress()
{
    QFETCH(QString, to);
    QFETCH(QByteArray, strategy);
    QFETCH(QString, named);
    QTemporaryDir dir;
    const QString plan = writePlan(dir, strategy);
    const CliResult r = runCli({ "export", "--strategy", plan, "--to", to, "--out", dir.filePath("out") });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(named.toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains(plan.toUtf8() + ": not exported to"), r.err.constData());
    QVERIFY(!QFile::exists(dir.filePath("out")));
}

void TestCliExportPlan::galvatronFlagsDoNotApply()
{
    QTemporaryDir dir;
    const QString plan = writePlan(dir, kInterleaved);
    const CliResult r = runCli({ "export", "--strategy", plan, "--to", "megatron", "--model", "llama2-7b" });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--model does not apply to a Stratex plan file"), r.err.constData());
}

void TestCliExportPlan::torchtitanVersion_data()
{
    QTest::addColumn<QStringList>("flags"); // after --strategy PLAN
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("expected"); // in the file (exit 0) or on stderr
    QTest::newRow("main by default") << QStringList { "--to", "torchtitan" } << 0
                                     << "def stratex_plan() -> Trainer.Config:";
    QTest::newRow("main") << QStringList { "--to", "torchtitan", "--torchtitan-version", "main" } << 0
                          << "config.parallelism.pipeline_parallel_schedule = \"Interleaved1F1B\"";
    QTest::newRow("0.2: the TOML") << QStringList { "--to", "torchtitan", "--torchtitan-version", "0.2" } << 0
                                   << "[activation_checkpoint]";
    QTest::newRow("an unknown version") << QStringList { "--to", "torchtitan", "--torchtitan-version", "0.3" } << 2
                                        << "--torchtitan-version must be one of main, 0.2";
    QTest::newRow("another target") << QStringList { "--to", "megatron", "--torchtitan-version", "0.2" } << 2
                                    << "--torchtitan-version applies to --to torchtitan only";
}

void TestCliExportPlan::torchtitanVersion()
{
    QFETCH(QStringList, flags);
    QFETCH(int, exitCode);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString plan = writePlan(dir, kInterleaved);
    const CliResult r = runCli(QStringList { "export", "--strategy", plan, "--out", dir.filePath("out") } + flags);
    QCOMPARE(r.exitCode, exitCode);
    if (exitCode != 0) {
        QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
        return;
    }
    QFile out(dir.filePath("out"));
    QVERIFY(out.open(QIODevice::ReadOnly));
    const QByteArray text = out.readAll();
    QVERIFY2(text.contains(expected.toUtf8()), text.constData());
    // Each note once on stderr, whichever version.
    QVERIFY2(r.err.contains("warning: torchtitan: ZeRO-1: torchtitan's FSDP2"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCliExportPlan)
#include "tst_cli_export_plan.moc"
