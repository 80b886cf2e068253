// SPDX-License-Identifier: GPL-3.0-or-later
// What a strategy file runs with (galvatron::resolveStrategyRun and resolveModel): the command line's
// settings where given, else the file's (Stratex's files carry the model, the cluster and the
// search settings), else Galvatron's world_size; the model from a preset, the file or every flag,
// the missing fields named, contradictions warned; errors naming file and key.
#include <QTest>

#include "core/common/error.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"
#include "core/hardware/cluster_json.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_setting_table.h"
#include "core/galvatron/strategy_file.h"

#include "../profile/profile_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;

namespace {

// Galvatron's keys for a 4-layer, pp-1 strategy of `world` GPUs (tp 1, dp world).
nlohmann::ordered_json galvatronKeys(int world, bool withWorld = true)
{
    nlohmann::ordered_json json
        = { { "pp_deg", 1 }, { "tp_sizes_enc", "1,1,1,1" }, { "tp_consecutive_flags", "1,1,1,1" },
              { "dp_types_enc", "0,0,0,0" }, { "use_sp", "0,0,0,0" }, { "checkpoint", "0,0,0,0" } };
    if (withWorld)
        json["world_size"] = world;
    json["global_bsz"] = world;
    json["chunks"] = 1;
    json["pp_division"] = "4";
    return json;
}

model::ModelDescription fourLayers(const char* preset)
{
    model::ModelDescription m = model::modelPreset(preset);
    m.num_layers = 4;
    return m;
}

// "--flag value ..." applied to the search table or the model table, as the CLI reads them.
struct Flags {
    SearchSettings settings;
    settings::SettingNames given;
    ModelSettings model;
    settings::SettingNames givenModel;
};

Flags flags(const QStringList& args)
{
    Flags f;
    for (qsizetype i = 0; i + 1 < args.size(); i += 2) {
        const std::string flag = args[i].mid(2).toStdString();
        const std::string value = args[i + 1].toStdString();
        if (const auto* row = searchSettingTable().find(flag)) {
            row->set(f.settings, settings::parseSettingValue(row->spec, value));
            f.given.insert(flag);
        } else {
            const auto& modelRow = modelSettingTable().at(flag);
            modelRow.set(f.model, settings::parseSettingValue(modelRow.spec, value));
            f.givenModel.insert(flag);
        }
    }
    return f;
}

StrategyFile fileOf(const nlohmann::ordered_json& json)
{
    return StrategyFile::fromJson(test::jsonText(json.dump(), "strategy.json").root());
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string text;
    for (const std::string& line : lines)
        text += line + "\n";
    return text;
}

} // namespace

class TestStrategyFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void resolvesTheRun_data();
    void resolvesTheRun();
    void modelRules_data();
    void modelRules();
    void readsStratexKeys();
    void errorsNameFileAndKey_data();
    void errorsNameFileAndKey();
};

