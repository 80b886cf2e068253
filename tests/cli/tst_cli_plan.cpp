// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli plan` and `stratex-cli plan-compare`, run as processes: the public JSON and CSV
// contract, the --trace and --plan files, mode selection (flag, STRATEX_FAST_MODE, auto), exit
// codes and error messages.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString costModel()
{
    return fixture(QStringLiteral("dynapipe/gpt_6.7b_cost_model.json"));
}

QStringList planArgs(const QString& command, const QStringList& extra = {})
{
    QStringList args { command, QStringLiteral("--cost-model"), costModel(), QStringLiteral("--synthetic"),
        QStringLiteral("lognormal:5.5,0.8,64:3"), QStringLiteral("--stages"), QStringLiteral("4"),
        QStringLiteral("--layers-per-stage"), QStringLiteral("8"), QStringLiteral("--memory-mb"),
        QStringLiteral("36000") };
    return args + extra;
}

CliResult runWithEnvironment(const QStringList& args, const QString& fastMode)
{
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("STRATEX_FAST_MODE"), fastMode);
    process.setProcessEnvironment(environment);
    process.start(cliPath(), args);
    CliResult result;
    if (!process.waitForFinished(120000))
        return result;
    result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

QJsonDocument readJson(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll());
}

} // namespace

class TestCliPlan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void planJsonContract();
    void planText();
    void planWritesTraceAndPlan();
    void lengthsFile();
    void modeSelection_data();
    void modeSelection();
    void planCompareTableAndCsv();
    void exitCodes_data();
    void exitCodes();
    void hostileLengthFiles_data();
    void hostileLengthFiles();
    void networkOptions();
    void dataParallelEncoderDecoder();
    void planCompareSeedSpread();
};

void TestCliPlan::planJsonContract()
{
    const CliResult r = runCli(planArgs(
        QStringLiteral("plan"), { QStringLiteral("--mode"), QStringLiteral("fast"), QStringLiteral("--json") }));
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith(R"({"feasible":true,"mode":"fast","requested_mode":"fast","planning_time_ms":)"));
    const QJsonObject root = r.json().object();
    QVERIFY(root.value("planning_time_ms").toDouble() > 0);
    QVERIFY(root.value("makespan_ms").toDouble() > 0);
    QVERIFY(root.value("candidates_simulated").toInt() > 0);
    QCOMPARE(root.value("samples").toInt(), 64);
    const QJsonArray peaks = root.value("peak_memory_mb_per_device").toArray();
    QCOMPARE(peaks.size(), 4);
    for (const QJsonValue& peak : peaks)
        QVERIFY(peak.toDouble() <= 36000);
    const QJsonObject group = root.value("groups").toArray().at(0).toObject();
    QCOMPARE(group.value("schedule").toString(), QStringLiteral("wait-free-cyclic"));
    QCOMPARE(group.value("deadlock_free").toBool(), true);
    const QJsonArray mbs = group.value("microbatches").toArray();
    QCOMPARE(mbs.size(), root.value("microbatch_count").toInt());
    int samples = 0;
    for (const QJsonValue& value : mbs) {
        const QJsonObject mb = value.toObject();
        QCOMPARE(mb.value("sample_ids").toArray().size(), mb.value("micro_batch_size").toInt());
        QCOMPARE(mb.value("padded_seqlen").toInt() % 8, 0);
        QCOMPARE(mb.value("recompute_per_device").toArray().size(), 4);
        samples += mb.value("micro_batch_size").toInt();
    }
    QCOMPARE(samples, 64);
}

void TestCliPlan::planText()
{
    const CliResult r
        = runCli(planArgs(QStringLiteral("plan"), { QStringLiteral("--mode"), QStringLiteral("normal") }));
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("Plan (normal mode)\n"));
    QVERIFY(r.out.contains("makespan: "));
    QVERIFY(r.out.contains("instructions deadlock-free"));
}

