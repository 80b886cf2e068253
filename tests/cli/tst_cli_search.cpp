// SPDX-License-Identifier: GPL-3.0-or-later
// `stratex-cli search`, `evaluate` and `export` run as processes: the three Galvatron baseline
// cases (strategy key for key, time to 1e-9, memory per stage to the MB), the JSON contract, the
// files they write, exit codes and messages.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_runner.h"

using namespace stratex::test;

namespace {

QString galvatronDir()
{
    return fixture(QStringLiteral("galvatron"));
}

QJsonObject baselineCase(int index)
{
    QFile file(fixture(QStringLiteral("galvatron-baseline/expected_main.json")));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read expected_main.json");
    return QJsonDocument::fromJson(file.readAll()).object().value("cases").toArray().at(index).toObject();
}

// The baseline settings as the public flags.
QStringList settingsFlags(const QJsonObject& s)
{
    const QJsonObject m = s.value("model").toObject();
    const auto n = [&](const char* key) { return QString::number(s.value(key).toInt()); };
    const auto b = [&](const char* key) { return s.value(key).toBool() ? QStringLiteral("1") : QStringLiteral("0"); };
    return { "--num-nodes", n("num_nodes"), "--num-gpus-per-node", n("gpus_per_node"), "--memory-constraint",
        n("memory_constraint_gb"), "--settle-bsz", n("settle_bsz"), "--settle-chunk", n("settle_chunk"),
        "--time-profile-mode", s.value("time_profile_mode").toString(), "--memory-profile-mode",
        s.value("memory_profile_mode").toString(), "--mixed-precision", s.value("mixed_precision").toString(),
        "--default-dp-type", s.value("default_dp_type").toString(), "--pipeline-type",
        s.value("pipeline_type").toString(), "--async-grad-reduce", b("async_grad_reduce"), "--sequence-parallel",
        b("sequence_parallel"), "--global-memory-buffer", b("global_memory_buffer"), "--max-tp-deg", n("max_tp_deg"),
        "--max-pp-deg", n("max_pp_deg"), "--max-sp-deg", n("max_sp_deg"), "--seq-length",
        QString::number(m.value("seq_length").toInt()), "--hidden-size",
        QString::number(m.value("hidden_size").toInt()), "--num-layers", QString::number(m.value("num_layers").toInt()),
        "--num-heads", QString::number(m.value("num_heads").toInt()), "--vocab-size",
        QString::number(m.value("vocab_size").toInt()) };
}

QStringList goldenFlags()
{
    return { "--profiles", galvatronDir(), "--settle-bsz", "16", "--memory-constraint", "36", "--time-profile-mode",
        "batch", "--seq-length", "2048" };
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestCliSearch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void baselineCases_data();
    void baselineCases();
    void profilesOneByOne();
    void jsonContract();
    void writesExports();
    void threadsDoNotChangeTheAnswer();
    void evaluateShippedConfig();
    void exportFormats_data();
    void exportFormats();
    void exportNeedsTheModel_data();
    void exportNeedsTheModel();
    void exportReadsWhatSearchWrote();
    void helpNamesTheCommand_data();
    void helpNamesTheCommand();
    void helpMentionsHonestCosting();
    void errors_data();
    void errors();
    void hostileMemory_data();
    void hostileMemory();
    void strategyOfAnotherCluster();
    void noValidConfiguration();
    void allocatorReserve();
};

void TestCliSearch::baselineCases_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < 3; ++i)
        QTest::newRow(qPrintable(baselineCase(i).value("name").toString())) << i;
}

