// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli ranks` and `stratex-cli trace-ranks`, run as processes: the public JSON contract,
// exit codes and error messages.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {
QString compact(const QJsonValue& value)
{
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    return value.toVariant().toString();
}
} // namespace

class TestCliRanks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ranksJsonContract();
    void ranksRankQuery();
    void ranksText();
    void exitCodes_data();
    void exitCodes();
    void hostileBatchFiles_data();
    void hostileBatchFiles();
    void traceRanksSingle();
    void traceRanksBatch();
    void traceRanksBatchFileAndScript();
    void traceRanksMoe();
    void largeWorldJson();
};

void TestCliRanks::ranksJsonContract()
{
    const CliResult r = runCli({ "ranks", "--world", "16", "--tp", "2", "--pp", "4", "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject root = r.json().object();
    QCOMPARE(root.value("world").toInt(), 16);
    QCOMPARE(root.value("order").toString(), QStringLiteral("tp-cp-ep-dp-pp"));
    QCOMPARE(compact(root.value("sizes")), QStringLiteral(R"({"cp":1,"dp":2,"edp":2,"ep":1,"etp":2,"pp":4,"tp":2})"));
    const QJsonObject groups = root.value("groups").toObject();
    const QStringList kinds { "tp", "cp", "dp", "pp", "dp-cp", "tp-pp", "tp-dp", "tp-dp-cp", "tp-cp", "embedding",
        "position-embedding", "expert-tp", "expert-ep", "expert-dp", "expert-tp-ep", "expert-tp-ep-pp" };
    QCOMPARE(groups.keys().size(), kinds.size());
    for (const QString& kind : kinds)
        QVERIFY2(groups.contains(kind), qPrintable(kind));
    QCOMPARE(compact(groups.value("tp")), QStringLiteral("[[0,1],[2,3],[4,5],[6,7],[8,9],[10,11],[12,13],[14,15]]"));
    QCOMPARE(compact(groups.value("pp")), QStringLiteral("[[0,4,8,12],[1,5,9,13],[2,6,10,14],[3,7,11,15]]"));
    QCOMPARE(compact(groups.value("dp")), QStringLiteral("[[0,2],[1,3],[4,6],[5,7],[8,10],[9,11],[12,14],[13,15]]"));
    QCOMPARE(compact(groups.value("embedding")), QStringLiteral("[[0,12],[1,13],[2,14],[3,15]]"));
    // Key order of the contract: world, order, sizes, groups.
    QVERIFY(r.out.startsWith(
        R"({"world":16,"order":"tp-cp-ep-dp-pp","sizes":{"tp":2,"cp":1,"ep":1,"dp":2,"pp":4,"etp":2,"edp":2},"groups":{"tp":)"));
}

void TestCliRanks::ranksRankQuery()
{
    const CliResult r = runCli({ "ranks", "--world", "16", "--tp", "2", "--pp", "4", "--rank", "5", "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject root = r.json().object();
    QCOMPARE(root.value("rank").toInt(), 5);
    QCOMPARE(root.value("node").toInt(), 0);
    QCOMPARE(
        compact(root.value("coordinates")), QStringLiteral(R"({"cp":0,"dp":0,"edp":0,"ep":0,"etp":1,"pp":1,"tp":1})"));
    const QJsonObject groups = root.value("groups").toObject();
    QCOMPARE(compact(groups.value("tp")), QStringLiteral("[4,5]"));
    QCOMPARE(compact(groups.value("pp")), QStringLiteral("[1,5,9,13]"));
    QCOMPARE(compact(groups.value("dp")), QStringLiteral("[5,7]"));
    QVERIFY(groups.value("embedding").isNull()); // a middle stage is in no embedding group
    const CliResult node
        = runCli({ "ranks", "--world", "32", "--tp", "8", "--rank", "17", "--gpus-per-node", "8", "--json" });
    QCOMPARE(node.json().object().value("node").toInt(), 2);
}

void TestCliRanks::ranksText()
{
    const CliResult r = runCli({ "ranks", "--world", "16", "--tp", "8", "--pp", "2" });
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    QVERIFY(text.contains(QStringLiteral("Sizes: tp 8, cp 1, ep 1, dp 1, pp 2, etp 8, edp 1")));
    QVERIFY(text.contains(QStringLiteral("pp (8 groups of 2): [0,8] [1,9]")));
    QVERIFY(text.contains(QStringLiteral("warning: DP size is 1")));
}

void TestCliRanks::exitCodes_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("no-command") << QStringList {} << 2 << "";
    QTest::newRow("unknown-command") << QStringList { "rankz" } << 2 << "unknown command \"rankz\"";
    QTest::newRow("unknown-option") << QStringList { "ranks", "--world", "8", "--bogus" } << 2 << "bogus";
    QTest::newRow("missing-world") << QStringList { "ranks", "--tp", "2" } << 2 << "--world is required";
    QTest::newRow("not-a-number") << QStringList { "ranks", "--world", "eight" } << 2 << "--world expects an integer";
    QTest::newRow("zero-tp") << QStringList { "ranks", "--world", "8", "--tp", "0" } << 2 << "--tp must be at least 1";
    QTest::newRow("indivisible") << QStringList { "ranks", "--world", "10", "--tp", "4", "--json" } << 1
                                 << "world size 10 is not divisible by tp*pp*cp = 4*1*1 = 4";
    QTest::newRow("order") << QStringList { "ranks", "--world", "16", "--tp", "2", "--pp", "2", "--ep", "2", "--order",
        "tp-cp-ep-pp-dp" } << 1
                           << "does not end with pp";
    QTest::newRow("rank-outside") << QStringList { "ranks", "--world", "8", "--rank", "8" } << 1 << "outside the world";
    QTest::newRow("trace-mixed-forms") << QStringList { "trace-ranks", "--world", "8", "--batch", "8 2 2" } << 2
                                       << "not both";
    QTest::newRow("trace-script-without-command")
        << QStringList { "trace-ranks", "--world", "8", "--emit-script", "x.sh" } << 2 << "go together";
    QTest::newRow("trace-invalid-single")
        << QStringList { "trace-ranks", "--world", "12", "--pp", "8", "--tp", "1" } << 1 << "not divisible";
    QTest::newRow("trace-missing-file") << QStringList { "trace-ranks", "--batch-file", "/nonexistent/batch.txt" } << 1
                                        << "/nonexistent/batch.txt: cannot open file";
    // tp*pp*cp = 2^66 wraps to 0 in 64 bits: the world was taken modulo 0.
    QTest::newRow("sizes-overflow") << QStringList { "ranks", "--world", "8", "--tp", "4194304", "--pp", "4194304",
        "--cp", "1048576" } << 1 << "tp*pp*cp = 4194304*4194304*1048576, which exceeds 64-bit integers";
    QTest::newRow("trace-sizes-overflow") << QStringList { "trace-ranks", "--world", "8", "--tp", "4194304", "--pp",
        "4194304", "--cp", "1048576", "--json" }
                                          << 1 << "tp*pp*cp = 4194304*4194304*1048576, which exceeds 64-bit integers";
    QTest::newRow("empty-order") << QStringList { "ranks", "--world", "8", "--order", "" } << 2
                                 << "--order must not be empty";
    QTest::newRow("trace-empty-order") << QStringList { "trace-ranks", "--world", "8", "--order", " " } << 2
                                       << "--order must not be empty";
    QTest::newRow("help") << QStringList { "ranks", "--help" } << 0 << "";
}

// Batch files whose bytes would break the JSON output or the script: refused as a whole, naming
// the file and line. "{file}" in args and message stands for the batch file.
void TestCliRanks::hostileBatchFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QStringList json { "trace-ranks", "--batch-file", "{file}", "--json" };
    QTest::newRow("not-utf8") << QByteArray("\x80 1 1\n") << json << 1
                              << "{file}: line 1: expected printable UTF-8 text (\"WORLD_SIZE PP TP\" per line), found "
                                 "byte 0x80 (not UTF-8)";
    QTest::newRow("truncated-sequence") << QByteArray("8 2 2\n8 2 2 # caf\xc3") << json << 1
                                        << "{file}: line 2: expected printable UTF-8 text";
    QTest::newRow("overlong-slash") << QByteArray("8 2 2 \xc0\xaf\n") << json << 1 << "found byte 0xC0 (not UTF-8)";
    QTest::newRow("control-character") << QByteArray("8 2 2\n\x01 1 1\n") << json << 1
                                       << "{file}: line 2: expected printable UTF-8 text (\"WORLD_SIZE PP TP\" per "
                                          "line), found control character 0x01";
    QTest::newRow("text-output-too") << QByteArray("8 2 2\n\x80\n")
                                     << QStringList { "trace-ranks", "--batch-file", "{file}" } << 1
                                     << "{file}: line 2";
    QTest::newRow("utf8-comment-ok") << QByteArray("8 2 2 # caf\xc3\xa9\r\n\t16 2 2\n") << json << 0 << "";
}

void TestCliRanks::hostileBatchFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath("batch.txt");
    QVERIFY(stratex::test::writeTestFile(path, content));
    args.replaceInStrings("{file}", path);
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(QString(message).replace("{file}", path)), r.err.constData());
    if (exitCode != 0)
        QVERIFY(r.out.isEmpty());
}

