// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli simulate`, run as a process: the public JSON contract against DynaPipe's ground
// truth (the fixture itself is a valid cases file), optional case fields, the Chrome trace,
// exit codes and error messages.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString groundTruthPath()
{
    return fixture(QStringLiteral("dynapipe/schedule_ground_truth.json"));
}

const char* kUniform
    = R"({"fw_us_per_layer":1000,"bw_us_per_layer":2000,"stored_mb_per_layer":100,"peak_mb_per_layer":200})";

QString writeCases(const QTemporaryDir& dir, const QString& name, const QByteArray& json)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(json);
    return path;
}

QByteArray microbatches(int count, const char* mb = kUniform)
{
    QByteArray list;
    for (int i = 0; i < count; ++i)
        list += (i ? "," : "") + QByteArray(mb);
    return "[" + list + "]";
}

QByteArray oneCase(const QByteArray& schedule, const QByteArray& assignment, int m, const QByteArray& extra = {},
    const char* mb = kUniform)
{
    return R"({"schedule":")" + schedule + R"(","device_assignment":)" + assignment + R"(,"microbatches":)"
        + microbatches(m, mb) + extra + "}";
}

} // namespace

class TestCliSimulate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void groundTruthContract();
    void optionalFields();
    void infeasibleCase();
    void textOutput();
    void chromeTrace();
    void errors_data();
    void errors();
};