void TestCliSearch::baselineCases()
{
    QFETCH(int, index);
    const QJsonObject c = baselineCase(index);
    const QJsonObject expected = c.value("expected").toObject();
    QStringList args { "search", "--profiles", galvatronDir(), "--model-name", "llama2-7b", "--json" };
    args << settingsFlags(c.value("settings").toObject());
    const CliResult r = runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject best = r.json().object().value("best").toObject();
    QCOMPARE(best.value("gbsz").toInt(), expected.value("gbsz").toInt());
    QCOMPARE(best.value("chunks").toInt(), expected.value("chunks").toInt());
    QCOMPARE(best.value("pp").toInt(), expected.value("pp").toInt());
    const double time = best.value("time_cost_s").toDouble();
    QVERIFY(std::abs(time / expected.value("time_cost_s").toDouble() - 1) < 1e-9);
    QCOMPARE(best.value("memory_cost_mb_per_stage").toArray(), expected.value("memory_cost_mb_per_stage").toArray());
    QCOMPARE(best.value("memory_remaining_mb_per_stage").toArray(),
        expected.value("memory_remaining_mb_per_stage").toArray());
    const QJsonObject strategy = best.value("strategy").toObject();
    const QJsonObject expectedStrategy = expected.value("strategy").toObject();
    QCOMPARE(strategy.keys(), expectedStrategy.keys());
    for (const QString& key : expectedStrategy.keys())
        QVERIFY2(strategy.value(key) == expectedStrategy.value(key), qPrintable(key));
    QCOMPARE(best.value("throughput_samples_per_s").toDouble(), best.value("gbsz").toInt() / time);
}

void TestCliSearch::profilesOneByOne()
{
    const QString d = galvatronDir() + "/";
    const CliResult r = runCli({ "search", "--computation", d + "computation_profiling_bf16_llama2-7b_all.json",
        "--memory", d + "memory_profiling_bf16_llama2-7b_all.json", "--allreduce",
        d + "allreduce_bandwidth_1nodes_8gpus_per_node.json", "--p2p", d + "p2p_bandwidth_1nodes_8gpus_per_node.json",
        "--overlap", d + "overlap_coefficient.json", "--sp-time", d + "sp_time_1nodes_8gpus_per_node.json",
        "--settle-bsz", "32", "--memory-constraint", "24", "--time-profile-mode", "batch", "--json" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject best = r.json().object().value("best").toObject();
    // The memory file holds one sequence length (2048): it becomes the default --seq-length.
    QCOMPARE(best.value("memory_cost_mb_per_stage").toArray(), QJsonArray({ 24557, 23827, 24084, 24148 }));
    // --hardware DIR works too.
    QTemporaryDir profiles;
    QFile::copy(d + "computation_profiling_bf16_llama2-7b_all.json",
        profiles.path() + "/computation_profiling_bf16_llama2-7b_all.json");
    QFile::copy(
        d + "memory_profiling_bf16_llama2-7b_all.json", profiles.path() + "/memory_profiling_bf16_llama2-7b_all.json");
    const CliResult withHardware = runCli({ "search", "--profiles", profiles.path(), "--hardware", galvatronDir(),
        "--settle-bsz", "32", "--memory-constraint", "24", "--time-profile-mode", "batch", "--json" });
    QVERIFY2(withHardware.exitCode == 0, withHardware.err.constData());
    QCOMPARE(withHardware.json().object().value("best").toObject().value("memory_cost_mb_per_stage").toArray(),
        QJsonArray({ 24557, 23827, 24084, 24148 }));
}

void TestCliSearch::jsonContract()
{
    QStringList args { "search", "--json", "--top", "3" };
    args << goldenFlags();
    const CliResult r = runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.startsWith(R"({"best":{"gbsz":16,"chunks":1,"pp":1,"time_cost_s":)"));
    QVERIFY(r.out.contains(
        R"(,"memory_cost_mb_per_stage":[36757],"memory_remaining_mb_per_stage":[107],"strategy":{"pp_deg":1,"tp_sizes_enc":)"));
    const QJsonObject root = r.json().object();
    QCOMPARE(root.keys(), QStringList({ "best", "dp_calls", "pareto", "search_time_s", "threads", "top" }));
    QCOMPARE(root.value("top").toArray().size(), 3);
    QVERIFY(root.value("pareto").toArray().size() >= 2);
    QVERIFY(root.value("dp_calls").toInt() > 0);
    QVERIFY(root.value("threads").toInt() >= 1);
    QVERIFY(root.value("search_time_s").toDouble() > 0);
    const QJsonObject first = root.value("top").toArray().first().toObject();
    QCOMPARE(first, root.value("best").toObject());
    QVERIFY(r.out.indexOf(R"("search_time_s":)") > r.out.indexOf(R"("pareto":)"));
    // Key order of the whole contract: best, top, pareto, search_time_s, dp_calls, threads.
    const QList<QByteArray> order {
        "\"best\":", "\"top\":", "\"pareto\":", "\"search_time_s\":", "\"dp_calls\":", "\"threads\":"
    };
    qsizetype last = -1;
    for (const QByteArray& key : order) {
        const qsizetype at = r.out.lastIndexOf(key);
        QVERIFY2(at > last, key.constData());
        last = at;
    }
}

void TestCliSearch::writesExports()
{
    QTemporaryDir dir;
    QStringList args { "search", "--out", dir.filePath("strategy.json"), "--paddle-out",
        dir.filePath("fine_grained_config.json"), "--paddle-script", dir.filePath("train.sh"), "--megatron-args",
        dir.filePath("megatron.sh") };
    args << goldenFlags();
    // Measured profiles do not say the model: the launch scripts are refused before searching.
    const CliResult refused = runCli(args);
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("--paddle-script needs the model's architecture; missing from the profiles "
                                  "(measured, not synthesized) and the command line: num_layers (--num-layers)"),
        refused.err.constData());
    QVERIFY(refused.out.isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 0);

    args << "--model"
         << "llama2-7b";
    const CliResult r = runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("Best: gbsz 16, chunks 1, pp 1"));
    const QByteArray strategy = readAll(dir.filePath("strategy.json"));
    QVERIFY(strategy.startsWith("{\n    \"pp_deg\": 1,\n"));
    QVERIFY(strategy.contains("    \"world_size\": 8,\n"));
    QVERIFY(strategy.contains("\"embed_sdp\": 1,\n"));
    // Beside Galvatron's keys: the model (the preset at the searched sequence length) and the settings.
    const QJsonObject written = QJsonDocument::fromJson(strategy).object();
    QCOMPARE(written.value("model").toObject().value("name").toString(), QStringLiteral("llama2-7b"));
    QCOMPARE(written.value("model").toObject().value("seq_length").toInt(), 2048);
    QCOMPARE(written.value("search_settings").toObject().value("memory_constraint").toInt(), 36);
    QVERIFY(!written.contains("cluster")); // measured profiles do not name the GPU
    const QJsonObject paddle = QJsonDocument::fromJson(readAll(dir.filePath("fine_grained_config.json"))).object();
    QCOMPARE(paddle.value("pp_size").toInt(), 1);
    QCOMPARE(paddle.value("sharding_stage_list").toString().split(',').size(), 32);
    QCOMPARE(paddle.value("sharding_stage_list").toString().left(2), QStringLiteral("3,"));
    QVERIFY(QFileInfo(dir.filePath("train.sh")).isExecutable());
    QVERIFY(readAll(dir.filePath("train.sh")).contains("--sharding_parallel_degree 8\n"));
    QVERIFY(readAll(dir.filePath("megatron.sh")).contains("--recompute-num-layers 20\n"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 4); // no temporary files left
}

