// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile inputs as a careless or hostile user gives them, across every command that reads files:
// directories, devices, FIFOs, empty and oversized files, values beyond the limits of
// core/common/input_limits.h. Each row: the command line ({dir} is a temporary folder holding
// the row's files), the exit code, and the message on stderr ({dir} replaced).
#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

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
    void wrongAnswers_data();
    void wrongAnswers();
    void interrupts_data();
    void interrupts();
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
    QTest::newRow("cost model: /dev/zero") << QStringList { "plan", "--cost-model", "/dev/zero", "--synthetic",
        "lognormal:6,1,8", "--stages", "2", "--layers-per-stage", "2", "--memory-mb", "1000" }
                                           << "" << none << 1 << "/dev/zero: expected a regular file, found a device";
    QTest::newRow("lengths: directory") << planWith({ "--lengths", "{dir}" }) << "" << none << 1
                                        << "{dir}: expected a regular file, found a directory";
    QTest::newRow("batch file: directory") << QStringList { "trace-ranks", "--batch-file", "{dir}" } << "" << none << 1
                                           << "{dir}: expected a regular file, found a directory";
    QTest::newRow("batch file: empty") << QStringList { "trace-ranks", "--batch-file", "{dir}/b.txt" } << "b.txt"
                                       << QByteArray("# nothing\n\n") << 1
                                       << "{dir}/b.txt: expected at least one \"WORLD_SIZE PP TP\" line, found no "
                                          "batch configs";
    QTest::newRow("strategy: FIFO") << QStringList { "export", "--strategy", "{dir}/s.json", "--to", "paddle" }
                                    << "s.json" << QByteArray("<fifo>") << 1
                                    << "{dir}/s.json: expected a regular file, found a FIFO";
    QTest::newRow("profiles: /dev/null as a profile folder")
        << QStringList { "search", "--profiles", "/dev/null" } << "" << none << 1 << "/dev/null";

    // Flags beyond the limits: usage errors naming the flag and the range (world size 0 and a
    // profile set for 2^60 GPUs before).
    QTest::newRow("search: 2^30 nodes") << QStringList { "search", "--profiles", "{dir}", "--num-nodes", "1073741824" }
                                        << "" << none << 2 << "--num-nodes: expected an integer from 1 to 4096";
    QTest::newRow("profile synth: 2^30 nodes") << QStringList { "profile", "synth", "--model", "llama2-7b", "--gpu",
        "a100-40gb", "--num-nodes", "1073741824", "--out", "{dir}/set" }
                                               << "" << none << 2 << "--num-nodes: expected an integer from 1 to 4096";
    QTest::newRow("profile synth: 2^30 GPUs per node") << QStringList { "profile", "synth", "--model", "llama2-7b",
        "--gpu", "a100-40gb", "--num-gpus-per-node", "1073741824", "--out",
        "{dir}/set" } << "" << none << 2 << "--num-gpus-per-node: expected an integer from 1 to 64";
    QTest::newRow("profile synth: 8192 GB GPUs") << QStringList { "profile", "synth", "--model", "llama2-7b", "--gpu",
        "a100-40gb", "--gpu-memory-gb", "8192", "--out",
        "{dir}/set" } << "" << none << 2 << "--gpu-memory-gb: expected a number from 1 to 4096";

    // A set's folder with a trailing slash (or "/."): the staging folder used to land inside the
    // target, and the rename into place failed with "Directory not empty".
    for (const char* out : { "{dir}/set/", "{dir}/set//", "{dir}/set/." })
        QTest::newRow(qPrintable(QStringLiteral("profile synth --out %1").arg(QString::fromUtf8(out)))) << QStringList {
            "profile", "synth", "--model", "llama2-7b", "--gpu", "a100-40gb", "--out", QString::fromUtf8(out)
        } << "" << none << 0 << "";

    // Search work: beyond the tasks' hard limit (every task keeps an outcome in memory) and beyond
    // the soft work budget (the GUI asks; the CLI refuses), both before loading a task list. The
    // batches 8..4096 on the example's 40 GB are ~1.4e14 cells, inside the budget (the search
    // runs); on 400 GB GPUs ten times the rows, 2.8 times the budget.
    const QString example = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");
    QTest::newRow("search: every batch size to 2^20") << QStringList { "search", "--profiles", example, "--cost-model",
        "galvatron", "--min-bsz", "1", "--max-bsz", "1048576", "--bsz-scale", "1" }
                                                      << "" << none << 1 << "tasks (batch sizes x chunk counts";
    QTest::newRow("search: beyond the work budget") << QStringList { "search", "--profiles", example, "--cost-model",
        "galvatron", "--min-bsz", "8", "--max-bsz", "4096", "--bsz-scale", "8", "--memory-constraint", "400" }
                                                    << "" << none << 1 << "times its work budget";

    // Size: the limit (64 MB by default) and --max-input-mb.
    const QByteArray twoMb = "[" + QByteArray(2 << 20, ' ') + "512]";
    QTest::newRow("lengths beyond --max-input-mb 1")
        << planWith({ "--lengths", "{dir}/l.json", "--max-input-mb", "1" }) << "l.json" << twoMb << 1
        << "{dir}/l.json: the file is 2 MB, more than the input limit of 1 MB (--max-input-mb raises it)";
    QTest::newRow("lengths within --max-input-mb 3")
        << planWith({ "--lengths", "{dir}/l.json", "--max-input-mb", "3", "--json" }) << "l.json" << twoMb << 0 << "";
    QTest::newRow("--max-input-mb 0") << planWith({ "--lengths", "{dir}", "--max-input-mb", "0" }) << "" << none << 2
                                      << "--max-input-mb must be at least 1";
    QTest::newRow("--max-input-mb beyond 65536") << planWith({ "--lengths", "{dir}", "--max-input-mb", "65537" }) << ""
                                                 << none << 2 << "--max-input-mb must be at most 65536";

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