void TestCliSimulate::groundTruthContract()
{
    const CliResult r = runCli({ "simulate", "--cases", groundTruthPath(), "--json" });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    QVERIFY(r.out.startsWith(R"({"cases":[{"makespan_us":21000.0,"peak_memory_mb_per_device":[300.0,200.0]},)"));
    QFile file(groundTruthPath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray expected = QJsonDocument::fromJson(file.readAll()).object().value("cases").toArray();
    const QJsonArray got = r.json().object().value("cases").toArray();
    QCOMPARE(got.size(), expected.size());
    QCOMPARE(got.size(), 20);
    for (int i = 0; i < got.size(); ++i) {
        const QJsonObject g = got.at(i).toObject();
        const QJsonObject e = expected.at(i).toObject();
        QCOMPARE(g.keys(), QStringList({ "makespan_us", "peak_memory_mb_per_device" }));
        QCOMPARE(g.value("makespan_us").toDouble(), e.value("makespan_us").toDouble());
        const QJsonArray gp = g.value("peak_memory_mb_per_device").toArray();
        const QJsonArray ep = e.value("peak_memory_mb_per_device").toArray();
        QCOMPARE(gp.size(), ep.size());
        for (int d = 0; d < gp.size(); ++d)
            QVERIFY(qAbs(gp.at(d).toDouble() - ep.at(d).toDouble()) < 1e-6);
    }
}

void TestCliSimulate::optionalFields()
{
    QTemporaryDir dir;
    const char* zb
        = R"({"fw_us_per_layer":1000,"bw_us_per_layer":2000,"w_us_per_layer":1000,"stored_mb_per_layer":100,"peak_mb_per_layer":100,"w_stored_mb_per_layer":40})";
    const QByteArray json = "{\"cases\":[" + oneCase("wait-free-cyclic", "[0,1,2,3]", 8, R"(,"memory_limit_mb":400)")
        + "," + oneCase("ZB-H1", "[0,1,2,3]", 8, {}, zb) + "," + oneCase("GPipe", "[0,0,1,1]", 4) + ","
        + oneCase("interleaved-1F1B", "[0,1,2,3,0,1,2,3]", 12) + ","
        + oneCase("cyclic", "[0,1,2,3]", 8, R"(,"memory_limit_mb":300)") + "]}";
    const CliResult r = runCli({ "simulate", "--cases", writeCases(dir, "c.json", json), "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonArray cases = r.json().object().value("cases").toArray();
    QCOMPARE(cases.size(), 5);
    // The memory-limited wait-free-cyclic row of the ground truth: 400 MB -> 45 ms.
    QCOMPARE(cases.at(0).toObject().value("makespan_us").toDouble(), 45000.0);
    QCOMPARE(cases.at(0).toObject().value("peak_memory_mb_per_device").toArray().at(0).toDouble(), 400.0);
    // ZB-H1: bubble (p-1)(T_F + T_B - T_W) on top of m(T_F + T_B + T_W); memory (p-s)M_B + s M_W.
    QCOMPARE(cases.at(1).toObject().value("makespan_us").toDouble(), 8 * 3000.0 + 3 * (1000.0 + 1000.0 - 1000.0));
    QCOMPARE(QJsonDocument(cases.at(1).toObject().value("peak_memory_mb_per_device").toArray())
                 .toJson(QJsonDocument::Compact),
        QByteArray("[400,340,280,220]"));
    // GPipe, 2 layers merged per device: (m+p-1)(tf+tb) = 5 * 6000; all 4 in flight, 2 layers each.
    QCOMPARE(cases.at(2).toObject().value("makespan_us").toDouble(), 30000.0);
    QCOMPARE(
        cases.at(2).toObject().value("peak_memory_mb_per_device").toArray().at(0).toDouble(), 3 * 200.0 + 100 + 200);
    // m(tf+tb) + (p-1)(tf+tb)/v per the ground truth's interleaved rows.
    QCOMPARE(cases.at(3).toObject().value("makespan_us").toDouble(), 12 * 6000.0 + 3 * 3000.0);
    QVERIFY(cases.at(4).toObject().value("makespan_us").toDouble() > 33000.0);
}

void TestCliSimulate::infeasibleCase()
{
    QTemporaryDir dir;
    const QByteArray json = "{\"cases\":[" + oneCase("cyclic", "[0,1]", 2, R"(,"memory_limit_mb":150)") + "]}";
    const CliResult r = runCli({ "simulate", "--cases", writeCases(dir, "c.json", json), "--json" });
    QCOMPARE(r.exitCode, 0);
    const QJsonObject c = r.json().object().value("cases").toArray().at(0).toObject();
    QVERIFY(c.value("makespan_us").isNull());
    QCOMPARE(c.value("feasible").toBool(true), false);
    QVERIFY(c.value("reason").toString().contains("150"));
}

void TestCliSimulate::textOutput()
{
    const CliResult r = runCli({ "simulate", "--cases", groundTruthPath() });
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    QVERIFY(out.startsWith(
        "case 0: 1F1B on [0,1], 6 micro-batches (uniform linear p=2 m=6, 1 layer/device, no comm)\n"
        "  makespan: 21000 us\n  peak memory (MB) per device: 300 200\n  bubble % per device: 14.3 14.3\n"));
    QVERIFY(out.contains("case 19: fifo on [0,1,2,3], 8 micro-batches"));
    QVERIFY(out.contains("makespan: 34500 us"));
}

void TestCliSimulate::chromeTrace()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath("trace.json");
    const CliResult r
        = runCli({ "simulate", "--cases", groundTruthPath(), "--json", "--trace", trace, "--trace-case", "17" });
    QCOMPARE(r.exitCode, 0);
    QFile file(trace);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonArray events = QJsonDocument::fromJson(file.readAll()).object().value("traceEvents").toArray();
    int slices = 0;
    QStringList processes;
    for (const QJsonValue& value : events) {
        const QJsonObject event = value.toObject();
        if (event.value("ph").toString() == "X")
            ++slices;
        if (event.value("ph").toString() == "M" && event.value("name").toString() == "process_name")
            processes << event.value("args").toObject().value("name").toString();
    }
    QCOMPARE(processes,
        QStringList({ "case 17 wait-free-cyclic device 00", "case 17 wait-free-cyclic device 01",
            "case 17 wait-free-cyclic device 02", "case 17 wait-free-cyclic device 03" }));
    QCOMPARE(slices, 8 * (2 * 4) + 2 * 8 * (2 * 3)); // compute ops + sends and their receives

    const QString all = dir.filePath("all.json");
    QCOMPARE(runCli({ "simulate", "--cases", groundTruthPath(), "--trace", all }).exitCode, 0);
    QFile allFile(all);
    QVERIFY(allFile.open(QIODevice::ReadOnly));
    QVERIFY(allFile.readAll().contains("case 19 fifo device 03"));
}

void TestCliSimulate::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("stderrFragment");
    QTest::newRow("unknown schedule")
        << "{\"cases\":[" + oneCase("zero-bubble", "[0,1]", 2) + "]}" << QStringList {} << 1
        << "/cases/0/schedule: expected a schedule name (GPipe, 1F1B, interleaved-1F1B, "
           "ZB-H1, cyclic, wait-free-cyclic, fifo, DualPipeV, ZB-V, flexible-interleaved), found string \"zero-bubble\"";
    QTest::newRow("device gap") << "{\"cases\":[" + oneCase("fifo", "[0,2]", 2) + "]}" << QStringList {} << 1
                                << "/cases/0/device_assignment: expected a consistent device assignment, found device "
                                   "assignment [0,2]: device 1 holds no layer";
    QTest::newRow("1F1B on zig-zag")
        << "{\"cases\":[" + oneCase("1F1B", "[0,1,1,0]", 2) + "]}" << QStringList {} << 1
        << "1F1B needs a linear device assignment (one stage per device), got other [0,1,1,0]";
    QTest::newRow("second case broken") << "{\"cases\":[" + oneCase("fifo", "[0,1]", 2) + "," + oneCase("fifo", "[]", 2)
            + "]}" << QStringList {} << 1
                                        << "/cases/1/device_assignment";
    QTest::newRow("not json") << QByteArray("{\"cases\":[") << QStringList {} << 1 << "expected valid JSON";
    QTest::newRow("trace case range") << "{\"cases\":[" + oneCase("fifo", "[0,1]", 2) + "]}"
                                      << QStringList { "--trace", "t.json", "--trace-case", "3" } << 2
                                      << "--trace-case 3 is out of range: the file has 1 cases";
    QTest::newRow("trace case alone") << "{\"cases\":[" + oneCase("fifo", "[0,1]", 2) + "]}"
                                      << QStringList { "--trace-case", "0" } << 2 << "--trace-case needs --trace";
}

void TestCliSimulate::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QStringList, extra);
    QFETCH(int, exitCode);
    QFETCH(QString, stderrFragment);
    QTemporaryDir dir;
    const CliResult r
        = runCli(QStringList { "simulate", "--cases", writeCases(dir, "c.json", json), "--json" } + extra);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(stderrFragment), r.err.constData());
    QVERIFY(r.out.isEmpty());

    const CliResult missing = runCli({ "simulate", "--json" });
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("--cases is required"));
    const CliResult noFile = runCli({ "simulate", "--cases", dir.filePath("nope.json"), "--json" });
    QCOMPARE(noFile.exitCode, 1);
    QVERIFY(noFile.err.contains("nope.json"));
}

QTEST_GUILESS_MAIN(TestCliSimulate)
#include "tst_cli_simulate.moc"