void TestCliSearch::threadsDoNotChangeTheAnswer()
{
    QStringList base { "search", "--json", "--profiles", galvatronDir(), "--min-bsz", "8", "--max-bsz", "32",
        "--memory-constraint", "24", "--time-profile-mode", "batch", "--seq-length", "2048" };
    const CliResult one = runCli(base + QStringList { "--threads", "1" });
    const CliResult two = runCli(base + QStringList { "--threads", "3" });
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(two.exitCode, 0);
    QCOMPARE(one.json().object().value("best"), two.json().object().value("best"));
    QCOMPARE(one.json().object().value("top"), two.json().object().value("top"));
    QCOMPARE(one.json().object().value("pareto"), two.json().object().value("pareto"));
    QCOMPARE(one.json().object().value("threads").toInt(), 1);
    QCOMPARE(two.json().object().value("threads").toInt(), 3);
}

void TestCliSearch::evaluateShippedConfig()
{
    const CliResult r = runCli(
        { "evaluate", "--strategy", galvatronDir() + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json",
            "--profiles", galvatronDir(), "--model-name", "llama2-7b", "--memory-constraint", "36",
            "--time-profile-mode", "batch", "--json" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject root = r.json().object();
    QVERIFY(std::abs(root.value("time_cost_s").toDouble() / 1.0860461243113173 - 1) < 1e-9);
    QCOMPARE(root.value("memory_cost_mb_per_stage").toArray(), QJsonArray({ 36757 }));
    QCOMPARE(root.value("memory_remaining_mb_per_stage").toArray(), QJsonArray({ 107 }));
    QCOMPARE(root.value("strategy").toObject().value("world_size").toInt(), 8);
    const QJsonArray layers = root.value("layers").toArray();
    QCOMPARE(layers.size(), 32);
    QCOMPARE(layers.at(0).toObject().value("memory_mb").toInt(), 463);
    QCOMPARE(layers.at(31).toObject().value("memory_mb").toInt(), 1428);
    QVERIFY(std::abs(layers.at(0).toObject().value("time_s").toDouble() / 0.03696645600419197 - 1) < 1e-9);
    QCOMPARE(root.value("stages").toArray().size(), 1);
    QCOMPARE(root.value("stages").toArray().at(0).toObject().value("embedding_memory_mb").toInt(), 2989);
    QVERIFY(r.out.startsWith(R"({"gbsz":16,"chunks":1,"pp":1,"time_cost_s":)"));
    // Text output.
    const CliResult text = runCli({ "evaluate", "--strategy",
        galvatronDir() + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json", "--profiles",
        galvatronDir(), "--model-name", "llama2-7b", "--memory-constraint", "36", "--time-profile-mode", "batch" });
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("memory 36757 MB = layers 26396 + embedding 2989 + buffer 0 + reserve 7372"));
}

void TestCliSearch::exportFormats_data()
{
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("expected");
    QTest::newRow("galvatron") << "galvatron"
                               << "    \"world_size\": 8,\n";
    QTest::newRow("paddle") << "paddle"
                            << "\"pp_stage_idx_list\": \"0,0,0";
    QTest::newRow("paddle-script") << "paddle-script"
                                   << "--fine_grained_config_path './configs/fine_grained_config.json'";
    QTest::newRow("megatron") << "megatron"
                              << "--recompute-num-layers 20";
    QTest::newRow("pytorch-schedule") << "pytorch-schedule"
                                      << "0F0,0B0";
    QTest::newRow("torchtitan") << "torchtitan"
                                << "data_parallel_shard_degree = 8";
    QTest::newRow("megatron-bridge") << "megatron-bridge"
                                     << "    cfg.model.recompute_granularity = \"full\"\n";
}

void TestCliSearch::exportFormats()
{
    QFETCH(QString, to);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    // Galvatron's file does not say its model: the launch scripts need it from the command line.
    const QStringList model { "--model", "llama2-7b", "--seq-length", "2048" };
    const CliResult r = runCli(QStringList { "export", "--strategy",
                                   galvatronDir() + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json",
                                   "--to", to, "--out", dir.filePath("out") }
        + model);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(readAll(dir.filePath("out")).contains(expected.toUtf8()));
    // Without --out the content goes to stdout.
    const CliResult stdoutRun
        = runCli(QStringList { "export", "--strategy",
                     galvatronDir() + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json", "--to", to }
            + model);
    QCOMPARE(stdoutRun.exitCode, 0);
    QVERIFY(stdoutRun.out.contains(expected.toUtf8()));
}

void TestCliSearch::exportNeedsTheModel_data()
{
    QTest::addColumn<QString>("to");
    QTest::newRow("megatron") << "megatron";
    QTest::newRow("paddle-script") << "paddle-script";
}

void TestCliSearch::exportNeedsTheModel()
{
    // A Galvatron file says nothing of its model: a launch script for it is refused (exit 1),
    // naming the fields, instead of training a default-shaped model.
    QFETCH(QString, to);
    const QString file = galvatronDir() + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json";
    const CliResult r = runCli({ "export", "--strategy", file, "--to", to, "--hidden-size", "4096" });
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    for (const char* part : { "galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json: --to ",
             "needs the model's architecture; missing from the file (it has no \"model\") and the command line: ",
             "ffn_hidden_size (--ffn-hidden-size)", "num_kv_heads (--num-kv-heads)", "mlp (--mlp)",
             "Give --model PRESET (llama2-7b, " })
        QVERIFY2(r.err.contains(part), r.err.constData());
    QVERIFY2(!r.err.contains("hidden_size (--hidden-size)"), r.err.constData()); // given
    QVERIFY2(!r.err.contains("num_layers"), r.err.constData()); // the file's
    // The Galvatron and PaddleNLP config formats do not need it.
    QCOMPARE(runCli({ "export", "--strategy", file, "--to", "paddle" }).exitCode, 0);
}

void TestCliSearch::exportReadsWhatSearchWrote()
{
    // A 64-GPU strategy of a synthesized 70B set: the file carries model, cluster and settings, so
    // its exports need no repeated flag; flags that contradict it win with a warning.
    QTemporaryDir dir;
    QCOMPARE(runCli({ "profile", "synth", "--model", "llama2-70b", "--gpu", "h100-80gb", "--num-nodes", "8", "--out",
                        dir.filePath("profiles") })
                 .exitCode,
        0);
    const QString strategy = dir.filePath("strategy.json");
    const CliResult searched
        = runCli({ "search", "--cost-model", "galvatron", "--profiles", dir.filePath("profiles"), "--settle-bsz", "64",
            "--out", strategy });
    QVERIFY2(searched.exitCode == 0, searched.err.constData());
    const QJsonObject written = QJsonDocument::fromJson(readAll(strategy)).object();
    QCOMPARE(written.value("world_size").toInt(), 64);
    QCOMPARE(written.value("model").toObject().value("num_kv_heads").toInt(), 8);
    QCOMPARE(written.value("cluster").toObject().value("num_nodes").toInt(), 8);
    QCOMPARE(written.value("cluster").toObject().value("gpu").toObject().value("name").toString(), "h100-80gb");
    QCOMPARE(written.value("search_settings").toObject().value("settle_bsz").toInt(), 64);

    const CliResult megatron = runCli({ "export", "--strategy", strategy, "--to", "megatron" });
    QVERIFY2(megatron.exitCode == 0, megatron.err.constData());
    QVERIFY(megatron.out.contains("--num-layers 80\n"));
    QVERIFY(megatron.out.contains("--hidden-size 8192\n"));
    QVERIFY(megatron.out.contains("--seq-length 4096\n"));
    // Its approximations are warnings (issue 25: one channel), each also a comment of the script;
    // nothing contradicts the file.
    QVERIFY2(!megatron.err.contains("contradicts"), megatron.err.constData());
    for (const QByteArray& line : megatron.err.split('\n')) {
        if (line.startsWith("warning: Megatron-LM: "))
            QVERIFY2(megatron.out.contains(line.mid(22)), line.constData());
    }

    const CliResult contradicted
        = runCli({ "export", "--strategy", strategy, "--to", "megatron", "--seq-length", "2048" });
    QVERIFY2(contradicted.exitCode == 0, contradicted.err.constData());
    QVERIFY2(contradicted.err.contains("warning: --seq-length 2048 contradicts " + strategy.toUtf8()
                 + "'s model's seq_length 4096; using 2048"),
        contradicted.err.constData());
    QVERIFY(contradicted.out.contains("--seq-length 2048\n"));
}

void TestCliSearch::helpNamesTheCommand_data()
{
    QTest::addColumn<QStringList>("command");
    for (const char* command :
        { "ranks", "trace-ranks", "search", "evaluate", "export", "simulate", "plan", "plan-compare" })
        QTest::newRow(command) << QStringList { QString::fromLatin1(command) };
    QTest::newRow("profile synth") << QStringList { "profile", "synth" };
}

// The usage line names the command as the user types it (and as the man page shows it), not the
// path the program was started from.
void TestCliSearch::helpNamesTheCommand()
{
    QFETCH(QStringList, command);
    const CliResult r = runCli(command + QStringList { "--help" });
    QCOMPARE(r.exitCode, 0);
    const QString usage = QStringLiteral("Usage: stratex-cli %1 [options]").arg(command.join(QLatin1Char(' ')));
    QVERIFY2(r.out.startsWith(usage.toUtf8()), r.out.left(200).constData());
}

void TestCliSearch::helpMentionsHonestCosting()
{
    for (const char* command : { "search", "evaluate" }) {
        const CliResult r = runCli({ command, "--help" });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("gbsz // chunks // dp"));
        QVERIFY(r.out.contains("ceil(gbsz / (chunks x dp))"));
        for (const char* flag : { "--num-nodes", "--num-gpus-per-node", "--memory-constraint", "--min-bsz", "--max-bsz",
                 "--bsz-scale", "--settle-bsz", "--settle-chunk", "--max-tp-deg", "--max-pp-deg", "--max-sp-deg",
                 "--disable-dp", "--disable-tp", "--disable-sp", "--disable-pp", "--disable-ckpt", "--disable-fsdp",
                 "--disable-embedding-lmhead-tp", "--disable-embedding-lmhead-sp", "--default-dp-type",
                 "--pipeline-type", "--async-grad-reduce", "--mixed-precision", "--sequence-parallel",
                 "--global-memory-buffer", "--time-profile-mode", "--memory-profile-mode", "--seq-length",
                 "--hidden-size", "--num-layers", "--num-heads", "--vocab-size", "--profiles", "--hardware",
                 "--computation", "--memory", "--allreduce", "--p2p", "--overlap", "--sp-time" })
            QVERIFY2(r.out.contains(flag), flag);
    }
    const CliResult r = runCli({ "search", "--help" });
    for (const char* flag : { "--threads", "--top", "--out", "--paddle-out", "--paddle-script", "--megatron-args",
             "--pytorch-schedule", "--torchtitan", "--json" })
        QVERIFY2(r.out.contains(flag), flag);
}

void TestCliSearch::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString g = fixture(QStringLiteral("galvatron"));
    QTest::newRow("no profiles") << QStringList { "search", "--settle-bsz", "16" } << 1 << "no profiles";
    QTest::newRow("bad choice") << QStringList { "search", "--profiles", g, "--pipeline-type", "1f1b" } << 2
                                << "--pipeline-type: expected one of pipedream_flush, gpipe, found \"1f1b\"";
    QTest::newRow("bad number") << QStringList { "search", "--profiles", g, "--memory-constraint", "lots" } << 2
                                << "--memory-constraint: expected an integer from 1 to 4096, found \"lots\"";
    // The knapsack has a row per MB: 65536 GB needed 3.5 GB of RAM (input_limits.h).
    QTest::newRow("memory beyond the limit") << QStringList { "search", "--profiles", g, "--memory-constraint",
        "65536" } << 2 << "--memory-constraint: expected an integer from 1 to 4096, found \"65536\"";
    QTest::newRow("unknown flag") << QStringList { "search", "--profiles", g, "--disable-everything" } << 2
                                  << "disable-everything";
    QTest::newRow("missing dir") << QStringList { "search", "--profiles", "/nonexistent/dir" } << 1
                                 << "/nonexistent/dir";
    QTest::newRow("no hardware for 2 nodes") << QStringList { "search", "--profiles", g, "--model-name", "llama2-7b",
        "--num-nodes", "2", "--time-profile-mode", "batch" }
                                             << 1 << "sp_time_2nodes_8gpus_per_node.json";
    QTest::newRow("world not a power of two")
        << QStringList { "search", "--profiles", g, "--num-gpus-per-node", "6" } << 1 << "power of two";
    QTest::newRow("sequence mode on one sequence")
        << QStringList { "search", "--profiles", g, "--model-name", "llama2-7b", "--time-profile-mode", "sequence" }
        << 1 << "at least 3 sequence lengths";
    QTest::newRow("evaluate without strategy")
        << QStringList { "evaluate", "--profiles", g } << 2 << "--strategy is required";
    QTest::newRow("strategy of another model") << QStringList { "evaluate", "--strategy",
        g + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json", "--profiles", g, "--model-name",
        "llama2-7b", "--time-profile-mode", "batch", "--num-layers", "24" }
                                               << 1 << "/tp_sizes_enc: expected 24 layers";
    QTest::newRow("export bad format") << QStringList { "export", "--strategy",
        g + "/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json", "--to", "deepspeed" }
                                       << 2 << "--to must be one of";
}