// Inputs that used to give a plausible-looking answer and exit 0. Each row copies a fixture (a
// file, or every file of a folder) into {dir}, replaces the first `from` in `edit` by `to`, and
// runs the command.
void TestCliInputs::wrongAnswers_data()
{
    QTest::addColumn<QString>("fixture"); // a file or folder under the sources
    QTest::addColumn<QString>("edit"); // the copied file to edit ("" none)
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");

    const QString profiles = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");
    const QString computation = QStringLiteral("computation_profiling_bf16_llama2-13b_all.json");
    const QStringList search { "search", "--cost-model", "galvatron", "--profiles", "{dir}", "--memory-constraint",
        "40", "--settle-bsz", "64" };
    QTest::newRow("zero forward time") << profiles << computation << "\"layertype_0_bsz1_seq4096\": 13.539202"
                                       << "\"layertype_0_bsz1_seq4096\": 0" << search << 1
                                       << "{dir}/" + computation
            + ": /layertype_0_bsz1_seq4096: expected a time in ms above 0 and at most 1e6, found number 0";
    QTest::newRow("negative forward time")
        << profiles << computation << "\"layertype_other_bsz2_seq4096\": 8.688701"
        << "\"layertype_other_bsz2_seq4096\": -8.7" << search << 1
        << "/layertype_other_bsz2_seq4096: expected a time in ms above 0 and at most 1e6, found number -8.7";

    const QString model = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/synthetic-gpt-1.3b-cost-model.json");
    const QStringList plan { "plan", "--cost-model", "{dir}/synthetic-gpt-1.3b-cost-model.json", "--synthetic",
        "lognormal:6.5,0.8,64", "--stages", "2", "--layers-per-stage", "2", "--memory-mb", "40000" };
    QTest::newRow("zero DynaPipe time")
        << model << "synthetic-gpt-1.3b-cost-model.json"
        << "[[1,0.4398,"
        << "[[1,0," << plan << 1
        << "/cost_models/tp1_none/timing_ms/encoder|forward/64/0/1: expected a time in ms above 0 and at most 1e6, "
           "found number 0";
    QTest::newRow("negative DynaPipe time")
        << model << "synthetic-gpt-1.3b-cost-model.json"
        << "[[1,0.4398,"
        << "[[1,-0.4398," << plan << 1 << "/1: expected a time in ms above 0 and at most 1e6, found number -0.4398";

    const QString strategy
        = fixture(QStringLiteral("galvatron/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json"));
    const QString strategyName = QStringLiteral("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json");
    const QStringList exportArgs { "export", "--strategy", "{dir}/" + strategyName, "--to", "paddle", "--out",
        "{dir}/out.json" };
    QTest::newRow("vsp 2^32") << strategy << strategyName << "\"vsp\": 1"
                              << "\"vsp\": 4294967296" << exportArgs << 1
                              << "/vsp: expected 0 or 1, found number 4294967296";
    QTest::newRow("embed_sdp 2^32+1") << strategy << strategyName << "\"embed_sdp\": 1"
                                      << "\"embed_sdp\": 4294967297" << exportArgs << 1
                                      << "/embed_sdp: expected 0 or 1, found number 4294967297";
    QTest::newRow("chunks 1e9") << strategy << strategyName << "\"chunks\": 1"
                                << "\"chunks\": 1000000000" << exportArgs << 1
                                << "/chunks: expected micro-batches from 1 to global_bsz (16), found number 1000000000";

    const QString cases = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/pipeline-cases.json");
    QTest::newRow("layer time 1e308") << cases << "pipeline-cases.json"
                                      << "\"fw_us_per_layer\": "
                                      << "\"fw_us_per_layer\": 1e308, \"x\": "
                                      << QStringList { "simulate", "--cases", "{dir}/pipeline-cases.json" } << 1
                                      << "/fw_us_per_layer: expected a time from 0 to 1e9 us, found number 1e+308";

    // Work beyond the planner's budget: refused after the micro-batching, before the scheduling.
    QTest::newRow("plan on 256 stages") << model << ""
                                        << ""
                                        << ""
                                        << QStringList { "plan", "--cost-model", model, "--synthetic",
                                               "lognormal:6.5,0.8,1024", "--stages", "256", "--layers-per-stage", "1",
                                               "--memory-mb", "40000" }
                                        << 1 << "micro-batches per data-parallel group on 256 stages: about";
    QTest::newRow("plan-compare on 64 stages")
        << model << ""
        << ""
        << ""
        << QStringList { "plan-compare", "--cost-model", model, "--synthetic", "lognormal:6.5,0.8,1024",
               "--global-batches", "1024", "--stages", "64", "--layers-per-stage", "1", "--memory-mb", "40000" }
        << 1 << "This plan in normal mode is ";
}

