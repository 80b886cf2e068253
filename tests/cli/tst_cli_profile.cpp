// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli profile synth` as a process: the files it writes, that `search` reads them without
// model flags, its JSON, and its exit codes and messages.
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

class TestCliProfile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void synthThenSearch()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("llama2-13b"));
        const CliResult synth = runCli({ "profile", "synth", "--model", "llama2-13b", "--gpu", "h100-80gb",
            "--num-nodes", "2", "--seq-length", "4096", "--out", out, "--json" });
        QCOMPARE(synth.exitCode, 0);
        const QJsonObject summary = synth.json().object();
        QCOMPARE(summary.value("estimated").toBool(), true);
        QCOMPARE(summary.value("world").toInt(), 16);
        QCOMPARE(summary.value("files").toArray().size(), 7);
        for (const QJsonValue& name : summary.value("files").toArray())
            QVERIFY2(QFileInfo::exists(out + "/" + name.toString()), qPrintable(name.toString()));
        QVERIFY(QFileInfo::exists(out + "/sp_time_2nodes_8gpus_per_node.json"));

        // No model, cluster or sequence flags: the synthesis record supplies them.
        const CliResult search
            = runCli({ "search", "--cost-model", "galvatron", "--profiles", out, "--memory-constraint", "80",
                "--settle-bsz", "64", "--json" });
        QCOMPARE(search.exitCode, 0);
        const QJsonObject result = search.json().object();
        QCOMPARE(result.value("estimated_profiles").toBool(), true);
        const QJsonObject strategy = result.value("best").toObject().value("strategy").toObject();
        QCOMPARE(strategy.value("world_size").toInt(), 16);
        QCOMPARE(strategy.value("tp_sizes_enc").toString().split(',').size(), 40); // llama2-13b has 40 layers
        QVERIFY(search.err.contains("estimated"));
    }

    void list()
    {
        const CliResult result = runCli({ "profile", "synth", "--list", "--json" });
        QCOMPARE(result.exitCode, 0);
        const QJsonObject presets = result.json().object();
        QVERIFY(presets.value("models").toArray().size() >= 5);
        QVERIFY(presets.value("gpus").toArray().size() >= 3);
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no subcommand") << QStringList { "profile" } << 2 << "missing subcommand";
        QTest::newRow("unknown subcommand") << QStringList { "profile", "show" } << 2 << "unknown subcommand";
        QTest::newRow("no out") << QStringList { "profile", "synth" } << 2 << "--out DIR is required";
        QTest::newRow("bad number") << QStringList { "profile", "synth", "--out", "x", "--num-layers", "many" } << 2
                                    << "--num-layers";
        QTest::newRow("heads") << QStringList { "profile", "synth", "--out", "never-written", "--num-heads", "7" } << 1
                               << "hidden_size 4096 is not divisible by num_heads 7";
        // A preset name is a choice of the settings table: a usage error listing the presets.
        QTest::newRow("preset") << QStringList { "profile", "synth", "--out", "never-written", "--gpu", "tpu" } << 2
                                << "--gpu: expected one of a100-40gb";
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const CliResult result = runCli(args);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(result.err).contains(message), result.err.constData());
        QVERIFY(result.out.isEmpty());
        QVERIFY(!QFileInfo::exists(QStringLiteral("never-written")));
    }
};

QTEST_GUILESS_MAIN(TestCliProfile)
#include "tst_cli_profile.moc"