void TestCliSearch::errors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

// Memory beyond what the knapsack's whole MB can count: an implausible profile value is an input
// error naming file and key, an implausible product of plausible values (a huge batch) simply
// does not fit. Each row edits one value of a copy of the bundled profile set.
void TestCliSearch::hostileMemory_data()
{
    QTest::addColumn<QString>("from"); // first occurrence in the memory profile; empty: no edit
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message"); // "{file}": the memory profile
    QTest::newRow("parameter size 1e9")
        << "\"parameter_size\": 1210.0391"
        << "\"parameter_size\": 1e9" << QStringList {}
        << "{file}: /layertype_0/1024/parameter_size: expected a positive memory size in MB of at most 1e7, found "
           "number 1000000000.0";
    QTest::newRow("activation 1e308") << "\"1\": 644.0"
                                      << "\"1\": 1e308" << QStringList {}
                                      << "{file}: /layertype_0/2048/tp_activation_per_bsz_dict/1: expected a "
                                         "non-negative memory size in MB of at most 1e7, found number 1e+308";
    QTest::newRow("checkpoint 2e7") << "\"checkpoint\": 20.0"
                                    << "\"checkpoint\": 2e7" << QStringList {}
                                    << "{file}: /layertype_0/1024/tp_activation_per_bsz_dict/checkpoint: expected";
    QTest::newRow("model states 1e10") << "\"1\": 5000.0781"
                                       << "\"1\": 1e10" << QStringList {}
                                       << "{file}: /other_memory_pp_off/1024/model_states/1: expected";
    QTest::newRow("largest batch") << QString() << QString() << QStringList { "--settle-bsz", "1048576" }
                                   << "no valid configuration found within 40 GB per GPU";
    QTest::newRow("largest values, largest batch") << "\"1\": 644.0"
                                                   << "\"1\": 1e7" << QStringList { "--settle-bsz", "1048576" }
                                                   << "no valid configuration found within 40 GB per GPU";
}

