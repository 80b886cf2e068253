// SPDX-License-Identifier: GPL-3.0-or-later
// `search` and `evaluate` with the stratex cost model, as a user runs them: which model "auto"
// picks, search -> plan file -> evaluate giving the same numbers, published layouts Galvatron's
// space cannot hold (any node count, PP 35, interleaving, CP, MoE) evaluated, and the errors.
#include <cmath>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <QtTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString example()
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");
}

QString writeFile(const QTemporaryDir& dir, const QString& name, QString text)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(text.replace('\'', '"').toUtf8());
    return path;
}

} // namespace

class TestCliStratex : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void autoPicksTheModel_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("costModel"); // "stratex", or "" for Galvatron's JSON
        QTest::newRow("synthesized set: stratex")
            << QStringList { "--profiles", example(), "--settle-bsz", "64" } << "stratex";
        QTest::newRow("synthesized set, asked for galvatron")
            << QStringList { "--profiles", example(), "--settle-bsz", "64", "--cost-model", "galvatron" } << "";
        QTest::newRow("measured profiles: galvatron")
            << QStringList { "--profiles", fixture(QStringLiteral("galvatron")), "--model-name", "llama2-7b",
                   "--settle-bsz", "16", "--memory-constraint", "36", "--time-profile-mode", "batch", "--seq-length",
                   "2048" }
            << "";
        QTest::newRow("a model and a GPU, no profiles: stratex")
            << QStringList { "--model", "llama2-7b", "--gpu", "a100-80gb", "--global-batch-size", "32" } << "stratex";
    }

    void autoPicksTheModel()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, costModel);
        const CliResult r = runCli(QStringList { "search", "--json", "--top", "3" } + args);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject result = r.json().object();
        QCOMPARE(result.value("cost_model").toString(), costModel);
        if (costModel == "stratex") {
            const QJsonArray top = result.value("top").toArray();
            QVERIFY(!top.isEmpty());
            QVERIFY(top.size() <= 3);
            QVERIFY(top.first().toObject().value("fits").toBool());
            QVERIFY(top.first().toObject().value("iteration_ms").toDouble() > 0);
            const QJsonObject robustness = top.first().toObject().value("robustness").toObject();
            QCOMPARE(robustness.value("rank_range_10_percent").toArray().first().toInt(), 1);
            QVERIFY(robustness.contains("robust_5_percent"));
        } else {
            QVERIFY(result.contains("best"));
        }
    }

    void searchWritesWhatEvaluateReads()
    {
        QTemporaryDir dir;
        const QString plan = dir.filePath("plan.json");
        const CliResult searched = runCli({ "search", "--model", "llama2-13b", "--gpu", "h100-80gb", "--num-nodes", "3",
            "--global-batch-size", "96", "--out", plan, "--json" });
        QVERIFY2(searched.exitCode == 0, searched.err.constData());
        const QJsonObject best = searched.json().object().value("top").toArray().first().toObject();
        const QJsonObject strategy = best.value("strategy").toObject();
        QCOMPARE(strategy.value("tp").toInt() * strategy.value("pp").toInt() * strategy.value("cp").toInt()
                * strategy.value("dp").toInt(),
            24);

        const CliResult evaluated = runCli({ "evaluate", "--strategy", plan, "--json" });
        QVERIFY2(evaluated.exitCode == 0, evaluated.err.constData());
        const QJsonObject again = evaluated.json().object();
        QCOMPARE(again.value("cost_model").toString(), QStringLiteral("stratex"));
        QCOMPARE(again.value("iteration_ms").toDouble(), best.value("iteration_ms").toDouble());
        QCOMPARE(again.value("peak_memory_mb").toDouble(), best.value("peak_memory_mb").toDouble());
        QCOMPARE(again.value("strategy").toObject(), strategy);
        QCOMPARE(again.value("evidence").toObject(), best.value("evidence").toObject()); // one evidence rule
        // One memory margin (megatron::memoryMargin, docs/memory-model.md "Memory margin").
        const QJsonObject margin = again.value("memory_margin").toObject();
        QCOMPARE(margin, best.value("memory_margin").toObject());
        QVERIFY(margin.value("records").toInt() > 0);
        QVERIFY(margin.value("largest_underprediction").toDouble() < 0);
        QCOMPARE(margin.value("headroom").toDouble(), 1 - again.value("peak_memory_mb").toDouble() / again.value("memory_limit_mb").toDouble());
        QVERIFY(margin.value("note").toString().startsWith("memory: "));
        QVERIFY(best.value("also").isArray());
        // One account of the model's measured runs (megatron::modelTimeEvidence): Llama 2 13B's
        // reference runs, the same in both commands.
        const QJsonObject time = again.value("model_time_evidence").toObject();
        QCOMPARE(time, searched.json().object().value("model_time_evidence").toObject());
        QVERIFY(time.value("runs").toInt() > 0);
        QVERIFY(time.value("lowest_throughput_error").toDouble() <= time.value("highest_throughput_error").toDouble());
        QVERIFY(time.value("note").toString().startsWith("time: "));
    }

    // --features-year (docs/frameworks.md, "Megatron-LM's features by year"): plans of 2021's
    // Megatron-LM use no sequence parallelism, selective recompute, distributed optimizer or CP;
    // today's top plans do use some of them.
    void searchHeldToAYear()
    {
        const QStringList common { "search", "--model", "llama2-13b", "--gpu", "h100-80gb", "--num-nodes", "3",
            "--global-batch-size", "96", "--top", "5", "--json" };
        const auto laterFeatures = [](const QJsonObject& strategy) {
            return strategy.value("sequence_parallel").toBool() || strategy.value("recompute").toString() == "selective"
                || strategy.value("zero").toInt() > 0 || strategy.value("cp").toInt() > 1;
        };
        const CliResult today = runCli(common);
        QVERIFY2(today.exitCode == 0, today.err.constData());
        bool todayUsesThem = false;
        for (const QJsonValue& plan : today.json().object().value("top").toArray())
            todayUsesThem = todayUsesThem || laterFeatures(plan.toObject().value("strategy").toObject());
        QVERIFY(todayUsesThem);
        const CliResult of2021 = runCli(common + QStringList { "--features-year", "2021" });
        QVERIFY2(of2021.exitCode == 0, of2021.err.constData());
        const QJsonArray top = of2021.json().object().value("top").toArray();
        QVERIFY(!top.isEmpty());
        for (const QJsonValue& plan : top) {
            const QJsonObject strategy = plan.toObject().value("strategy").toObject();
            QVERIFY2(!laterFeatures(strategy), QJsonDocument(strategy).toJson().constData());
        }
        const CliResult bad = runCli(common + QStringList { "--features-year", "twenty" });
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("features-year"), bad.err.constData());
    }

    void evaluatesPublishedLayouts_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("stages");
        QTest::addColumn<bool>("extrapolated"); // outside what the reference runs cover
        // Narayanan et al. SC21, Table 1: 530B (105 layers, h 20480, 128 heads) on 2240 A100s (280
        // nodes), TP 8, PP 35, interleaved with 3 layers per stage.
        QTest::newRow("530B, PP 35, 280 nodes")
            << QStringList { "--gpu", "a100-80gb", "--num-nodes", "280", "--model", "gpt3-175b", "--num-layers", "105",
                   "--hidden-size", "20480", "--num-heads", "128", "--ffn-hidden-size", "81920" }
            << "{'tp': 8, 'pp': 35, 'global_batch_size': 2240, 'schedule': 'interleaved', 'vpp': 3, "
               "'recompute': 'full'}"
            << 35 << false;
        // Llama 3 405B at 128K (Dubey et al. 2024, Table 4): TP 8, CP 16, PP 16, 16384 GPUs.
        QTest::newRow("405B, CP 16, 128K")
            << QStringList { "--gpu", "h100-80gb", "--num-nodes", "2048", "--model", "llama3-405b", "--seq-length",
                   "131072" }
            << "{'tp': 8, 'cp': 16, 'pp': 16, 'global_batch_size': 128, 'first_stage_layers': 7, "
               "'last_stage_layers': 7, 'schedule': '1f1b'}"
            << 16 << false;
        QTest::newRow("Mixtral 8x7B, EP 8, 3 nodes")
            << QStringList { "--gpu", "h100-80gb", "--num-nodes", "3", "--model", "mixtral-8x7b" }
            << "{'tp': 1, 'pp': 4, 'ep': 2, 'global_batch_size': 60, 'recompute': 'selective'}" << 4 << false;
        // TP across two nodes: no reference run uses TP beyond 8.
        QTest::newRow("GPT-3 175B, TP 16")
            << QStringList { "--gpu", "h100-80gb", "--num-nodes", "2", "--model", "gpt3-175b" }
            << "{'tp': 16, 'pp': 1, 'global_batch_size': 16, 'recompute': 'full'}" << 1 << true;
    }

    void evaluatesPublishedLayouts()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, strategy);
        QFETCH(int, stages);
        QFETCH(bool, extrapolated);
        QTemporaryDir dir;
        const QString plan
            = writeFile(dir, "plan.json", "{'format': 'stratex-plan', 'version': 1, 'strategy': " + strategy + "}");
        const CliResult r = runCli(QStringList { "evaluate", "--strategy", plan, "--json" } + flags);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject result = r.json().object();
        QCOMPARE(result.value("problems").toArray().size(), 0);
        QCOMPARE(result.value("stages").toArray().size(), stages);
        QVERIFY(result.value("mfu").toDouble() > 0.05);
        QVERIFY(result.value("mfu").toDouble() < 0.9);
        QVERIFY(r.err.contains("assumed")); // the defaults taken are said
        const QJsonObject evidence = result.value("evidence").toObject();
        QCOMPARE(evidence.value("extrapolated").toBool(), extrapolated);
        QCOMPARE(evidence.value("notes").toArray().isEmpty(), !extrapolated);
    }

    // --microbatch-group-size costs the plan with that interleaved micro-batch group N
    // (docs/memory-model.md, "Micro-batch group N"), within Megatron-Core's [pp, M].
    void evaluatesMicrobatchGroup_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("group"); // the costed strategy's microbatch_group_size; -1: not written
        QTest::addColumn<QString>("error");
        QTest::newRow("plan's own (pp)") << QStringList {} << 0 << -1 << "";
        QTest::newRow("8") << QStringList { "--microbatch-group-size", "8" } << 0 << 8 << "";
        QTest::newRow("pp given") << QStringList { "--microbatch-group-size", "4" } << 0 << -1 << "";
        QTest::newRow("below pp") << QStringList { "--microbatch-group-size", "2" } << 1 << 2
                                  << "must lie in [pp 4, micro-batches 16]";
    }
    void evaluatesMicrobatchGroup()
    {
        QFETCH(QStringList, flags);
        QFETCH(int, exitCode);
        QFETCH(int, group);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString plan = writeFile(dir, "plan.json",
            "{'format': 'stratex-plan', 'version': 1, 'strategy': {'tp': 2, 'pp': 4, 'vpp': 2, 'dp': 2, "
            "'schedule': 'interleaved', 'global_batch_size': 32}}");
        const CliResult r = runCli(QStringList { "evaluate", "--strategy", plan, "--json", "--model", "llama3-8b",
                                       "--gpu", "h100-80gb", "--num-nodes", "2" }
            + flags);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(error.toUtf8()), r.err.constData());
        const QJsonObject strategy = r.json().object().value("strategy").toObject();
        QCOMPARE(strategy.contains("microbatch_group_size"), group > 0);
        if (group > 0)
            QCOMPARE(strategy.value("microbatch_group_size").toInt(), group);
    }

    // The worst rank's peak explained (issue 23 item 6): JSON "peak_moment" whose parts sum to the
    // plan's device peak and whose allocated parts sum to its allocated peak; the text's "Peak:"
    // row with the moment and one row per part.
    void explainsThePeak()
    {
        QTemporaryDir dir;
        const QString plan = writeFile(dir, "plan.json",
            "{'format': 'stratex-plan', 'version': 1, 'strategy': {'tp': 2, 'pp': 4, 'global_batch_size': 16}}");
        const QStringList flags { "--model", "llama2-7b", "--gpu", "h100-80gb", "--num-nodes", "1" };
        const CliResult r = runCli(QStringList { "evaluate", "--strategy", plan, "--json" } + flags);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject result = r.json().object();
        const QJsonObject peak = result.value("peak_moment").toObject();
        QVERIFY(!peak.isEmpty());
        QVERIFY(peak.value("stage").toInt() >= 0 && peak.value("stage").toInt() < 4);
        QCOMPARE(peak.value("op").toString(), QStringLiteral("forward"));
        const QJsonObject parts = peak.value("parts").toObject();
        double device = 0;
        double allocated = 0;
        for (auto it = parts.begin(); it != parts.end(); ++it) {
            device += it.value().toDouble();
            if (!QStringList { "allocator_cache_mb", "cuda_context_mb", "nccl_mb", "reserve_mb" }.contains(it.key()))
                allocated += it.value().toDouble();
        }
        const double devicePeak = result.value("device_peak_mb").toDouble();
        QVERIFY2(std::abs(device - devicePeak) < 1e-6 * devicePeak, qPrintable(QString("%1 vs %2").arg(device).arg(devicePeak)));
        QVERIFY(std::abs(allocated - result.value("allocated_peak_mb").toDouble()) < 1e-6 * devicePeak);
        QVERIFY(std::abs(peak.value("device_mb").toDouble() - devicePeak) < 1e-6 * devicePeak);
        QVERIFY(peak.value("held_activations").toArray().size() >= peak.value("inflight_microbatches").toInt());

        const CliResult text = runCli(QStringList { "evaluate", "--strategy", plan } + flags);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("Peak: stage %1, forward of micro-batch %2 (chunk 0")
                                  .arg(peak.value("stage").toInt())
                                  .arg(peak.value("microbatch").toInt())),
            qPrintable(out));
        for (const char* row : { "weights", "gradients", "optimizer states", "micro-batches in flight",
                 "the running op's transient", "CUDA context", "NCCL buffers", "device at the peak" })
            QVERIFY2(out.contains(QLatin1String(row)), row);
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("planText"); // written to {plan} when not empty
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no batch") << QStringList { "search", "--model", "llama2-7b", "--gpu", "a100-80gb" } << "" << 1
                                  << "--global-batch-size";
        QTest::newRow("no GPU") << QStringList { "search", "--cost-model", "stratex", "--model", "llama2-7b",
            "--global-batch-size", "8" } << ""
                                << 1 << "needs the GPU";
        QTest::newRow("no model") << QStringList { "search", "--cost-model", "stratex", "--gpu", "a100-80gb",
            "--global-batch-size", "8" } << ""
                                  << 1 << "--model";
        QTest::newRow("unknown GPU") << QStringList { "search", "--model", "llama2-7b", "--gpu", "tpu",
            "--global-batch-size", "8" } << ""
                                     << 1 << "tpu";
        QTest::newRow("Galvatron export flag") << QStringList { "search", "--model", "llama2-7b", "--gpu", "a100-80gb",
            "--global-batch-size", "8", "--megatron-args", "x.sh" } << ""
                                               << 1 << "export --strategy";
        QTest::newRow("nothing fits") << QStringList { "search", "--model", "llama3-405b", "--gpu", "a100-40gb",
            "--global-batch-size", "8" } << ""
                                      << 1 << "the least memory is";
        QTest::newRow("plan: bad key") << QStringList { "evaluate", "--strategy", "{plan}", "--model", "llama2-7b",
            "--gpu", "a100-80gb" } << "{'format': 'stratex-plan', 'version': 1, 'strategy': {'tp': 'two'}}"
                                       << 1 << "{plan}: /strategy/tp";
        QTest::newRow("plan: version 2") << QStringList { "evaluate", "--strategy", "{plan}" }
                                         << "{'format': 'stratex-plan', 'version': 2, 'strategy': {}}" << 1
                                         << "{plan}: /version";
        QTest::newRow("plan: refused by Megatron")
            << QStringList { "evaluate", "--strategy", "{plan}", "--model", "llama2-7b", "--gpu", "a100-80gb" }
            << "{'format': 'stratex-plan', 'version': 1, 'strategy': {'tp': 3, 'dp': 1, 'global_batch_size': 8}}" << 1
            << "Megatron-LM would refuse";
        QTest::newRow("plan with the galvatron model")
            << QStringList { "evaluate", "--strategy", "{plan}", "--cost-model", "galvatron" }
            << "{'format': 'stratex-plan', 'version': 1, 'strategy': {'global_batch_size': 8}}" << 1
            << "costed by the stratex model";
    }

    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, planText);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString plan = planText.isEmpty() ? QString() : writeFile(dir, "plan.json", planText);
        args.replaceInStrings("{plan}", plan);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(r.err).contains(QString(message).replace("{plan}", plan)), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliStratex)
#include "tst_cli_stratex.moc"