void TestCliPlan::planWritesTraceAndPlan()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("trace.json"));
    const QString plan = dir.filePath(QStringLiteral("plan.json"));
    const CliResult r = runCli(planArgs(QStringLiteral("plan"),
        { QStringLiteral("--mode"), QStringLiteral("fast"), QStringLiteral("--trace"), trace, QStringLiteral("--plan"),
            plan, QStringLiteral("--json") }));
    QCOMPARE(r.exitCode, 0);
    const QJsonObject traceRoot = readJson(trace).object();
    const QJsonArray events = traceRoot.value("traceEvents").toArray();
    QVERIFY(events.size() > 100);
    QSet<QString> phases;
    QSet<int> pids;
    for (const QJsonValue& event : events) {
        phases.insert(event.toObject().value("ph").toString());
        pids.insert(event.toObject().value("pid").toInt());
    }
    QVERIFY(phases.contains(QStringLiteral("X")));
    QVERIFY(phases.contains(QStringLiteral("M")));
    QVERIFY(phases.contains(QStringLiteral("C")));
    QCOMPARE(pids.size(), 4); // one process per device
    const QJsonObject planRoot = readJson(plan).object();
    QCOMPARE(planRoot.value("makespan_ms").toDouble(), r.json().object().value("makespan_ms").toDouble());
    const QJsonObject group = planRoot.value("groups").toArray().at(0).toObject();
    QCOMPARE(group.value("device_assignment").toArray().size(), 32);
    const QJsonArray ranks = group.value("instructions").toObject().value("ranks").toArray();
    QCOMPARE(ranks.size(), 4);
    QSet<QString> ops;
    for (const QJsonValue& rank : ranks) {
        for (const QJsonValue& instruction : rank.toObject().value("instructions").toArray())
            ops.insert(instruction.toObject().value("op").toString());
    }
    for (const char* op : { "ForwardPass", "BackwardPass", "LoadInput", "SendActivationStart", "RecvActivationFinish",
             "SendGradStart", "RecvGradFinish", "FreeBuffer" })
        QVERIFY2(ops.contains(QString::fromLatin1(op)), op);
}