void TestCliInputs::wrongAnswers()
{
    QFETCH(QString, fixture);
    QFETCH(QString, edit);
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QFileInfo source(fixture);
    if (source.isDir()) {
        const QDir folder(fixture);
        for (const QString& name : folder.entryList(QDir::Files))
            QVERIFY(QFile::copy(folder.filePath(name), dir.filePath(name)));
    } else {
        QVERIFY(QFile::copy(fixture, dir.filePath(source.fileName())));
    }
    if (!edit.isEmpty()) {
        QFile file(dir.filePath(edit));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll();
        file.close();
        const qsizetype at = text.indexOf(from.toUtf8());
        QVERIFY2(at >= 0, qPrintable(from));
        text.replace(at, from.toUtf8().size(), to.toUtf8());
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }
    for (QString& arg : args)
        arg.replace(QStringLiteral("{dir}"), dir.path());
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(QString(message).replace(QStringLiteral("{dir}"), dir.path())),
        r.err.constData());
    QVERIFY2(r.out.isEmpty(), r.out.constData());
}

namespace {

// Fields of /proc/PID/status and /proc/PID/stat: when the process handles SIGINT, and the CPU
// time it has used (clock ticks). Waiting on them synchronises with the process without timing.
bool handlesSigint(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return false;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("SigCgt:"))
            return (line.mid(7).trimmed().toULongLong(nullptr, 16) >> (SIGINT - 1)) & 1;
    }
    return false;
}

