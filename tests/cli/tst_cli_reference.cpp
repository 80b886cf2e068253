// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli reference` as a process (issue 23): every record that publishes peak memory is
// compared, the memory error is summarised per framework and per kind of number in text and JSON,
// and a memory-only record (no time) is compared on memory without a throughput error; --rankings
// groups the measured runs by setting.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

// A folder holding copies of the named bundled records.
bool copyRecords(const QTemporaryDir& dir, const QStringList& ids)
{
    for (const QString& id : ids) {
        if (!QFile::copy(QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/") + id + ".json",
                dir.filePath(id + ".json")))
            return false;
    }
    return true;
}

// A bundled record copied with its GPU and global batch replaced (the id kept).
bool copyEdited(const QTemporaryDir& dir, const QString& id, const QString& gpu, int globalBatch)
{
    QFile in(QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/") + id + ".json");
    if (!in.open(QIODevice::ReadOnly))
        return false;
    QJsonObject record = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject cluster = record.value("cluster").toObject();
    cluster["gpu"] = gpu;
    record["cluster"] = cluster;
    QJsonObject strategy = record.value("strategy").toObject();
    strategy["global_batch_size"] = globalBatch;
    record["strategy"] = strategy;
    QFile out(dir.filePath(id + ".json"));
    return out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(record).toJson()) > 0;
}

// `reference --runs dir [flags]` succeeds and its text holds each of `lines` (a QVERIFY per line).
QString referenceTextHolding(const QTemporaryDir& dir, const QStringList& lines, const QStringList& flags = {})
{
    const CliResult text = runCli(QStringList { "reference", "--runs", dir.path() } + flags);
    if (text.exitCode != 0)
        return QStringLiteral("exit code %1").arg(text.exitCode);
    const QString out = QString::fromUtf8(text.out);
    for (const QString& line : lines)
        if (!out.contains(line))
            return line + " not in:\n" + out;
    return {};
}

} // namespace