void TestCliPlan::lengthsFile()
{
    QTemporaryDir dir;
    const QString lengths = dir.filePath(QStringLiteral("lengths.txt"));
    QFile file(lengths);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("# sample lengths\n1428\n30\n512\n512\n100\n2000\n64\n");
    file.close();
    const CliResult r
        = runCli({ QStringLiteral("plan"), QStringLiteral("--cost-model"), costModel(), QStringLiteral("--lengths"),
            lengths, QStringLiteral("--stages"), QStringLiteral("2"), QStringLiteral("--layers-per-stage"),
            QStringLiteral("16"), QStringLiteral("--memory-mb"), QStringLiteral("60000"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject root = r.json().object();
    QCOMPARE(root.value("samples").toInt(), 7);
    QCOMPARE(root.value("mode").toString(), QStringLiteral("normal")); // auto: few micro-batches
    // The longest sample (id 5, 2000 tokens) is alone in the first micro-batch.
    const QJsonArray mbs = root.value("groups").toArray().at(0).toObject().value("microbatches").toArray();
    bool found = false;
    for (const QJsonValue& mb : mbs) {
        if (mb.toObject().value("id").toInt() == 0) {
            QCOMPARE(mb.toObject().value("sample_ids").toArray().at(0).toInt(), 5);
            QCOMPARE(mb.toObject().value("padded_seqlen").toInt(), 2000);
            found = true;
        }
    }
    QVERIFY(found);
}

void TestCliPlan::modeSelection_data()
{
    QTest::addColumn<QString>("environment");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("requested");
    QTest::newRow("env-fast") << QStringLiteral("1") << QStringList() << QStringLiteral("fast")
                              << QStringLiteral("fast");
    QTest::newRow("env-normal") << QStringLiteral("0") << QStringList() << QStringLiteral("normal")
                                << QStringLiteral("normal");
    QTest::newRow("flag-beats-env") << QStringLiteral("1")
                                    << QStringList { QStringLiteral("--mode"), QStringLiteral("normal") }
                                    << QStringLiteral("normal") << QStringLiteral("normal");
    // Auto: fast above 134 micro-batches ("" = derive from the count; docs/dynapipe-planner.md §11).
    QTest::newRow("auto-default") << QString() << QStringList() << QString() << QStringLiteral("auto");
    QTest::newRow("auto-large-batch") << QStringLiteral(
        "auto") << QStringList { QStringLiteral("--synthetic"), QStringLiteral("lognormal:5.5,0.8,256:3") }
                                      << QString() << QStringLiteral("auto");
}

void TestCliPlan::modeSelection()
{
    QFETCH(QString, environment);
    QFETCH(QStringList, extra);
    QFETCH(QString, mode);
    QFETCH(QString, requested);
    const CliResult r = runWithEnvironment(
        planArgs(QStringLiteral("plan"), extra + QStringList { QStringLiteral("--json") }), environment);
    QCOMPARE(r.exitCode, 0);
    const QJsonObject root = r.json().object();
    if (mode.isEmpty())
        mode = root.value("microbatch_count").toInt() > 134 ? QStringLiteral("fast") : QStringLiteral("normal");
    QCOMPARE(root.value("mode").toString(), mode);
    QCOMPARE(root.value("requested_mode").toString(), requested);
}

void TestCliPlan::planCompareTableAndCsv()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("compare.csv"));
    const CliResult r = runCli(planArgs(QStringLiteral("plan-compare"),
        { QStringLiteral("--global-batches"), QStringLiteral("16,32,64"), QStringLiteral("--csv"), csv }));
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("batch  micro-batches  normal ms  fast ms  speedup"));
    // Header, three rows, how the times were taken and what `auto` makes of the rows
    // (docs/dynapipe-planner.md §11).
    QCOMPARE(r.out.count('\n'), 6);
    QVERIFY2(r.out.contains("quality loss %  recommended\n"), r.out.constData());
    QVERIFY2(r.out.contains("\nplanning times: "), r.out.constData());
    QVERIFY2(r.out.contains("\nauto: fast above "), r.out.constData());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QCOMPARE(lines[0],
        QByteArray("batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,"
                   "fast_makespan_ms,quality_loss_percent"));
    for (int i = 1; i < 4; ++i) {
        const QList<QByteArray> cells = lines[i].split(',');
        QCOMPARE(cells.size(), 8);
        const int batches[] = { 16, 32, 64 };
        QCOMPARE(cells[0].toInt(), batches[i - 1]);
        const double loss = (cells[6].toDouble() - cells[5].toDouble()) / cells[5].toDouble() * 100;
        QVERIFY(std::abs(loss - cells[7].toDouble()) < 0.01);
    }
    const CliResult json = runCli(planArgs(QStringLiteral("plan-compare"),
        { QStringLiteral("--global-batches"), QStringLiteral("8"), QStringLiteral("--json") }));
    QCOMPARE(json.exitCode, 0);
    const QJsonObject row = json.json().object().value("rows").toArray().at(0).toObject();
    QCOMPARE(row.value("batch").toInt(), 8);
    QVERIFY(row.contains("quality_loss_percent") && row.contains("speedup"));
    QVERIFY(row.value("recommended_mode").isString());
    QVERIFY(json.json().object().value("auto_fast_above_microbatches").isDouble());
}