qint64 cpuTicks(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = stat.readAll();
    // After "(comm) ": state is field 3, utime 14, stime 15.
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    return fields.size() > 12 ? fields[11].toLongLong() + fields[12].toLongLong() : 0;
}

} // namespace

// Ctrl-C: exit 130, nothing on stdout, no output file and no temporary left, whatever the command
// was doing when it came. "computing" rows send it once the process has used a second of CPU, deep
// in its computation: the job itself is cancelled (the message "interrupted"); the others send it
// as soon as the handler is installed (while reading inputs: the process ends at once).
void TestCliInputs::interrupts_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("cases"); // written to {dir}/cases.json when not empty
    QTest::addColumn<bool>("computing");
    const QString model = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/synthetic-gpt-1.3b-cost-model.json");
    // ~20 s of planning without the interrupt; beyond the micro-batching budget, so lifted (issue 26).
    QTest::newRow("plan") << QStringList { "plan", "--cost-model", model, "--synthetic", "lognormal:6.5,0.8,1048576",
        "--stages", "4", "--layers-per-stage", "6", "--memory-mb", "40000", "--plan", "{dir}/plan.json",
        "--lift-work-budget" }
                          << QByteArray() << true;
    QTest::newRow("plan, at once") << QStringList { "plan", "--cost-model", model, "--synthetic",
        "lognormal:6.5,0.8,1048576", "--stages", "4", "--layers-per-stage", "6", "--memory-mb", "40000",
        "--lift-work-budget" } << QByteArray() << false;
    // ~1 s per seed (normal mode got fast; 100 seeds keep it busy well past the interrupt), beyond
    // the mode comparison's work budget: lifted.
    QTest::newRow("plan-compare") << QStringList { "plan-compare", "--cost-model", model, "--synthetic",
        "lognormal:6.5,0.8,8192", "--global-batches", "8192", "--seeds", "100", "--stages", "4", "--layers-per-stage",
        "6", "--memory-mb", "40000", "--csv", "{dir}/compare.csv", "--lift-work-budget" }
                                  << QByteArray() << true;
    QTest::newRow("simulate") << QStringList { "simulate", "--cases", "{dir}/cases.json", "--trace",
        "{dir}/trace.json" } << casesFile(256, 256, 64)
                              << false;
    // Batches 8..4096: ~15 s, inside the work budget (8..16384 is beyond it: refused at once).
    QTest::newRow("search") << QStringList { "search", "--cost-model", "galvatron", "--profiles",
        QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8"), "--memory-constraint", "40",
        "--min-bsz", "8", "--max-bsz", "4096", "--bsz-scale", "8", "--out", "{dir}/strategy.json" }
                            << QByteArray() << true;
}

void TestCliInputs::interrupts()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, cases);
    QFETCH(bool, computing);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    if (!cases.isEmpty())
        QVERIFY(writeTestFile(dir.filePath("cases.json"), cases));
    for (QString& arg : args)
        arg.replace(QStringLiteral("{dir}"), dir.path());
    QProcess process;
    process.start(cliPath(), args);
    QVERIFY(process.waitForStarted());
    const qint64 pid = process.processId();
    const qint64 ticks = computing ? ::sysconf(_SC_CLK_TCK) : 0;
    bool ready = false;
    while (!ready && process.state() == QProcess::Running) {
        ready = handlesSigint(pid) && cpuTicks(pid) >= ticks;
        // Not a sleep: waiting lets QProcess see the command end (a refusal) and leave the loop.
        if (!ready)
            process.waitForFinished(5);
    }
    QVERIFY2(ready, "the command ended before the interrupt");
    QCOMPARE(::kill(pid_t(process.processId()), SIGINT), 0);
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    QCOMPARE(process.readAllStandardOutput(), QByteArray());
    if (computing)
        QVERIFY(process.readAllStandardError().endsWith(": interrupted\n"));
    // Only the inputs this row wrote are there: no output file, no temporary.
    const QStringList left = QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(left, cases.isEmpty() ? QStringList() : QStringList { "cases.json" });
}

QTEST_GUILESS_MAIN(TestCliInputs)
#include "tst_cli_inputs.moc"