class TestCliReference : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void memorySummaryLines_data()
    {
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QStringList>("lines"); // each must appear in the text output
        QTest::addColumn<QStringList>("frameworks"); // memory_by_framework, in order
        QTest::addColumn<QStringList>("kinds"); // memory_by_framework_and_kind, "framework/kind"
        QTest::newRow("memory-only Megatron-Bridge record")
            << QStringList { "mbridge-byoc-llama3.2-1b-8" }
            << QStringList { "no time published (memory-only record)", "memory, megatron-bridge: 1 records,",
                   "  allocated peak: 1 records,", "holdout: 0 runs" }
            << QStringList { "megatron-bridge" } << QStringList { "megatron-bridge/allocated" };
        QTest::newRow("torchtitan reserved beside it")
            << QStringList { "mbridge-byoc-llama3.2-1b-8", "torchtitan2412-llama31-8b-8-fsdp" }
            << QStringList { "memory, megatron-bridge: 1 records,", "memory, torchtitan: 1 records,",
                   "  reserved peak: 1 records,", "fit: 1 runs" }
            << QStringList { "megatron-bridge", "torchtitan" }
            << QStringList { "megatron-bridge/allocated", "torchtitan/reserved" };
        QTest::newRow("no memory published")
            << QStringList { "nemo2407-llama2-7b-8" } << QStringList { "memory: no record publishes peak memory" }
            << QStringList {} << QStringList {};
    }
    void memorySummaryLines()
    {
        QFETCH(QStringList, ids);
        QFETCH(QStringList, lines);
        QFETCH(QStringList, frameworks);
        QFETCH(QStringList, kinds);
        QTemporaryDir dir;
        QVERIFY(copyRecords(dir, ids));
        const QString failure = referenceTextHolding(dir, lines);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        const CliResult json = runCli({ "reference", "--runs", dir.path(), "--json" });
        QCOMPARE(json.exitCode, 0);
        const QJsonObject report = json.json().object();
        QStringList gotFrameworks;
        for (const QJsonValue& s : report.value("memory_by_framework").toArray())
            gotFrameworks << s.toObject().value("framework").toString();
        QCOMPARE(gotFrameworks, frameworks);
        QStringList gotKinds;
        for (const QJsonValue& s : report.value("memory_by_framework_and_kind").toArray())
            gotKinds << s.toObject().value("framework").toString() + "/" + s.toObject().value("kind").toString();
        QCOMPARE(gotKinds, kinds);
        for (const QJsonValue& row : report.value("runs").toArray()) {
            const QJsonObject r = row.toObject();
            // A memory-only record has neither a measured time nor a throughput error.
            QCOMPARE(r.contains("throughput_error"), r.value("measured_time").toBool());
            QCOMPARE(r.contains("measured_iteration_s"), r.value("measured_time").toBool());
        }
    }

    // --rankings (issue 22): the settings with two or more measured runs, in text and JSON; with
    // --same-precision the FP8 run is a setting of its own.
    void rankings_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QStringList>("members"); // the one ranked setting's runs, fastest predicted first
        QTest::addColumn<QString>("line");
        QTest::newRow("precision a choice") << QStringList {}
                                            << QStringList { "torchtitan2412-llama31-8b-8-fsdp-compile-fp8",
                                                   "torchtitan2412-llama31-8b-8-fsdp-compile",
                                                   "torchtitan2412-llama31-8b-8-fsdp" }
                                            << "1 setting ranked: the measured best predicted first in 1,";
        QTest::newRow("precision part of the setting")
            << QStringList { "--same-precision" }
            << QStringList { "torchtitan2412-llama31-8b-8-fsdp-compile", "torchtitan2412-llama31-8b-8-fsdp" }
            << "llama3.1-8b, 8 x h100-96gb, seq 8192, 131072 tokens per batch, torchtitan, bf16 (";
    }
    void rankings()
    {
        QFETCH(QStringList, flags);
        QFETCH(QStringList, members);
        QFETCH(QString, line);
        QTemporaryDir dir;
        QVERIFY(copyRecords(dir, { "torchtitan2412-llama31-8b-8-fsdp", "torchtitan2412-llama31-8b-8-fsdp-compile",
                                     "torchtitan2412-llama31-8b-8-fsdp-compile-fp8", "nemo2407-llama2-7b-8" }));
        const CliResult text = runCli(QStringList { "reference", "--runs", dir.path(), "--rankings" } + flags);
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(QString::fromUtf8(text.out).contains(line), qPrintable(line + " not in:\n" + text.out));
        const CliResult json = runCli(QStringList { "reference", "--runs", dir.path(), "--rankings", "--json" } + flags);
        QCOMPARE(json.exitCode, 0);
        const QJsonArray groups = json.json().object().value("groups").toArray();
        QCOMPARE(groups.size(), 1);
        QStringList predicted;
        for (const QJsonValue& id : groups.first().toObject().value("predicted_order").toArray())
            predicted << id.toString();
        QCOMPARE(predicted, members);
    }

    // Issue 23: the fit check against what each run did. A record with "trained": false went out
    // of memory; the report counts the runs the check gets wrong both ways and names them. The
    // SC21 paper's 145B model (Figure 17), made to fit or not by its GPU and batch: 16 sequences in
    // flight on stage 0 (about 68 GiB predicted) are beyond an A100 40GB, 2 are well within 80 GB.
    void fitCheckAgainstWhatRunsDid_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<QStringList>("lines");
        QTest::addColumn<QString>("missKey"); // memory_outcomes' list naming the run, or none
        const QString oom = "narayanan2021-fig17-145b-128-b16-oom";
        const QString trained = "narayanan2021-fig17-145b-128-b8";
        QTest::newRow("went out of memory, called so")
            << oom << "a100-40gb" << 16
            << QStringList { "no time (went out of memory)", ": called out of memory (agrees)",
                   "0 runs trained, 0 of them called out of memory; 1 went out of memory, 0 of them called fitting" }
            << QString();
        QTest::newRow("went out of memory, called fitting")
            << oom << "a100-80gb" << 2
            << QStringList { ": called fitting (a miss)", "1 went out of memory, 1 of them called fitting",
                   "  went out of memory, called fitting: " + oom + " (predicted device peak " }
            << "oom_called_fitting";
        QTest::newRow("trained, called out of memory")
            << trained << "a100-40gb" << 8
            << QStringList { "trained (measured); predicted device peak ", ": called out of memory (a miss)",
                   "1 runs trained, 1 of them called out of memory",
                   "  trained, called out of memory: " + trained + " (predicted device peak " }
            << "trained_called_oom";
        QTest::newRow("trained, called fitting") << trained << "a100-80gb" << 8
                                                 << QStringList { "1 runs trained, 0 of them called out of memory" }
                                                 << QString();
    }
    void fitCheckAgainstWhatRunsDid()
    {
        QFETCH(QString, id);
        QFETCH(QString, gpu);
        QFETCH(int, globalBatch);
        QFETCH(QStringList, lines);
        QFETCH(QString, missKey);
        QTemporaryDir dir;
        QVERIFY(copyEdited(dir, id, gpu, globalBatch));
        const QString failure = referenceTextHolding(dir, lines);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        const CliResult json = runCli({ "reference", "--runs", dir.path(), "--json" });
        QCOMPARE(json.exitCode, 0);
        const QJsonObject outcomes = json.json().object().value("memory_outcomes").toObject();
        for (const QString& key : { QStringLiteral("trained_called_oom"), QStringLiteral("oom_called_fitting") }) {
            const QJsonArray misses = outcomes.value(key).toArray();
            QCOMPARE(misses.size(), key == missKey ? 1 : 0);
            if (key == missKey) {
                QCOMPARE(misses.first().toObject().value("id").toString(), id);
                QVERIFY(misses.first().toObject().value("predicted_device_peak_gib").toDouble() > 0);
            }
        }
        // Cross-validation reports the same check.
        const QString cvFailure = referenceTextHolding(dir, { lines.last() }, { "--cross-validate" });
        QVERIFY2(cvFailure.isEmpty(), qPrintable(cvFailure));
    }

    // Issue 22: --search-claims counts the claims over layouts chosen for speed apart from those over
    // demonstrations and ablations (resources/reference-runs/README.md, layout_purpose), in text
    // and JSON. Korthikanti's 22B on 8 A100: the full-recompute baseline and the paper's own layout.
    void searchClaimsCountLayoutsApart_data()
    {
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<int>("tuned");
        QTest::addColumn<int>("fixed");
        QTest::addColumn<QString>("label"); // in the text, or empty: no run so labelled
        QTest::newRow("the ablation and its twin") << QStringList { "korthikanti2022-22b-8-full-recompute",
            "korthikanti2022-22b-8-selective-sp" } << 1 << 1 << "an ablation baseline (";
        QTest::newRow("the twin alone") << QStringList { "korthikanti2022-22b-8-selective-sp" } << 1 << 0 << QString();
        QTest::newRow("a demonstration") << QStringList { "torchtitan2412-llama31-8b-8-fsdp" } << 0 << 1
                                         << "a demonstration (";
    }
    void searchClaimsCountLayoutsApart()
    {
        QFETCH(QStringList, ids);
        QFETCH(int, tuned);
        QFETCH(int, fixed);
        QFETCH(QString, label);
        QTemporaryDir dir;
        QVERIFY(copyRecords(dir, ids));
        const QStringList flags { "--search-claims", "--min-gpus", "8" };
        const QString failure = referenceTextHolding(dir,
            { QStringLiteral("  layouts chosen for throughput: %1 runs, ").arg(tuned),
                QStringLiteral("claim over a tuned layout): %1 runs, ").arg(fixed) },
            flags);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        const CliResult text = runCli(QStringList { "reference", "--runs", dir.path() } + flags);
        const QString out = QString::fromUtf8(text.out);
        QCOMPARE(!label.isEmpty() && out.contains(label), !label.isEmpty());
        const CliResult json = runCli(QStringList { "reference", "--runs", dir.path(), "--json" } + flags);
        QCOMPARE(json.exitCode, 0);
        const QJsonObject report = json.json().object();
        QCOMPARE(report.value("layouts_chosen_for_throughput").toObject().value("runs").toInt(), tuned);
        QCOMPARE(report.value("demonstrations_and_ablations").toObject().value("runs").toInt(), fixed);
        QStringList purposes;
        for (const QJsonValue& row : report.value("runs").toArray())
            purposes << row.toObject().value("layout_purpose").toString();
        QCOMPARE(int(purposes.count("throughput")), tuned);
    }

    // --cross-validate reports memory per framework too, in text and JSON.
    void crossValidationReportsMemory()
    {
        QTemporaryDir dir;
        QVERIFY(copyRecords(dir, { "mbridge-byoc-llama3.2-1b-8", "nemo2407-llama2-7b-8", "mbridge2511-llama3-8b-8" }));
        const CliResult text = runCli({ "reference", "--runs", dir.path(), "--cross-validate" });
        QCOMPARE(text.exitCode, 0);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains("memory, megatron-bridge: 1 records,"), qPrintable(out));
        QVERIFY2(out.contains("no time published (memory only), memory "), qPrintable(out));
        const CliResult json = runCli({ "reference", "--runs", dir.path(), "--cross-validate", "--json" });
        QCOMPARE(json.exitCode, 0);
        const QJsonArray memory = json.json().object().value("memory_by_framework").toArray();
        QCOMPARE(memory.size(), 1);
        QCOMPARE(memory.first().toObject().value("records").toInt(), 1);
        QCOMPARE(json.json().object().value("overall").toObject().value("runs").toInt(), 2);
    }
};

QTEST_GUILESS_MAIN(TestCliReference)
#include "tst_cli_reference.moc"
