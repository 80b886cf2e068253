// SPDX-License-Identifier: GPL-3.0-or-later
// The model description: presets against the parameter counts their authors publish, the JSON
// form profile sets and strategy files carry, and the errors a bad model object gives.
#include <filesystem>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/model/hf_config.h"
#include "core/model/model_description.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"

using namespace stratex;
using namespace stratex::model;

Q_DECLARE_METATYPE(stratex::model::ModelDescription)

namespace {

// JSON written with single quotes, which reads better in a test table (moc also cannot parse
// raw string literals).
std::string quoted(std::string json)
{
    std::ranges::replace(json, '\'', '"');
    return json;
}

} // namespace

class TestModelDescription : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void presetsMatchPublishedParameterCounts_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("totalB"); // as published, billions
        QTest::addColumn<double>("activeB");
        QTest::addColumn<double>("tolerance"); // relative
        // Model cards / papers: Llama 2 (6.74B, 13.0B, 69.0B), Llama 3 (8.03B, 70.6B, 405.9B),
        // Qwen 2.5 (7.61B, 14.7B, 32.5B, 72.7B), GPT-3 (175B), Mixtral (46.7B/12.9B, 141B/39B),
        // DeepSeek-V3 (671B/37B without the MTP module). With MLA counted in its own shapes the
        // total is 671.03B; the active 37.55B is 1.5 % above the report's rounded "37B" (it was
        // 38.7B with MLA as 128 full heads, under a 5 % tolerance).
        QTest::newRow("llama2-7b") << "llama2-7b" << 6.74 << 6.74 << 0.01;
        QTest::newRow("llama2-13b") << "llama2-13b" << 13.0 << 13.0 << 0.01;
        QTest::newRow("llama2-70b") << "llama2-70b" << 69.0 << 69.0 << 0.01;
        QTest::newRow("llama3-8b") << "llama3-8b" << 8.03 << 8.03 << 0.01;
        QTest::newRow("llama3-70b") << "llama3-70b" << 70.6 << 70.6 << 0.01;
        QTest::newRow("llama3-405b") << "llama3-405b" << 405.9 << 405.9 << 0.01;
        QTest::newRow("qwen2.5-7b") << "qwen2.5-7b" << 7.61 << 7.61 << 0.01;
        QTest::newRow("qwen2.5-14b") << "qwen2.5-14b" << 14.7 << 14.7 << 0.01;
        QTest::newRow("qwen2.5-32b") << "qwen2.5-32b" << 32.5 << 32.5 << 0.01;
        QTest::newRow("qwen2.5-72b") << "qwen2.5-72b" << 72.7 << 72.7 << 0.01;
        QTest::newRow("gpt3-175b") << "gpt3-175b" << 175.0 << 175.0 << 0.01;
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46.7 << 12.9 << 0.01;
        QTest::newRow("mixtral-8x22b") << "mixtral-8x22b" << 141.0 << 39.0 << 0.02;
        QTest::newRow("deepseek-v3-style") << "deepseek-v3-style" << 671.0 << 37.0 << 0.02;
        // The founding user's profiling table (see seed-30b in model_presets.cpp): named 30B and 100B.
        QTest::newRow("seed-30b") << "seed-30b" << 32.9 << 32.9 << 0.01;
        QTest::newRow("seed-100b") << "seed-100b" << 100.9 << 100.9 << 0.01;
    }
    void presetsMatchPublishedParameterCounts()
    {
        QFETCH(QString, preset);
        QFETCH(double, totalB);
        QFETCH(double, activeB);
        QFETCH(double, tolerance);
        const ModelDescription model = modelPreset(preset.toStdString());
        model.validate();
        const ParameterCount count = countParameters(model);
        QVERIFY2(std::abs(count.total / 1e9 - totalB) <= tolerance * totalB,
            qPrintable(QString("total %1 B").arg(count.total / 1e9)));
        QVERIFY2(std::abs(count.active / 1e9 - activeB) <= tolerance * activeB,
            qPrintable(QString("active %1 B").arg(count.active / 1e9)));
    }

    void everyPresetRoundTripsThroughJson()
    {
        for (const ModelDescription& preset : modelPresets()) {
            const std::string text = toJson(preset).dump();
            const JsonDocument document = JsonDocument::parse(text, "model.json");
            QCOMPARE(readModel(document.root()), preset);
        }
    }

    void presetWithOverrides()
    {
        const JsonDocument document = JsonDocument::parse(
            quoted("{'preset': 'llama3-70b', 'seq_length': 131072, 'name': 'llama3-70b-128k'}"), "run.json");
        const ModelDescription model = readModel(document.root());
        ModelDescription expected = modelPreset("llama3-70b");
        expected.seq_length = 131072;
        expected.name = "llama3-70b-128k";
        QCOMPARE(model, expected);
    }

    void olderFilesWithoutNormTakeTheFamilyDefault_data()
    {
        QTest::addColumn<QString>("mlp");
        QTest::addColumn<QString>("norm");
        QTest::addColumn<QString>("position");
        QTest::newRow("gated") << "gated"
                               << "rmsnorm"
                               << "rope";
        QTest::newRow("plain") << "plain"
                               << "layernorm"
                               << "learned";
    }
    void olderFilesWithoutNormTakeTheFamilyDefault()
    {
        QFETCH(QString, mlp);
        QFETCH(QString, norm);
        QFETCH(QString, position);
        const std::string text = quoted("{'name': 'm', 'num_layers': 2, 'hidden_size': 64, 'ffn_hidden_size': 256, "
                                        "'num_heads': 4, 'num_kv_heads': 4, 'vocab_size': 100, 'seq_length': 32, "
                                        "'tied_embeddings': false, 'mlp': '"
            + mlp.toStdString() + "'}");
        const ModelDescription model = readModel(JsonDocument::parse(text, "old.json").root());
        QCOMPARE(QString::fromUtf8(normKindName(model.norm).data()), norm);
        QCOMPARE(QString::fromUtf8(positionEmbeddingName(model.position).data()), position);
    }

    // Qwen 2.5's bias on Q, K and V: a field of the description, in its JSON form and its
    // parameter count; files written before the key existed take it from the preset they name.
    void qkvBiasFromTheFileOrItsPreset_data()
    {
        QTest::addColumn<QString>("json"); // single-quoted
        QTest::addColumn<bool>("bias");
        const std::string shape = "'num_layers': 28, 'hidden_size': 3584, 'ffn_hidden_size': 18944, 'num_heads': 28, "
                                  "'num_kv_heads': 4, 'vocab_size': 152064, 'seq_length': 8192, 'mlp': 'gated', "
                                  "'tied_embeddings': false";
        QTest::newRow("preset") << "{'preset': 'qwen2.5-7b'}" << true;
        QTest::newRow("preset, switched off") << "{'preset': 'qwen2.5-7b', 'qkv_bias': false}" << false;
        QTest::newRow("llama preset") << "{'preset': 'llama3-8b'}" << false;
        QTest::newRow("older file naming a Qwen preset")
            << QString::fromStdString("{'name': 'qwen2.5-7b', " + shape + "}") << true;
        QTest::newRow("older file, another name")
            << QString::fromStdString("{'name': 'my-qwen', " + shape + "}") << false;
        QTest::newRow("given") << QString::fromStdString("{'name': 'my-qwen', 'qkv_bias': true, " + shape + "}")
                               << true;
    }
    void qkvBiasFromTheFileOrItsPreset()
    {
        QFETCH(QString, json);
        QFETCH(bool, bias);
        const ModelDescription model = readModel(JsonDocument::parse(quoted(json.toStdString()), "m.json").root());
        QCOMPARE(model.qkv_bias, bias);
        QCOMPARE(toJson(model).at("qkv_bias").get<bool>(), bias);
        ModelDescription without = model;
        without.qkv_bias = false;
        const double extra = countParameters(model).total - countParameters(without).total;
        QCOMPARE(extra, bias ? double(model.num_layers) * (model.hidden_size + 2 * model.kvHiddenSize()) : 0.0);
    }

    // "hidden_dropout": written only when given, read back (layer_cost.cpp's dropout masks).
    void hiddenDropoutRoundTrip()
    {
        ModelDescription model = readModel(JsonDocument::parse(quoted("{'preset': 'llama2-7b'}"), "m.json").root());
        QVERIFY(!model.hidden_dropout);
        QVERIFY(!toJson(model).contains("hidden_dropout"));
        model.hidden_dropout = 0.1;
        const ModelDescription back = readModel(JsonDocument::parse(toJson(model).dump(), "m.json").root());
        QCOMPARE(back.hidden_dropout, std::optional<double>(0.1));
        QCOMPARE(back, model);
    }

    // "activation": the plain MLP's function (ReLU: OPT); written only when not GeLU, read back,
    // taken from the preset when left out.
    void activationRoundTrip()
    {
        ModelDescription model = readModel(JsonDocument::parse(quoted("{'preset': 'gpt3-13b'}"), "m.json").root());
        QVERIFY(model.activation == MlpActivation::Gelu);
        QVERIFY(!toJson(model).contains("activation"));
        model.activation = MlpActivation::Relu;
        QCOMPARE(QString::fromStdString(toJson(model).at("activation").get<std::string>()), QString("relu"));
        const ModelDescription back = readModel(JsonDocument::parse(toJson(model).dump(), "m.json").root());
        QVERIFY(back.activation == MlpActivation::Relu);
        QCOMPARE(back, model);
    }

    void badModelsNameTheKey_data()
    {
        QTest::addColumn<QString>("json"); // single-quoted
        QTest::addColumn<QString>("keyPath");
        QTest::addColumn<QString>("expectedPart");
        QTest::newRow("unknown preset") << "{'preset': 'llama9'}"
                                        << "/preset"
                                        << "known: llama2-7b";
        QTest::newRow("missing key") << "{'name': 'm'}"
                                     << "/num_layers"
                                     << "num_layers";
        QTest::newRow("negative layers") << "{'preset': 'llama2-7b', 'num_layers': -3}"
                                         << "/num_layers"
                                         << "positive";
        QTest::newRow("bad norm") << "{'preset': 'llama2-7b', 'norm': 'batchnorm'}"
                                  << "/norm"
                                  << "rmsnorm";
        QTest::newRow("heads") << "{'preset': 'llama2-7b', 'num_heads': 33}"
                               << "/"
                               << "not divisible";
        QTest::newRow("top-k") << "{'preset': 'mixtral-8x7b', 'moe': {'top_k': 9}}"
                               << "/"
                               << "top_k 9";
        QTest::newRow("dense layers") << "{'preset': 'mixtral-8x7b', 'moe': {'first_dense_layers': 32}}"
                                      << "/"
                                      << "no MoE layer";
        QTest::newRow("qkv bias") << "{'preset': 'qwen2.5-7b', 'qkv_bias': 1}"
                                  << "/qkv_bias"
                                  << "true or false";
        QTest::newRow("dropout of 1") << "{'preset': 'llama2-7b', 'hidden_dropout': 1}"
                                      << "/hidden_dropout"
                                      << "[0, 1)";
        QTest::newRow("dropout as text") << "{'preset': 'llama2-7b', 'hidden_dropout': '0.1'}"
                                         << "/hidden_dropout"
                                         << "number";
        QTest::newRow("unknown activation") << "{'preset': 'gpt3-13b', 'activation': 'swish'}"
                                            << "/activation"
                                            << "\"gelu\" or \"relu\"";
        QTest::newRow("relu with a gated MLP") << "{'preset': 'llama2-7b', 'activation': 'relu'}"
                                               << "/"
                                               << "activation relu needs mlp plain";
        QTest::newRow("moe fields") << "{'preset': 'llama2-7b', 'moe': {'top_k': 2}}"
                                    << "/moe/num_experts"
                                    << "num_experts";
    }
    void badModelsNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, keyPath);
        QFETCH(QString, expectedPart);
        try {
            readModel(JsonDocument::parse(quoted(json.toStdString()), "bad.json").root());
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.file()), QString("bad.json"));
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
            QVERIFY2(QString::fromStdString(error.what()).contains(expectedPart), error.what());
        }
    }

    // Multi-head latent attention in its own shapes (DeepSeek-V2 paper, arXiv 2405.04434, §2.1;
    // Megatron-LM training.py's MLA parameter terms, d98e8a64): the published totals (DeepSeek-V3
    // 671B without MTP; DeepSeek-V2 236B and V2-Lite 15.7B, DeepSeek-V2 paper §1 and Appendix B)
    // within 1 %, and one layer's attention weights exactly. As 128 full heads V2 was 233.1B
    // (1.2 % off) and V3's attention 205.5M per layer.
    void mlaParameterCounts_data()
    {
        QTest::addColumn<ModelDescription>("model");
        QTest::addColumn<double>("totalB");
        QTest::addColumn<double>("attention");
        const std::filesystem::path dir = std::filesystem::path(STRATEX_TEST_DATA_DIR) / "hf-configs";
        // q: 7168x1536 + 1536 + 1536x128x192; kv: 7168x(512+64) + 512 + 512x128x(128+128); o: 128x128x7168
        QTest::newRow("DeepSeek-V3 config.json") << readHfConfigFile(dir / "deepseek-v3.json").model << 671.0
                                                 << 187107328.0;
        // q_lora_rank null: q 2048x16x192; kv: 2048x576 + 512 + 512x16x256; o: 16x128x2048
        QTest::newRow("DeepSeek-V2-Lite config.json")
            << readHfConfigFile(dir / "deepseek-v2-lite.json").model << 15.7 << 13763072.0;
        // DeepSeek-V2's shape as torchtitan's deepseek_v3 flavour "236B" has it (torchtitan/models/
        // deepseek_v3/__init__.py _236b at b5bcd76c; deepseek-ai/DeepSeek-V2 config.json).
        ModelDescription v2 = modelPreset("deepseek-v3-style");
        v2.name = "deepseek-v2";
        v2.num_layers = 60;
        v2.hidden_size = 5120;
        v2.ffn_hidden_size = 12288;
        v2.vocab_size = 102400;
        *v2.moe = MoeDescription { 160, 6, 1536, 2, 1536, 1 };
        QTest::newRow("DeepSeek-V2 (236B)") << v2 << 236.0 << 149227520.0;
    }
    void mlaParameterCounts()
    {
        QFETCH(ModelDescription, model);
        QFETCH(double, totalB);
        QFETCH(double, attention);
        model.validate();
        const ParameterCount count = countParameters(model);
        QVERIFY2(std::abs(count.total / 1e9 - totalB) <= 0.01 * totalB, qPrintable(QString("total %1 B").arg(count.total / 1e9)));
        QCOMPARE(count.attention, attention);
    }

    // Attention as wide as heads x head_dim, not hidden_size (Megatron-LM attention.py
    // query_projection_size = kv_channels x heads, d98e8a64): Qwen 3's model cards publish 30.5B
    // total / 3.3B active (Qwen3-30B-A3B) and 235B / 22B (Qwen3-235B-A22B); one layer's Q, K, V and
    // O weights are h x (q + 2kv) + q x h. Counted with heads of hidden / heads (Q 2048 / 4096, K and
    // V 256 wide) they were 30.1B / 2.90B and 231.7B / 18.8B.
    void attentionWidthParameterCounts_data()
    {
        QTest::addColumn<ModelDescription>("model");
        QTest::addColumn<double>("totalB");
        QTest::addColumn<double>("activeB");
        QTest::addColumn<double>("attention");
        const std::filesystem::path dir = std::filesystem::path(STRATEX_TEST_DATA_DIR) / "hf-configs";
        const ModelDescription a3b = readHfConfigFile(dir / "qwen3-30b-a3b.json").model;
        // 2048 x (4096 + 2 x 512) + 4096 x 2048
        QTest::newRow("Qwen3-30B-A3B config.json") << a3b << 30.5 << 3.3 << 18874368.0;
        // Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads, 4 KV heads, head_dim
        // 128, 128 experts of 1536, top-8, vocabulary 151936, untied.
        ModelDescription a22b = a3b;
        a22b.name = "qwen3-235b-a22b";
        a22b.num_layers = 94;
        a22b.hidden_size = 4096;
        a22b.ffn_hidden_size = 12288;
        a22b.num_heads = 64;
        a22b.moe->expert_ffn_hidden_size = 1536;
        // 4096 x (8192 + 2 x 512) + 8192 x 4096
        QTest::newRow("Qwen3-235B-A22B") << a22b << 235.0 << 22.0 << 71303168.0;
    }
    void attentionWidthParameterCounts()
    {
        QFETCH(ModelDescription, model);
        QFETCH(double, totalB);
        QFETCH(double, activeB);
        QFETCH(double, attention);
        model.validate();
        const ParameterCount count = countParameters(model);
        QVERIFY2(std::abs(count.total / 1e9 - totalB) <= 0.02 * totalB, qPrintable(QString("total %1 B").arg(count.total / 1e9)));
        QVERIFY2(std::abs(count.active / 1e9 - activeB) <= 0.02 * activeB,
            qPrintable(QString("active %1 B").arg(count.active / 1e9)));
        QCOMPARE(count.attention, attention);
    }

    void moeLayersFollowTheDensePrefix()
    {
        const ModelDescription model = modelPreset("deepseek-v3-style");
        QVERIFY(!model.isMoeLayer(2));
        QVERIFY(model.isMoeLayer(3));
        QCOMPARE(model.moeLayerCount(), 58);
        QVERIFY(!modelPreset("llama3-8b").isMoeLayer(0));
    }
};

QTEST_GUILESS_MAIN(TestModelDescription)
#include "tst_model_description.moc"