void TestCliPlan::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString model = costModel();
    QTest::newRow("missing-stages") << QStringList { "plan", "--cost-model", model, "--synthetic", "lognormal:5,1,8",
        "--layers-per-stage", "8", "--memory-mb", "36000" }
                                    << 2 << QStringLiteral("--stages is required");
    QTest::newRow("both-length-sources") << planArgs(QStringLiteral("plan"), { "--lengths", "x.txt" }) << 2
                                         << QStringLiteral("exactly one of --lengths and --synthetic");
    QTest::newRow("bad-mode") << planArgs(QStringLiteral("plan"), { "--mode", "quick" }) << 2
                              << QStringLiteral("--mode: expected one of normal, fast, auto, found \"quick\"");
    QTest::newRow("missing-cost-model-flag") << QStringList { "plan", "--synthetic", "lognormal:5,1,8", "--stages", "2",
        "--layers-per-stage", "2", "--memory-mb", "36000" }
                                             << 2 << QStringLiteral("--cost-model is required");
    QTest::newRow("zero-memory") << planArgs(QStringLiteral("plan"), { "--memory-mb", "0" }) << 2
                                 << QStringLiteral("--memory-mb: expected a number from 1");
    QTest::newRow("bad-seed") << planArgs(QStringLiteral("plan-compare"), { "--global-batches", "8", "--seed", "x" })
                              << 2 << QStringLiteral("--seed: expected an integer");
    QTest::newRow("zero-stages") << planArgs(QStringLiteral("plan"), { "--stages", "0" }) << 2
                                 << QStringLiteral("--stages");
    QTest::newRow("bad-batches") << planArgs(QStringLiteral("plan-compare"), { "--global-batches", "8,x" }) << 2
                                 << QStringLiteral("--global-batches");
    QTest::newRow("no-batches") << planArgs(QStringLiteral("plan-compare")) << 2
                                << QStringLiteral("--global-batches is required");
    QTest::newRow("batch-too-large") << planArgs(QStringLiteral("plan-compare"), { "--global-batches", "65" }) << 1
                                     << QStringLiteral("global batch 65");
    QTest::newRow("missing-cost-model") << QStringList { "plan", "--cost-model", "/nonexistent.json", "--synthetic",
        "lognormal:5,1,8", "--stages", "2", "--layers-per-stage", "2", "--memory-mb", "36000" }
                                        << 1 << QStringLiteral("/nonexistent.json");
    QTest::newRow("bad-synthetic") << QStringList { "plan", "--cost-model", model, "--synthetic", "lognormal:5,1",
        "--stages", "2", "--layers-per-stage", "2", "--memory-mb", "36000" }
                                   << 1 << QStringLiteral("lognormal:MEAN");
    QTest::newRow("unsupported-tp") << planArgs(QStringLiteral("plan"), { "--tp", "16" }) << 1
                                    << QStringLiteral("tp 16");
    QTest::newRow("negative-bandwidth") << planArgs(QStringLiteral("plan"), { "--inter-node-gbps", "-5" }) << 2
                                        << QStringLiteral("--inter-node-gbps");
    QTest::newRow("bad-seeds") << planArgs(QStringLiteral("plan-compare"), { "--global-batches", "8", "--seeds", "0" })
                               << 2 << QStringLiteral("--seeds expects an integer from 1");
    QTest::newRow("no-plan-fits") << planArgs(QStringLiteral("plan"), { "--memory-mb", "1000", "--json" }) << 1
                                  << QStringLiteral("stratex-cli plan: no feasible plan: ");
}

void TestCliPlan::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    if (!message.isEmpty())
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
}

// Length files with lines that hold text but no length: an input error naming file and line.
void TestCliPlan::hostileLengthFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("message"); // after "<file>: "
    QTest::newRow("comma-only") << QByteArray(",\n")
                                << "line 1: expected one length, or an encoder and a decoder length, found \",\"";
    QTest::newRow("separators-after-lengths")
        << QByteArray("512\n1024 256\n , \t,\n") << "line 3: expected one length, or an encoder and a decoder length";
    QTest::newRow("separators-before-comment") << QByteArray("512\n,,# none\n") << "line 2: expected one length";
}

void TestCliPlan::hostileLengthFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath("lengths.txt");
    QVERIFY(stratex::test::writeTestFile(path, content));
    const CliResult r = runCli({ "plan", "--cost-model", costModel(), "--lengths", path, "--stages", "4",
        "--layers-per-stage", "6", "--memory-mb", "40000" });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(path + ": " + message), r.err.constData());
}