void TestCliSearch::hostileMemory()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QDir bundled(QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8"));
    for (const QString& name : bundled.entryList(QDir::Files))
        QVERIFY(QFile::copy(bundled.filePath(name), dir.filePath(name)));
    const QString memory = dir.filePath("memory_profiling_bf16_llama2-13b_all.json");
    if (!from.isEmpty()) {
        QByteArray text = readAll(memory);
        const qsizetype at = text.indexOf(from.toUtf8());
        QVERIFY(at >= 0);
        text.replace(at, from.size(), to.toUtf8());
        QFile file(memory);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }
    QStringList args { "search", "--cost-model", "galvatron", "--profiles", dir.path(), "--memory-constraint", "40",
        "--settle-chunk", "1" };
    args << extra;
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(QString(message).replace("{file}", memory)), r.err.constData());
}

void TestCliSearch::strategyOfAnotherCluster()
{
    // A 3.0 strategy names its world size; exporting it for another cluster is an input error.
    QTemporaryDir dir;
    QStringList args { "search", "--out", dir.filePath("strategy.json") };
    args << goldenFlags();
    QCOMPARE(runCli(args).exitCode, 0);
    const CliResult r = runCli(
        { "export", "--strategy", dir.filePath("strategy.json"), "--to", "paddle", "--num-gpus-per-node", "4" });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("strategy.json: /world_size: expected 4 (the cluster"), r.err.constData());
}