void TestStrategyFile::resolvesTheRun_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("memoryGb");
    QTest::addColumn<bool>("hasModel");
    QTest::addColumn<QString>("mention"); // in the warnings ("" none) or, without a model, the missing fields

    nlohmann::ordered_json stratex = galvatronKeys(64);
    stratex["model"] = model::toJson(fourLayers("llama2-70b"));
    hardware::ClusterDescription cluster { hardware::gpuPreset("h100-80gb"), 8, 8 };
    stratex["cluster"] = hardware::toJson(cluster);
    SearchSettings searched;
    searched.num_nodes = 8;
    searched.memory_constraint_gb = 70;
    searched.model.num_layers = 4;
    searched.model.seq_length = 4096;
    stratex["search_settings"] = searchSettingTable().toJson(searched);
    const auto bytes = [](const nlohmann::ordered_json& json) { return QByteArray::fromStdString(json.dump()); };

    // The 64-GPU strategy `search --out` writes exports without repeating --num-nodes.
    QTest::newRow("stratex file: everything from the file")
        << bytes(stratex) << QStringList {} << 8 << 8 << 70 << true << "";
    QTest::newRow("given flags win, with a warning")
        << bytes(stratex)
        << QStringList { "--num-nodes", "16", "--num-gpus-per-node", "4", "--memory-constraint", "60" } << 16 << 4 << 60
        << true << "--num-nodes 16 contradicts strategy.json's search_settings.num_nodes 8";
    QTest::newRow("a flag that contradicts the model")
        << bytes(stratex) << QStringList { "--hidden-size", "5120" } << 8 << 8 << 70 << true
        << "--hidden-size 5120 contradicts strategy.json's model's hidden_size 8192; using 5120";
    QTest::newRow("a preset that contradicts the model")
        << bytes(stratex) << QStringList { "--model", "llama2-7b", "--num-layers", "4" } << 8 << 8 << 70 << true
        << "--model llama2-7b contradicts strategy.json's model";

    // Without search settings the cluster names nodes, GPUs and, from its GPU, the memory.
    nlohmann::ordered_json clusterOnly = galvatronKeys(64);
    clusterOnly["cluster"] = hardware::toJson(hardware::ClusterDescription { cluster.gpu, 16, 4 });
    QTest::newRow("cluster only") << bytes(clusterOnly) << QStringList {} << 16 << 4 << 80 << false
                                  << "hidden_size (--hidden-size)";

    // Galvatron's own file: the world size says the nodes.
    QTest::newRow("galvatron 3.0 file, 64 GPUs")
        << bytes(galvatronKeys(64)) << QStringList { "--model", "llama2-7b", "--num-layers", "4" } << 8 << 8 << 38
        << true << "";
    QTest::newRow("64 GPUs of 4 per node") << bytes(galvatronKeys(64)) << QStringList { "--num-gpus-per-node", "4" }
                                           << 16 << 4 << 38 << false << "ffn_hidden_size (--ffn-hidden-size)";
    QTest::newRow("fewer GPUs than a node")
        << bytes(galvatronKeys(4)) << QStringList {} << 1 << 4 << 38 << false << "num_kv_heads (--num-kv-heads)";
    QTest::newRow("v2 file without world_size")
        << bytes(galvatronKeys(64, false)) << QStringList {} << 1 << 8 << 38 << false << "mlp (--mlp)";
    QTest::newRow("every architecture flag instead of a preset")
        << bytes(galvatronKeys(8))
        << QStringList { "--hidden-size", "4096", "--num-heads", "32", "--num-kv-heads", "8", "--ffn-hidden-size",
               "14336", "--vocab-size", "128256", "--seq-length", "8192", "--mlp", "gated", "--tied-embeddings", "0" }
        << 1 << 8 << 38 << true << "";
}

void TestStrategyFile::resolvesTheRun()
{
    QFETCH(QByteArray, file);
    QFETCH(QStringList, args);
    QFETCH(int, nodes);
    QFETCH(int, gpus);
    QFETCH(int, memoryGb);
    QFETCH(bool, hasModel);
    QFETCH(QString, mention);

    const StrategyFile strategy = fileOf(nlohmann::ordered_json::parse(file.toStdString()));
    const Flags f = flags(args);
    const StrategyRun run = resolveStrategyRun(strategy, f.settings, f.given, f.model, f.givenModel);
    QCOMPARE(run.settings.num_nodes, nodes);
    QCOMPARE(run.settings.num_gpus_per_node, gpus);
    QCOMPARE(run.settings.memory_constraint_gb, memoryGb);
    QCOMPARE(bool(run.model.model), hasModel);
    QCOMPARE(run.settings.model.num_layers, 4); // the file's layer count, always known
    if (hasModel) {
        QCOMPARE(run.settings.model.hidden_size, run.model.model->hidden_size);
        QCOMPARE(run.settings.model.seq_length, run.model.model->seq_length);
        QVERIFY(run.model.missing.empty());
        if (mention.isEmpty())
            QVERIFY2(run.warnings.empty(), joined(run.warnings).c_str());
        else
            QVERIFY2(
                joined(run.warnings).find(mention.toStdString()) != std::string::npos, joined(run.warnings).c_str());
    } else {
        QVERIFY2(joined(run.model.missing).find(mention.toStdString()) != std::string::npos,
            joined(run.model.missing).c_str());
    }
    // What follows from the command line or the file is settled: profiles cannot override it.
    QVERIFY(run.settled.contains("num-layers"));
    planFromStrategyFile(strategy, run.settings); // the world size agrees
}