void TestCliPlan::networkOptions()
{
    // Links make the activation transfers take time: the same plan's makespan grows, the text
    // says what was modelled, the JSON says so too.
    const QStringList pinned { QStringLiteral("--mode"), QStringLiteral("fast"), QStringLiteral("--json") };
    const CliResult free = runCli(planArgs(QStringLiteral("plan"), pinned));
    const CliResult linked = runCli(planArgs(QStringLiteral("plan"),
        pinned
            + QStringList { QStringLiteral("--gpus-per-node"), QStringLiteral("2"), QStringLiteral("--inter-node-gbps"),
                QStringLiteral("25"), QStringLiteral("--inter-node-latency-us"), QStringLiteral("20"),
                QStringLiteral("--intra-node-gbps"), QStringLiteral("2400") }));
    QCOMPARE(free.exitCode, 0);
    QCOMPARE(linked.exitCode, 0);
    const QJsonObject a = free.json().object();
    const QJsonObject b = linked.json().object();
    QCOMPARE(a.value("communication_modelled").toBool(), false);
    QCOMPARE(b.value("communication_modelled").toBool(), true);
    QCOMPARE(b.value("hidden_size").toInt(), 4096);
    QVERIFY2(b.value("makespan_ms").toDouble() > a.value("makespan_ms").toDouble(), linked.out.constData());
    const CliResult text = runCli(planArgs(QStringLiteral("plan"),
        { QStringLiteral("--mode"), QStringLiteral("fast"), QStringLiteral("--intra-node-gbps"), QStringLiteral("100"),
            QStringLiteral("--hidden-size"), QStringLiteral("2048") }));
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("network: activations of hidden 2048 (2 bytes), intra-node 100 Gbit/s"),
        text.out.constData());
    QVERIFY(runCli(planArgs(QStringLiteral("plan"), { QStringLiteral("--mode"), QStringLiteral("fast") }))
                .out.contains("network: transfers between stages are free"));
}

void TestCliPlan::dataParallelEncoderDecoder()
{
    // T5 (encoder-decoder, two cost-model files) over two data-parallel groups, end to end.
    const CliResult r = runCli({ QStringLiteral("plan"), QStringLiteral("--cost-model"),
        fixture(QStringLiteral("dynapipe/t5_11b_cost_model_tp1_none.json")), QStringLiteral("--cost-model"),
        fixture(QStringLiteral("dynapipe/t5_11b_cost_model_tp1_full.json")), QStringLiteral("--synthetic"),
        QStringLiteral("lognormal:5,0.6,64:5"), QStringLiteral("--stages"), QStringLiteral("4"),
        QStringLiteral("--layers-per-stage"), QStringLiteral("6"), QStringLiteral("--memory-mb"),
        QStringLiteral("36000"), QStringLiteral("--dp"), QStringLiteral("2"), QStringLiteral("--mode"),
        QStringLiteral("normal"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject root = r.json().object();
    QCOMPARE(root.value("feasible").toBool(), true);
    const QJsonArray groups = root.value("groups").toArray();
    QCOMPARE(groups.size(), 2);
    int microbatches = 0;
    for (const QJsonValue& value : groups) {
        const QJsonObject group = value.toObject();
        QCOMPARE(group.value("deadlock_free").toBool(), true);
        for (const QJsonValue& mb : group.value("microbatches").toArray()) {
            QVERIFY(mb.toObject().value("padded_decoder_seqlen").toInt() > 0);
            ++microbatches;
        }
    }
    QCOMPARE(microbatches, root.value("microbatch_count").toInt());
}

void TestCliPlan::planCompareSeedSpread()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath(QStringLiteral("seeds.csv"));
    const CliResult r = runCli(planArgs(QStringLiteral("plan-compare"),
        { QStringLiteral("--global-batches"), QStringLiteral("16,32"), QStringLiteral("--seeds"), QStringLiteral("3"),
            QStringLiteral("--csv"), csv }));
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("batch 16 over 3 seeds: normal "), r.out.constData());
    QVERIFY(r.out.contains("batch 32 over 3 seeds: normal "));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].endsWith(",seeds,normal_makespan_min_ms,normal_makespan_median_ms,normal_makespan_max_ms,"
                              "fast_makespan_min_ms,fast_makespan_median_ms,fast_makespan_max_ms"));
    const QList<QByteArray> cells = lines[1].split(',');
    QCOMPARE(cells.size(), 15);
    QCOMPARE(cells[8].toInt(), 3);
    QVERIFY(cells[9].toDouble() <= cells[11].toDouble()); // normal min <= max
    QVERIFY(cells[9].toDouble() <= cells[12].toDouble()); // best normal <= best fast
}

QTEST_GUILESS_MAIN(TestCliPlan)
#include "tst_cli_plan.moc"
