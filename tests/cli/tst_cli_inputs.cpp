// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile inputs as a careless or hostile user gives them, across every command that reads files:
// directories, devices, FIFOs, empty and oversized files, values beyond the limits of
// core/common/input_limits.h. Each row: the command line ({dir} is a temporary folder holding
// the row's files), the exit code, and the message on stderr ({dir} replaced).
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString costModel()
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/examples/synthetic-gpt-1.3b-cost-model.json");
}

QStringList planWith(const QStringList& inputs)
{
    QStringList args { "plan", "--cost-model", costModel() };
    args << inputs << QStringList { "--stages", "2", "--layers-per-stage", "2", "--memory-mb", "40000" };
    return args;
}

// A cases file of `cases` cases with `mbs` micro-batches on `layers` layers of one device each.
QByteArray casesFile(int cases, int mbs, int layers)
{
    QByteArray assignment = "[";
    for (int l = 0; l < layers; ++l)
        assignment += (l ? ",0" : "0");
    assignment += "]";
    QByteArray mb = R"({"fw_us_per_layer":1,"bw_us_per_layer":2,"stored_mb_per_layer":1,"peak_mb_per_layer":1})";
    QByteArray list = "[";
    for (int i = 0; i < mbs; ++i)
        list += (i ? "," : "") + mb;
    list += "]";
    QByteArray text = R"({"cases":[)";
    for (int c = 0; c < cases; ++c)
        text += QByteArray(c ? "," : "") + R"({"schedule":"gpipe","device_assignment":)" + assignment
            + R"(,"microbatches":)" + list + "}";
    return text + "]}";
}

} // namespace

class TestCliInputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hostileInputs_data();
    void hostileInputs();
};

void TestCliInputs::hostileInputs_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("file"); // written into {dir} before the run; "" none
    QTest::addColumn<QByteArray>("content"); // "<fifo>": a FIFO
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");

    const QByteArray none;
    // Not a regular file: named, refused before reading (a FIFO would block, /dev/zero never ends).
    QTest::newRow("cases: directory") << QStringList { "simulate", "--cases", "{dir}" } << "" << none << 1
                                      << "{dir}: expected a regular file, found a directory";
    QTest::newRow("cases: /dev/zero") << QStringList { "simulate", "--cases", "/dev/zero" } << "" << none << 1
                                      << "/dev/zero: expected a regular file, found a device";
    QTest::newRow("cases: FIFO") << QStringList { "simulate", "--cases", "{dir}/cases.json" } << "cases.json"
                                 << QByteArray("<fifo>") << 1
                                 << "{dir}/cases.json: expected a regular file, found a FIFO";
    QTest::newRow("cost model: /dev/zero")
        << QStringList { "plan", "--cost-model", "/dev/zero", "--synthetic", "lognormal:6,1,8", "--stages", "2",
               "--layers-per-stage", "2", "--memory-mb", "1000" }
        << "" << none << 1 << "/dev/zero: expected a regular file, found a device";
    QTest::newRow("lengths: directory") << planWith({ "--lengths", "{dir}" }) << "" << none << 1
                                        << "{dir}: expected a regular file, found a directory";
    QTest::newRow("batch file: directory") << QStringList { "trace-ranks", "--batch-file", "{dir}" } << "" << none
                                           << 1 << "{dir}: expected a regular file, found a directory";
    QTest::newRow("batch file: empty") << QStringList { "trace-ranks", "--batch-file", "{dir}/b.txt" } << "b.txt"
                                       << QByteArray("# nothing\n\n") << 1
                                       << "{dir}/b.txt: expected at least one \"WORLD_SIZE PP TP\" line, found no "
                                          "batch configs";
    QTest::newRow("strategy: FIFO") << QStringList { "export", "--strategy", "{dir}/s.json", "--to", "paddle" }
                                    << "s.json" << QByteArray("<fifo>") << 1
                                    << "{dir}/s.json: expected a regular file, found a FIFO";
    QTest::newRow("profiles: /dev/null as a profile folder")
        << QStringList { "search", "--profiles", "/dev/null" } << "" << none << 1 << "/dev/null";

    // Size: the limit (64 MB by default) and --max-input-mb.
    const QByteArray twoMb = "[" + QByteArray(2 << 20, ' ') + "512]";
    QTest::newRow("lengths beyond --max-input-mb 1")
        << planWith({ "--lengths", "{dir}/l.json", "--max-input-mb", "1" }) << "l.json" << twoMb << 1
        << "{dir}/l.json: the file is 2 MB, more than the input limit of 1 MB (--max-input-mb raises it)";
    QTest::newRow("lengths within --max-input-mb 3")
        << planWith({ "--lengths", "{dir}/l.json", "--max-input-mb", "3", "--json" }) << "l.json" << twoMb << 0
        << "";
    QTest::newRow("--max-input-mb 0") << planWith({ "--lengths", "{dir}", "--max-input-mb", "0" }) << "" << none
                                      << 2 << "--max-input-mb must be at least 1";
    QTest::newRow("--max-input-mb beyond 65536")
        << planWith({ "--lengths", "{dir}", "--max-input-mb", "65537" }) << "" << none << 2
        << "--max-input-mb must be at most 65536";

    // Counts and sizes beyond the limits, refused before allocating.
    QTest::newRow("text length 2^31-1") << planWith({ "--lengths", "{dir}/l.txt" }) << "l.txt"
                                        << QByteArray("512\n2147483647\n") << 1
                                        << "{dir}/l.txt: line 2: expected a positive length of at most 16777216 "
                                           "tokens, found \"2147483647\"";
    QTest::newRow("JSON length 2^24+1") << planWith({ "--lengths", "{dir}/l.json" }) << "l.json"
                                        << QByteArray("[512, 16777217]") << 1
                                        << "{dir}/l.json: /1: expected a positive length of at most 16777216 tokens";
    QTest::newRow("cases: layer costs beyond the limit")
        << QStringList { "simulate", "--cases", "{dir}/c.json" } << "c.json" << casesFile(2, 1024, 2049) << 1
        << "{dir}/c.json: /cases/1/microbatches: expected at most 4194304 layer costs in the file";
    QTest::newRow("cases: one number for 4096 layers x 1025 micro-batches")
        << QStringList { "simulate", "--cases", "{dir}/c.json" } << "c.json" << casesFile(1, 1025, 4096) << 1
        << "{dir}/c.json: /cases/0/microbatches: expected at most 4194304 layer costs";
}

void TestCliInputs::hostileInputs()
{
    QFETCH(QStringList, args);
    QFETCH(QString, file);
    QFETCH(QByteArray, content);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (!file.isEmpty()) {
        const QString path = dir.filePath(file);
        if (content == "<fifo>")
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        else
            QVERIFY(writeTestFile(path, content));
    }
    for (QString& arg : args)
        arg.replace(QStringLiteral("{dir}"), dir.path());
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains(QString(message).replace(QStringLiteral("{dir}"), dir.path())), r.err.constData());
    if (exitCode != 0)
        QVERIFY2(r.out.isEmpty(), r.out.constData());
}

QTEST_GUILESS_MAIN(TestCliInputs)
#include "tst_cli_inputs.moc"