void TestStrategyFile::modelRules_data()
{
    QTest::addColumn<QString>("base"); // a preset name, or "" for none
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("known");
    QTest::addColumn<QString>("expected"); // the model's JSON keys that must hold, or the missing fields
    QTest::addColumn<bool>("complete");
    QTest::addColumn<int>("warnings");

    QTest::newRow("the base as it is") << "llama3-8b" << QStringList {} << QStringList {} << R"({"num_kv_heads":8})"
                                       << true << 0;
    QTest::newRow("a preset without a base") << "" << QStringList { "--model", "mixtral-8x7b" } << QStringList {}
                                             << R"({"num_heads":32,"num_kv_heads":8,"seq_length":4096})" << true << 0;
    QTest::newRow("a preset at the searched sequence length")
        << "" << QStringList { "--model", "llama2-70b" } << QStringList { "seq-length" }
        << R"({"num_layers":80,"seq_length":8192})" << true << 0;
    QTest::newRow("overriding a preset is no contradiction")
        << "" << QStringList { "--model", "llama2-70b", "--num-layers", "40", "--seq-length", "2048" } << QStringList {}
        << R"({"num_layers":40,"seq_length":2048})" << true << 0;
    QTest::newRow("overriding a base is")
        << "llama2-7b" << QStringList { "--ffn-hidden-size", "4096", "--mlp", "plain" } << QStringList {}
        << R"({"ffn_hidden_size":4096,"mlp":"plain"})" << true << 2;
    QTest::newRow("heads of an MHA base keep it MHA")
        << "llama2-7b" << QStringList { "--num-heads", "64" } << QStringList {}
        << R"({"num_heads":64,"num_kv_heads":64})" << true << 1;
    QTest::newRow("nothing") << "" << QStringList {} << QStringList {}
                             << "num_layers (--num-layers), hidden_size (--hidden-size), ffn_hidden_size "
                                "(--ffn-hidden-size), num_heads (--num-heads), num_kv_heads (--num-kv-heads), "
                                "vocab_size (--vocab-size), seq_length (--seq-length), mlp (--mlp), tied_embeddings "
                                "(--tied-embeddings)"
                             << false << 0;
    QTest::newRow("known shape flags count as given")
        << "" << QStringList { "--hidden-size", "5120" } << QStringList { "seq-length", "num-layers" }
        << "ffn_hidden_size (--ffn-hidden-size), num_heads (--num-heads), "
           "num_kv_heads (--num-kv-heads), vocab_size (--vocab-size), "
           "mlp (--mlp), tied_embeddings (--tied-embeddings)"
        << false << 0;
    QTest::newRow("a plain MLP means LayerNorm and learned positions")
        << ""
        << QStringList { "--num-layers", "4", "--hidden-size", "1024", "--num-heads", "16", "--num-kv-heads", "16",
               "--ffn-hidden-size", "4096", "--vocab-size", "50257", "--seq-length", "2048", "--mlp", "plain",
               "--tied-embeddings", "1" }
        << QStringList {} << R"({"norm":"layernorm","position_embedding":"learned","tied_embeddings":true})" << true
        << 0;
    QTest::newRow("a ReLU MLP (OPT)")
        << ""
        << QStringList { "--num-layers", "4", "--hidden-size", "1024", "--num-heads", "16", "--num-kv-heads", "16",
               "--ffn-hidden-size", "4096", "--vocab-size", "50272", "--seq-length", "2048", "--mlp", "plain",
               "--activation", "relu", "--tied-embeddings", "1" }
        << QStringList {} << R"({"mlp":"plain","activation":"relu"})" << true << 0;
}