void TestCliSearch::noValidConfiguration()
{
    QStringList args { "search", "--json" };
    args << goldenFlags();
    args.replace(args.indexOf("36"), "4");
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.json().object().value("best").isNull());
    QVERIFY(r.err.contains("no valid configuration"));
}

// The reserve Galvatron fixes at 20 % (above 20 GB) is a setting: 0.2 reproduces Galvatron at
// 36 GB, a smaller reserve leaves the search more memory, an impossible one is a usage error.
void TestCliSearch::allocatorReserve()
{
    const auto best = [](const QStringList& extra) {
        QStringList args { "search", "--json" };
        args << goldenFlags() << extra;
        const CliResult r = runCli(args);
        return r.exitCode == 0 ? r.json().object().value("best").toObject() : QJsonObject();
    };
    const QJsonObject galvatron = best({});
    QVERIFY(!galvatron.isEmpty());
    QCOMPARE(best({ "--allocator-reserve", "0.2" }), galvatron);
    const QJsonObject small = best({ "--allocator-reserve", "0.05" });
    QVERIFY(!small.isEmpty());
    QVERIFY(small != galvatron);
    QVERIFY(small.value("time_cost_s").toDouble() <= galvatron.value("time_cost_s").toDouble());
    QStringList args { "search" };
    args << goldenFlags() << "--allocator-reserve"
         << "0.95";
    const CliResult r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--allocator-reserve: expected a number from -1 to 0.9"), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCliSearch)
#include "tst_cli_search.moc"
