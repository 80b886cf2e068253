// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli compare-run as a user runs it: a reference record, a Megatron-LM log with and
// without the cluster flags, a log with its traces; the JSON keys scripts rely on; exit codes.
#include <QtTest>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

const QString kLog = fixture(QStringLiteral("measured/megatron-llama2-7b-tp2-pp2-dp4.log"));
const QString kTraces = fixture(QStringLiteral("measured/pytorch-trace-llama2-7b-tp2-pp2-dp4"));
const QString kRecord = QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/megatronlm2024-1.7b-48.json");

bool hasComparedValue(const QJsonObject& object, const QString& key)
{
    const QJsonObject value = object.value(key).toObject();
    return value.contains(QStringLiteral("predicted")) && value.contains(QStringLiteral("measured"))
        && value.contains(QStringLiteral("error"));
}

} // namespace

class TestCliCompareRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void jsonKeysOfARecord()
    {
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), kRecord, QStringLiteral("--json") });
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QJsonObject root = result.json().object();
        for (const char* key : { "run", "problems", "iteration_ms", "tokens_per_s_per_gpu", "tflops_per_gpu",
                 "peak_memory_mb", "predicted", "stages", "timers", "traced_ranks", "notes" })
            QVERIFY2(root.contains(QLatin1String(key)), key);
        for (const char* key : { "iteration_ms", "tokens_per_s_per_gpu", "tflops_per_gpu", "peak_memory_mb" })
            QVERIFY2(hasComparedValue(root, QLatin1String(key)), key);
        const QJsonObject run = root.value(QStringLiteral("run")).toObject();
        QCOMPARE(run.value(QStringLiteral("gpu")).toString(), QStringLiteral("h100-80gb"));
        QCOMPARE(run.value(QStringLiteral("gpus")).toInt(), 48);
        QCOMPARE(run.value(QStringLiteral("sources")).toArray().first().toObject().value(QStringLiteral("kind")).toString(),
            QStringLiteral("reference-run"));
        // The record publishes 408.8 TFLOP/s/GPU in its convention; the iteration time follows from it.
        const QJsonObject iteration = root.value(QStringLiteral("iteration_ms")).toObject();
        QVERIFY(iteration.value(QStringLiteral("measured")).toDouble() > 0);
        QVERIFY(iteration.value(QStringLiteral("predicted")).toDouble() > 0);
        const QJsonArray stages = root.value(QStringLiteral("stages")).toArray();
        QCOMPARE(stages.size(), 1);
        for (const char* key : { "stage", "memory_ranks", "traced_ranks", "memory_mb", "measured_max_allocated_mb",
                 "forward_ms", "backward_ms", "dp_comm_ms", "measured_pp_comm_ms", "measured_exposed_comm_ms",
                 "measured_other_ms", "measured_span_ms", "times_from" })
            QVERIFY2(stages.first().toObject().contains(QLatin1String(key)), key);
    }

    void logWithCluster()
    {
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), kLog, QStringLiteral("--gpu"),
            QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"), QStringLiteral("8"), QStringLiteral("--json") });
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QJsonObject root = result.json().object();
        QCOMPARE(root.value(QStringLiteral("run")).toObject().value(QStringLiteral("num_nodes")).toInt(), 2);
        QCOMPARE(root.value(QStringLiteral("run")).toObject().value(QStringLiteral("iterations_skipped")).toArray(),
            (QJsonArray { 1, 2 }));
        QCOMPARE(root.value(QStringLiteral("iteration_ms")).toObject().value(QStringLiteral("measured")).toDouble(),
            5469.083333333333);
        QCOMPARE(root.value(QStringLiteral("tflops_per_gpu")).toObject().value(QStringLiteral("logged")).toDouble(), 150.6);
        const QJsonArray stages = root.value(QStringLiteral("stages")).toArray();
        QCOMPARE(stages.size(), 2);
        QCOMPARE(stages.at(1).toObject().value(QStringLiteral("memory_ranks")).toArray(), (QJsonArray { 8, 9 }));
        QVERIFY(stages.at(1).toObject().value(QStringLiteral("memory_mb")).toObject().value(QStringLiteral("error")).isDouble());
        const QJsonArray timers = root.value(QStringLiteral("timers")).toArray();
        QVERIFY(!timers.isEmpty());
    }

    void logAndTracesAsText()
    {
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), kLog, QStringLiteral("--run"),
            kTraces, QStringLiteral("--gpus-per-node"), QStringLiteral("8") });
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QString out = QString::fromUtf8(result.out);
        QVERIFY2(out.contains(QStringLiteral("stage 1 forward (ms)")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("traced ranks 8")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("16 x a100-80gb (2 x 8)")), qPrintable(out));
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QStringList>("messages");
        QTest::newRow("no --run") << QStringList { QStringLiteral("compare-run") } << 2
                                  << QStringList { QStringLiteral("--run FILE is required") };
        QTest::newRow("log without cluster") << QStringList { QStringLiteral("compare-run"), QStringLiteral("--run"), kLog } << 1
                                             << QStringList { QStringLiteral("--gpu PRESET"), QStringLiteral("--gpus-per-node N") };
        QTest::newRow("traces without arguments")
            << QStringList { QStringLiteral("compare-run"), QStringLiteral("--run"), kTraces, QStringLiteral("--gpus-per-node"),
                   QStringLiteral("8") }
            << 1 << QStringList { QStringLiteral("num_layers"), QStringLiteral("world_size"), QStringLiteral("argument dump") };
        QTest::newRow("unknown gpu") << QStringList { QStringLiteral("compare-run"), QStringLiteral("--run"), kLog, QStringLiteral("--gpu"),
            QStringLiteral("tpu-v5"), QStringLiteral("--gpus-per-node"), QStringLiteral("8") }
                                     << 1 << QStringList { QStringLiteral("tpu-v5") };
        QTest::newRow("missing file") << QStringList { QStringLiteral("compare-run"), QStringLiteral("--run"), QStringLiteral("/nonexistent/x.log") }
                                      << 1 << QStringList { QStringLiteral("/nonexistent/x.log") };
    }

    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QStringList, messages);
        const CliResult result = runCli(args);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY(result.out.isEmpty());
        for (const QString& message : messages)
            QVERIFY2(result.err.contains(message.toUtf8()), result.err.constData());
    }

    void notALogNamesTheFile()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("notes.txt"));
        QVERIFY(writeTestFile(file, "hello\nworld\n"));
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), file });
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(file.toUtf8()) && result.err.contains("Megatron-LM log"), result.err.constData());
    }

    // A record may carry each stage's peak memory (resources/reference-runs/README.md).
    void recordWithStageMemory_data()
    {
        QTest::addColumn<QJsonArray>("stages");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("one stage") << QJsonArray { 60.5 } << 0;
        QTest::newRow("two values for one stage") << QJsonArray { 60.5, 61 } << 1;
    }

    void recordWithStageMemory()
    {
        QFETCH(QJsonArray, stages);
        QFETCH(int, exitCode);
        QFile in(kRecord);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject record = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject measured = record.value(QStringLiteral("measured")).toObject();
        measured.insert(QStringLiteral("peak_memory_per_stage_gib"), stages);
        record.insert(QStringLiteral("measured"), measured);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("run.json"));
        QVERIFY(writeTestFile(file, QJsonDocument(record).toJson()));
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), file, QStringLiteral("--json") });
        QCOMPARE(result.exitCode, exitCode);
        if (exitCode != 0) {
            QVERIFY2(result.err.contains("/measured/peak_memory_per_stage_gib: expected one value per pipeline stage (1)"),
                result.err.constData());
            return;
        }
        const QJsonObject memory = result.json().object().value(QStringLiteral("stages")).toArray().first().toObject().value(
            QStringLiteral("memory_mb")).toObject();
        QCOMPARE(memory.value(QStringLiteral("measured")).toDouble(), 60.5 * 1073.741824);
    }

    // A log without its argument dump: the model, strategy and cluster from a record, the
    // measurements from the log.
    void logWithoutDumpPlusRecord()
    {
        QFile in(kLog);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        const int start = text.indexOf("------------------------ arguments");
        const int end = text.indexOf("\n", text.indexOf("end of arguments"));
        text.remove(start, end + 1 - start);
        const QJsonObject record { { "id", "run" }, { "use", "holdout" },
            { "model", QJsonObject { { "name", "llama2-7b-like" }, { "num_layers", 32 }, { "hidden_size", 4096 }, { "ffn_hidden_size", 11008 },
                           { "num_heads", 32 }, { "num_kv_heads", 32 }, { "vocab_size", 32000 }, { "seq_length", 4096 },
                           { "mlp", "gated" }, { "norm", "rmsnorm" }, { "position_embedding", "rope" },
                           { "tied_embeddings", false } } },
            { "cluster", QJsonObject { { "gpu", "a100-80gb" }, { "num_nodes", 2 }, { "gpus_per_node", 8 } } },
            { "strategy", QJsonObject { { "tp", 2 }, { "pp", 2 }, { "dp", 4 }, { "sequence_parallel", true }, { "zero", 1 },
                              { "recompute", "selective" }, { "micro_batch_size", 1 }, { "global_batch_size", 64 } } },
            { "measured", QJsonObject { { "iteration_time_s", 5.5 } } } };
        QTemporaryDir dir;
        const QString log = dir.filePath(QStringLiteral("train.log"));
        const QString file = dir.filePath(QStringLiteral("run.json"));
        QVERIFY(writeTestFile(log, text));
        QVERIFY(writeTestFile(file, QJsonDocument(record).toJson()));
        const CliResult alone = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), log, QStringLiteral("--gpu"),
            QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"), QStringLiteral("8") });
        QCOMPARE(alone.exitCode, 1);
        QVERIFY2(alone.err.contains("missing: num_layers, hidden_size"), alone.err.constData());
        const CliResult both = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), log, QStringLiteral("--run"), file,
            QStringLiteral("--json") });
        QVERIFY2(both.exitCode == 0, both.err.constData());
        const QJsonObject root = both.json().object();
        QVERIFY(root.value(QStringLiteral("run")).toObject().value(QStringLiteral("iteration_from")).toString().startsWith(
            QStringLiteral("megatron-log")));
        QCOMPARE(root.value(QStringLiteral("iteration_ms")).toObject().value(QStringLiteral("measured")).toDouble(),
            5469.083333333333);
        QCOMPARE(root.value(QStringLiteral("stages")).toArray().at(1).toObject().value(QStringLiteral("memory_ranks")).toArray(),
            (QJsonArray { 8, 9 }));
    }

    void cutOffLogNamesTheLine()
    {
        QFile in(kLog);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        // The log ends in the middle of iteration 5's line, as a killed job's log does.
        const int at = text.indexOf(" iteration        5/");
        text.truncate(at + 60);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("train.log"));
        QVERIFY(writeTestFile(file, text));
        const int line = int(text.count('\n')) + 1;
        const CliResult result = runCli({ QStringLiteral("compare-run"), QStringLiteral("--run"), file, QStringLiteral("--gpu"),
            QStringLiteral("a100-80gb"), QStringLiteral("--gpus-per-node"), QStringLiteral("8") });
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QStringLiteral("train.log: line %1: expected").arg(line).toUtf8()), result.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCompareRun)
#include "tst_cli_compare_run.moc"