void TestStrategyFile::modelRules()
{
    QFETCH(QString, base);
    QFETCH(QStringList, args);
    QFETCH(QStringList, known);
    QFETCH(QString, expected);
    QFETCH(bool, complete);
    QFETCH(int, warnings);

    std::optional<model::ModelDescription> baseModel;
    if (!base.isEmpty())
        baseModel = model::modelPreset(base.toStdString());
    const Flags f = flags(args);
    settings::SettingNames knownFlags;
    for (const QString& flag : known)
        knownFlags.insert(flag.toStdString());
    const ResolvedModel r = resolveModel(baseModel, "the base", f.settings, f.given, f.model, f.givenModel, knownFlags);
    QCOMPARE(bool(r.model), complete);
    QCOMPARE(int(r.warnings.size()), warnings);
    if (complete) {
        const nlohmann::ordered_json json = model::toJson(*r.model);
        const nlohmann::ordered_json wanted = nlohmann::ordered_json::parse(expected.toStdString());
        for (auto it = wanted.begin(); it != wanted.end(); ++it)
            QVERIFY2(json[it.key()] == it.value(), it.key().c_str());
    } else {
        QCOMPARE(QString::fromStdString(joined(r.missing)).replace('\n', ", ").chopped(2), expected);
    }
}

void TestStrategyFile::readsStratexKeys()
{
    nlohmann::ordered_json json = galvatronKeys(16);
    const model::ModelDescription model = fourLayers("mixtral-8x7b");
    const hardware::ClusterDescription cluster { hardware::gpuPreset("a100-40gb"), 2, 8 };
    json["model"] = model::toJson(model);
    json["cluster"] = hardware::toJson(cluster);
    json["search_settings"] = { { "memory_constraint", 30 }, { "pipeline_type", "gpipe" } };
    const StrategyFile file = fileOf(json);
    QVERIFY(file.model == model);
    QVERIFY(file.cluster);
    QCOMPARE(file.cluster->num_nodes, 2);
    QCOMPARE(file.cluster->gpu.name, std::string("a100-40gb"));
    QVERIFY(file.search_settings);
    QCOMPARE(file.search_settings_keys, (settings::SettingNames { "memory-constraint", "pipeline-type" }));
    QCOMPARE(file.search_settings->memory_constraint_gb, 30);
    QVERIFY(file.search_settings->pipeline_type == galvatron::PipelineType::GPipe);
}

void TestStrategyFile::errorsNameFileAndKey_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("model field") << "model"
                                 << R"({"preset":"llama2-7b","hidden_size":-4})"
                                 << "strategy.json: /model/hidden_size: expected a positive integer";
    QTest::newRow("model preset") << "model"
                                  << R"({"preset":"llama9"})"
                                  << "strategy.json: /model/preset: expected a model preset";
    QTest::newRow("cluster GPU") << "cluster"
                                 << R"({"num_nodes":1,"gpus_per_node":8,"gpu":"tpu"})"
                                 << "strategy.json: /cluster/gpu: expected a GPU preset";
    QTest::newRow("search setting") << "search_settings"
                                    << R"({"max_tp_deg":"eight"})"
                                    << "strategy.json: /search_settings/max_tp_deg: expected an integer";
    QTest::newRow("unknown search setting") << "search_settings"
                                            << R"({"speed":"fast"})"
                                            << "strategy.json: /search_settings/speed: expected a known setting key";
}

void TestStrategyFile::errorsNameFileAndKey()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, message);
    nlohmann::ordered_json json = galvatronKeys(8);
    json[key.toStdString()] = nlohmann::ordered_json::parse(value.toStdString());
    try {
        fileOf(json);
        QFAIL("no error");
    } catch (const InputError& error) {
        QVERIFY2(std::string(error.what()).find(message.toStdString()) != std::string::npos, error.what());
    }
}

QTEST_GUILESS_MAIN(TestStrategyFile)
#include "tst_strategy_file.moc"