void TestCliRanks::exitCodes()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrFragment);
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrFragment), r.err.constData());
}

void TestCliRanks::traceRanksSingle()
{
    const CliResult r = runCli({ "trace-ranks", "--world", "8192", "--pp", "16", "--tp", "8", "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject config = r.json().object().value("configs").toArray().at(0).toObject();
    QCOMPARE(config.value("index").toInt(), 1);
    QCOMPARE(config.value("world").toInt(), 8192);
    QCOMPARE(config.value("pp").toInt(), 16);
    QCOMPARE(config.value("tp").toInt(), 8);
    QCOMPARE(config.value("dp").toInt(), 64);
    QCOMPARE(config.value("valid").toBool(), true);
    QCOMPARE(compact(config.value("ranks")),
        QStringLiteral("[0,512,1024,1536,2048,2560,3072,3584,4096,4608,5120,5632,6144,6656,7168,7680]"));
    QCOMPARE(config.value("original_ranks").toInt(), 8192);
    QCOMPARE(config.value("selected_ranks").toInt(), 16);
    QCOMPARE(config.value("saving_percent").toDouble(), 99.8);
    QCOMPARE(config.value("log_dir").toString(),
        QStringLiteral("SIM_GPT_485_Config1_WS8192_PP16_TP8_DP64_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH64"));
}

void TestCliRanks::traceRanksBatch()
{
    const CliResult r = runCli({ "trace-ranks", "--batch", "8192 16 8", "--batch", "4096 16 3", "--batch", "4096 16 4",
        "--model", "gpt3", "--micro-batches", "4", "--json" });
    QCOMPARE(r.exitCode, 0); // an invalid config is reported and skipped
    const QJsonArray configs = r.json().object().value("configs").toArray();
    QCOMPARE(configs.size(), 3);
    QCOMPARE(configs.at(1).toObject().value("valid").toBool(), false);
    QVERIFY(configs.at(1).toObject().value("error").toString().contains(QStringLiteral("not divisible")));
    QCOMPARE(configs.at(2).toObject().value("log_dir").toString(),
        QStringLiteral("SIM_GPT_gpt3_Config3_WS4096_PP16_TP4_DP64_nMICROB4_MICROB_SIZE1_GLOBAL_BATCH256"));
    QVERIFY(r.err.contains("config 2 skipped"));

    const CliResult empty = runCli({ "trace-ranks", "--json" });
    QCOMPARE(empty.exitCode, 0);
    const QJsonObject fallback = empty.json().object().value("configs").toArray().at(0).toObject();
    QCOMPARE(fallback.value("world").toInt(), 8192);
    QCOMPARE(compact(fallback.value("ranks")), QStringLiteral("[0,4096]"));
}

void TestCliRanks::traceRanksBatchFileAndScript()
{
    QTemporaryDir dir;
    const QString batchPath = dir.filePath("batch.txt");
    {
        QFile file(batchPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("# world pp tp\n16 2 2\n\n16 3 2  # not divisible\n32 4 2\n");
    }
    const QString scriptPath = dir.filePath("trace.sh");
    const CliResult r = runCli({ "trace-ranks", "--batch-file", batchPath, "--emit-script", scriptPath, "--command",
        "echo traced {rank} of {world}", "--json" });
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json().object().value("configs").toArray().size(), 3);
    QVERIFY(QFileInfo(scriptPath).isExecutable());

    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("STRATEX_LOG_ROOT", dir.filePath("logs"));
    bash.setProcessEnvironment(env);
    bash.start("bash", { scriptPath });
    QVERIFY(bash.waitForFinished(60000));
    QCOMPARE(bash.exitCode(), 0);
    QFile log(
        dir.filePath("logs/SIM_GPT_485_Config3_WS32_PP4_TP2_DP4_nMICROB1_MICROB_SIZE1_GLOBAL_BATCH4/fake_rank_24.log"));
    QVERIFY(log.open(QIODevice::ReadOnly));
    QCOMPARE(log.readAll(), QByteArray("traced 24 of 32\n"));

    // Nothing valid: exit 1, and no script written.
    const QString none = dir.filePath("none.sh");
    const CliResult bad = runCli({ "trace-ranks", "--batch", "7 2 2", "--emit-script", none, "--command", "true" });
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(!QFile::exists(none));
}

void TestCliRanks::traceRanksMoe()
{
    const CliResult r
        = runCli({ "trace-ranks", "--world", "64", "--pp", "2", "--tp", "2", "--ep", "4", "--moe", "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject config = r.json().object().value("configs").toArray().at(0).toObject();
    QCOMPARE(compact(config.value("ranks")), QStringLiteral("[0,2,4,6,32,34,36,38]"));
    QCOMPARE(config.value("selected_ranks").toInt(), 8);
}

void TestCliRanks::largeWorldJson()
{
    const CliResult r
        = runCli({ "ranks", "--world", "131072", "--tp", "8", "--pp", "16", "--cp", "2", "--ep", "8", "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject groups = r.json().object().value("groups").toObject();
    QCOMPARE(groups.value("tp").toArray().size(), 131072 / 8);
    QCOMPARE(groups.value("pp").toArray().at(1).toArray().at(1).toInt(), 1 + 131072 / 16);
}

QTEST_GUILESS_MAIN(TestCliRanks)
#include "tst_cli_ranks.moc"
