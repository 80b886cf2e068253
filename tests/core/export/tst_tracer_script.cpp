// SPDX-License-Identifier: GPL-3.0-or-later
// The tracer batch script: bash accepts it, it runs the selected ranks of every valid config
// with the user's command, logs per rank, and keeps going when a rank fails.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "core/common/error.h"
#include "core/export/tracer_script.h"
#include "core/ranks/batch_config.h"

using namespace stratex;
using namespace stratex::ranks;
using namespace stratex::exporting;

namespace {

struct ScriptRun {
    int exitCode = -1;
    QString output;
};

QString writeScript(const QTemporaryDir& dir, const std::string& script)
{
    const QString path = dir.filePath(QStringLiteral("trace.sh"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(QByteArray::fromStdString(script));
    return path;
}

ScriptRun runBash(const QStringList& args, const QString& logRoot = {})
{
    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!logRoot.isEmpty())
        env.insert(QStringLiteral("STRATEX_LOG_ROOT"), logRoot);
    bash.setProcessEnvironment(env);
    bash.setProcessChannelMode(QProcess::MergedChannels);
    bash.start(QStringLiteral("bash"), args);
    if (!bash.waitForFinished(60000))
        return {};
    return { bash.exitCode(), QString::fromUtf8(bash.readAll()) };
}

QString readFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("<missing %1>").arg(path);
    return QString::fromUtf8(file.readAll());
}

std::vector<TraceConfigPlan> seedPlans()
{
    return planTracer(parseBatchConfigs("8192 16 8\n4096 16 3\n16 2 2\n"), TracerSettings {});
}

} // namespace

class TestTracerScript : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void templateExpansion_data();
    void templateExpansion();
    void bashAcceptsScript();
    void runsSelectedRanksWithEcho();
    void keepsGoingWhenARankFails();
    void emptyTemplateIsAnError();
};

void TestTracerScript::templateExpansion_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("rank") << "echo {rank}"
                          << "echo ${rank}";
    QTest::newRow("several") << "run --wrank {rank} --ws {world} --pp {pp} --tp {tp} --dp {dp}"
                             << "run --wrank ${rank} --ws ${world} --pp ${pp} --tp ${tp} --dp ${dp}";
    QTest::newRow("unknown-kept") << "echo {nope} {rank}"
                                  << "echo {nope} ${rank}";
    QTest::newRow("shell-expansion-kept") << "echo ${HOME} {rank}"
                                          << "echo ${HOME} ${rank}";
    QTest::newRow("unclosed") << "echo {rank"
                              << "echo {rank";
}

void TestTracerScript::templateExpansion()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(expandTracerTemplate(input.toStdString())), expected);
}

void TestTracerScript::bashAcceptsScript()
{
    QTemporaryDir dir;
    TracerScriptOptions options;
    options.commandTemplate = "python pretrain_gpt.py --fake-wrank {rank} --fake-world-size {world} "
                              "--fake-pp {pp} --fake-tp {tp} --fake-dp {dp} --note 'it''s {model}'";
    const QString path = writeScript(dir, tracerScript(seedPlans(), TracerSettings {}, options));
    const ScriptRun run = runBash({ QStringLiteral("-n"), path });
    QVERIFY2(run.exitCode == 0, qPrintable(run.output));
}

void TestTracerScript::runsSelectedRanksWithEcho()
{
    QTemporaryDir dir;
    TracerScriptOptions options;
    options.commandTemplate = "echo rank={rank} world={world} pp={pp} tp={tp} dp={dp} config={config}";
    const std::vector<TraceConfigPlan> plans = seedPlans();
    const QString path = writeScript(dir, tracerScript(plans, TracerSettings {}, options));
    const QString logRoot = dir.filePath(QStringLiteral("logs"));
    const ScriptRun run = runBash({ path }, logRoot);
    QVERIFY2(run.exitCode == 0, qPrintable(run.output));

    // Config 1: 16 ranks 0, 512, ..., 7680, each in its own log.
    const QDir config1(logRoot + QLatin1Char('/') + QString::fromStdString(plans[0].logDir));
    QCOMPARE(config1.entryList(QDir::Files).size(), 16);
    QCOMPARE(readFile(config1.filePath(QStringLiteral("fake_rank_512.log"))),
        QStringLiteral("rank=512 world=8192 pp=16 tp=8 dp=64 config=1\n"));
    QVERIFY(!config1.exists(QStringLiteral("fake_rank_1.log")));
    // Config 2 is invalid: reported and skipped, config 3 still runs.
    QVERIFY(run.output.contains(QStringLiteral("Skipping configuration 2 (4096 16 3)")));
    const QDir config3(logRoot + QLatin1Char('/') + QString::fromStdString(plans[2].logDir));
    QCOMPARE(config3.entryList(QDir::Files),
        (QStringList { QStringLiteral("fake_rank_0.log"), QStringLiteral("fake_rank_8.log") }));
    QVERIFY(run.output.contains(QStringLiteral("[config 1] rank 512 (2/16)")));
    QVERIFY(run.output.contains(QStringLiteral("Configuration 1 done: 16/16 ranks succeeded, 0 failed")));
    QVERIFY(run.output.contains(QStringLiteral("All configurations done: 18/18 ranks succeeded, 0 failed")));
}

void TestTracerScript::keepsGoingWhenARankFails()
{
    QTemporaryDir dir;
    TracerScriptOptions options;
    // Fails for exactly one rank of config 1.
    options.commandTemplate = "echo tracing {rank}; test {rank} -ne 1024";
    const std::vector<TraceConfigPlan> plans = seedPlans();
    const QString path = writeScript(dir, tracerScript(plans, TracerSettings {}, options));
    const QString logRoot = dir.filePath(QStringLiteral("logs"));
    const ScriptRun run = runBash({ path }, logRoot);
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.output.contains(QStringLiteral("rank 1024 failed with exit status 1")), qPrintable(run.output));
    QVERIFY(run.output.contains(QStringLiteral("Configuration 1 done: 15/16 ranks succeeded, 1 failed")));
    QVERIFY(run.output.contains(QStringLiteral("All configurations done: 17/18 ranks succeeded, 1 failed")));
    // The ranks after the failing one ran too.
    const QDir config1(logRoot + QLatin1Char('/') + QString::fromStdString(plans[0].logDir));
    QCOMPARE(readFile(config1.filePath(QStringLiteral("fake_rank_7680.log"))), QStringLiteral("tracing 7680\n"));
}

void TestTracerScript::emptyTemplateIsAnError()
{
    TracerScriptOptions options;
    options.commandTemplate = "  \n";
    QVERIFY_THROWS_EXCEPTION(Error, tracerScript(seedPlans(), TracerSettings {}, options));
}

QTEST_GUILESS_MAIN(TestTracerScript)
#include "tst_tracer_script.moc"
