// SPDX-License-Identifier: GPL-3.0-or-later
// The Hugging Face config.json reader (core/model/hf_config.h) on the real files of
// tests/data/hf-configs (sources and licences in its README.md): every file has a row, each row's
// expected values are the file's own keys; and the errors a bad file gets.
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <set>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/export/megatron_flags.h"
#include "core/model/hf_config.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"

#include "cli/cli_runner.h"

using namespace stratex;
using namespace stratex::model;

namespace {

const std::filesystem::path kDir = std::filesystem::path(STRATEX_TEST_DATA_DIR) / "hf-configs";

struct Expected {
    const char* file;
    const char* family;
    int layers, hidden, heads, kvHeads, ffn, vocab, seq;
    double ropeBase;
    bool tied, qkvBias, qkNorm;
    int headDim; // 0: hidden / heads
    // MoE: experts, top-k, expert ffn, shared experts, shared ffn (each), first dense layers
    int experts, topK, expertFfn, shared, sharedFfn, firstDense;
    // MLA: kv_lora_rank, q_lora_rank (0 without MLA)
    int kvLora, qLora;
};

// Every value below is the file's key (see the README for which key): layers num_hidden_layers /
// n_layer, ffn intermediate_size (Llama 4: intermediate_size_mlp; GPT-2: 4 x n_embd for a null
// n_inner), seq the pre-training length (rope_scaling's original_max_position_embeddings where
// the file scales RoPE, else max_position_embeddings / n_positions).
const Expected kExpected[] = {
    { "llama2-7b.json", "llama", 32, 4096, 32, 32, 11008, 32000, 2048, 10000, false, false, false, 0, 0, 0, 0, 0, 0, 0,
        0, 0 },
    { "llama2-70b.json", "llama", 80, 8192, 64, 8, 28672, 32000, 2048, 10000, false, false, false, 0, 0, 0, 0, 0, 0, 0,
        0, 0 },
    { "llama3.1-8b.json", "llama", 32, 4096, 32, 8, 14336, 128256, 8192, 500000, false, false, false, 0, 0, 0, 0, 0, 0,
        0, 0, 0 },
    { "llama3.1-70b.json", "llama", 80, 8192, 64, 8, 28672, 128256, 8192, 500000, false, false, false, 0, 0, 0, 0, 0,
        0, 0, 0, 0 },
    { "llama4-scout-17b-16e.json", "llama4", 48, 5120, 40, 8, 16384, 202048, 8192, 500000, false, false, true, 0, 16,
        1, 8192, 1, 8192, 0, 0, 0 },
    { "qwen2.5-7b.json", "qwen2", 28, 3584, 28, 4, 18944, 152064, 131072, 1e6, false, true, false, 0, 0, 0, 0, 0, 0, 0,
        0, 0 },
    { "qwen1.5-moe-a2.7b.json", "qwen2_moe", 24, 2048, 16, 16, 5632, 151936, 32768, 1e6, false, true, false, 0, 60, 4,
        1408, 1, 5632, 0, 0, 0 },
    { "qwen3-8b.json", "qwen3", 36, 4096, 32, 8, 12288, 151936, 40960, 1e6, false, false, true, 0, 0, 0, 0, 0, 0, 0, 0,
        0 },
    { "qwen3-30b-a3b.json", "qwen3_moe", 48, 2048, 32, 4, 6144, 151936, 40960, 1e6, false, false, true, 128, 128, 8,
        768, 0, 0, 0, 0, 0 },
    { "mixtral-8x7b-v0.1.json", "mixtral", 32, 4096, 32, 8, 14336, 32000, 32768, 1e6, false, false, false, 0, 8, 2,
        14336, 0, 0, 0, 0, 0 },
    { "deepseek-v2-lite.json", "deepseek_v2", 27, 2048, 16, 16, 10944, 102400, 4096, 10000, false, false, false, 0, 64,
        6, 1408, 2, 1408, 1, 512, 0 },
    { "deepseek-v3.json", "deepseek_v3", 61, 7168, 128, 128, 18432, 129280, 4096, 10000, false, false, false, 0, 256, 8,
        2048, 1, 2048, 3, 512, 1536 },
    { "gemma-2b.json", "gemma", 18, 2048, 8, 1, 16384, 256000, 8192, 10000, true, false, false, 0, 0, 0, 0, 0, 0, 0, 0,
        0 },
    { "nemotron-4-4b.json", "nemotron", 32, 3072, 24, 8, 9216, 256000, 4096, 10000, false, false, false, 0, 0, 0, 0, 0,
        0, 0, 0, 0 },
    { "gpt-neox-redpajama-incite-3b-v1.json", "gpt_neox", 32, 2560, 32, 32, 10240, 50432, 2048, 10000, false, false,
        false, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "gpt2.json", "gpt2", 12, 768, 12, 12, 3072, 50257, 1024, 10000, true, false, false, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "gpt2-medium.json", "gpt2", 24, 1024, 16, 16, 4096, 50257, 1024, 10000, true, false, false, 0, 0, 0, 0, 0, 0, 0, 0,
        0 },
};

const Expected* expectedFor(const std::string& file)
{
    for (const Expected& e : kExpected) {
        if (file == e.file)
            return &e;
    }
    return nullptr;
}

HfModel readText(const std::string& text)
{
    const JsonDocument document = JsonDocument::parse(text, "config.json");
    return readHfConfig(document.root(), "test");
}

bool hasFlag(const exporting::MegatronArgumentList& args, const std::string& flag, const std::string& value = {})
{
    for (const auto& [f, v] : args) {
        if (f == flag && (value.empty() || v == value))
            return true;
    }
    return false;
}

} // namespace

class TestHfConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyFileHasARow()
    {
        std::set<std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
            if (entry.path().extension() == ".json")
                files.insert(entry.path().filename().string());
        }
        QVERIFY(files.size() >= 14);
        for (const std::string& file : files)
            QVERIFY2(expectedFor(file), ("no expected row for tests/data/hf-configs/" + file).c_str());
        for (const Expected& e : kExpected)
            QVERIFY2(files.contains(e.file), e.file);
        // Every family the reader names has a real file.
        std::set<std::string> families;
        for (const Expected& e : kExpected)
            families.insert(e.family);
        for (const std::string& family : hfConfigFamilies()) {
            if (family != "mistral") // Mistral 7B is read as Llama; no file of it is kept
                QVERIFY2(families.contains(family), family.c_str());
        }
    }

    void realFiles_data()
    {
        QTest::addColumn<QString>("file");
        for (const Expected& e : kExpected)
            QTest::newRow(e.file) << QString::fromLatin1(e.file);
    }

    void realFiles()
    {
        QFETCH(QString, file);
        const Expected& e = *expectedFor(file.toStdString());
        const HfModel hf = readHfConfigFile(kDir / e.file);
        const ModelDescription& m = hf.model;
        QCOMPARE(QString::fromStdString(hf.family), QString::fromLatin1(e.family));
        QCOMPARE(m.num_layers, e.layers);
        QCOMPARE(m.hidden_size, e.hidden);
        QCOMPARE(m.num_heads, e.heads);
        QCOMPARE(m.num_kv_heads, e.kvHeads);
        QCOMPARE(m.ffn_hidden_size, e.ffn);
        QCOMPARE(m.vocab_size, e.vocab);
        QCOMPARE(m.seq_length, e.seq);
        QCOMPARE(m.rotary_base, e.ropeBase);
        QCOMPARE(m.tied_embeddings, e.tied);
        QCOMPARE(m.qkv_bias, e.qkvBias);
        QCOMPARE(m.qk_norm, e.qkNorm);
        QCOMPARE(m.head_dim, e.headDim);
        QCOMPARE(m.moe.has_value(), e.experts > 0);
        if (m.moe) {
            QCOMPARE(m.moe->num_experts, e.experts);
            QCOMPARE(m.moe->top_k, e.topK);
            QCOMPARE(m.moe->expert_ffn_hidden_size, e.expertFfn);
            QCOMPARE(m.moe->shared_experts, e.shared);
            QCOMPARE(m.moe->shared_expert_ffn_hidden_size, e.sharedFfn);
            QCOMPARE(m.moe->first_dense_layers, e.firstDense);
        }
        QCOMPARE(m.mla.has_value(), e.kvLora > 0);
        if (m.mla) {
            QCOMPARE(m.mla->kv_lora_rank, e.kvLora);
            QCOMPARE(m.mla->q_lora_rank, e.qLora);
            QCOMPARE(m.mla->qk_nope_head_dim, 128);
            QCOMPARE(m.mla->qk_rope_head_dim, 64);
            QCOMPARE(m.mla->v_head_dim, 128);
        }
        // The description round-trips through the model JSON the plan files carry.
        const nlohmann::ordered_json json = toJson(m);
        const JsonDocument document = JsonDocument::parse(json.dump(), "model.json");
        QVERIFY(readModel(document.root()) == m);
    }

    // The routing facts of each MoE file (issue 25), as the files give them.
    void routing()
    {
        const ModelDescription v3 = readHfConfigFile(kDir / "deepseek-v3.json").model;
        QVERIFY(v3.moe->score_function == RouterScore::Sigmoid);
        QVERIFY(v3.moe->expert_bias);
        QCOMPARE(v3.moe->num_groups, 8);
        QCOMPARE(v3.moe->group_top_k, 4);
        QCOMPARE(v3.moe->scaling_factor, 2.5);
        QVERIFY(v3.moe->normalize_top_k);
        // The DeepSeek-V3-style preset's router is the real config's.
        const MoeDescription preset = *modelPreset("deepseek-v3-style").moe;
        QVERIFY(preset == *v3.moe);
        QVERIFY(modelPreset("deepseek-v3-style").mla == v3.mla);

        const ModelDescription v2 = readHfConfigFile(kDir / "deepseek-v2-lite.json").model;
        QVERIFY(v2.moe->score_function == RouterScore::Softmax);
        QVERIFY(!v2.moe->normalize_top_k);
        QVERIFY(!v2.moe->expert_bias);
        QCOMPARE(v2.moe->num_groups, 0); // topk_method "greedy"
        QCOMPARE(v2.mla->q_lora_rank, 0); // "q_lora_rank" absent: a full query projection

        const ModelDescription qwen = readHfConfigFile(kDir / "qwen1.5-moe-a2.7b.json").model;
        QVERIFY(qwen.moe->shared_expert_gate);
        QVERIFY(!qwen.moe->normalize_top_k);
        const ModelDescription scout = readHfConfigFile(kDir / "llama4-scout-17b-16e.json").model;
        QVERIFY(scout.moe->score_function == RouterScore::Sigmoid);
        QVERIFY(scout.rope_scaling.has_value());
        QCOMPARE(scout.rope_scaling->factor, 8.0);
        const ModelDescription nemotron = readHfConfigFile(kDir / "nemotron-4-4b.json").model;
        QCOMPARE(nemotron.rotary_percent, 0.5);
        QVERIFY(nemotron.mlp == MlpKind::Plain);
        const ModelDescription gpt2 = readHfConfigFile(kDir / "gpt2.json").model;
        QVERIFY(gpt2.position == PositionEmbedding::Learned);
        QVERIFY(gpt2.norm == NormKind::LayerNorm);
    }

    // Megatron-LM's router flags for the real DeepSeek-V3 and Qwen 1.5 MoE files.
    void megatronRouterFlags()
    {
        exporting::MegatronArgumentList args;
        const std::vector<std::string> differences
            = exporting::addMegatronModelArguments(args, readHfConfigFile(kDir / "deepseek-v3.json").model);
        QVERIFY(hasFlag(args, "--moe-router-score-function", "sigmoid"));
        QVERIFY(hasFlag(args, "--moe-router-enable-expert-bias"));
        QVERIFY(hasFlag(args, "--moe-router-topk-scaling-factor", "2.5"));
        QVERIFY(hasFlag(args, "--moe-router-num-groups", "8"));
        QVERIFY(hasFlag(args, "--moe-router-group-topk", "4"));
        QVERIFY(hasFlag(args, "--moe-shared-expert-intermediate-size", "2048"));
        QVERIFY(hasFlag(args, "--moe-layer-freq", "([0]*3+[1]*58)"));
        QVERIFY(!hasFlag(args, "--moe-router-pre-softmax"));
        QVERIFY(differences.empty());

        exporting::MegatronArgumentList qwen;
        exporting::addMegatronModelArguments(qwen, readHfConfigFile(kDir / "qwen1.5-moe-a2.7b.json").model);
        QVERIFY(hasFlag(qwen, "--moe-router-pre-softmax")); // norm_topk_prob false
        QVERIFY(hasFlag(qwen, "--moe-shared-expert-gate"));
        QVERIFY(!hasFlag(qwen, "--moe-router-score-function"));

        exporting::MegatronArgumentList qwen3;
        exporting::addMegatronModelArguments(qwen3, readHfConfigFile(kDir / "qwen3-30b-a3b.json").model);
        QVERIFY(hasFlag(qwen3, "--kv-channels", "128"));
        QVERIFY(hasFlag(qwen3, "--qk-layernorm"));

        exporting::MegatronArgumentList mixtral;
        exporting::addMegatronModelArguments(mixtral, readHfConfigFile(kDir / "mixtral-8x7b-v0.1.json").model);
        QVERIFY(!hasFlag(mixtral, "--moe-router-pre-softmax")); // Megatron's default is Mixtral's router
        QVERIFY(!hasFlag(mixtral, "--moe-router-num-groups"));
    }

    // What a bad file gets: an InputError naming the key, what was expected and what was found.
    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("keyPath");
        QTest::addColumn<QString>("expected");

        const QString llama = QStringLiteral(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
            "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000,
            "max_position_embeddings": 4096 %1})");
        QTest::newRow("missing key") << QStringLiteral(R"({"model_type": "llama", "hidden_size": 4096})")
                                     << "/num_hidden_layers" << "key \"num_hidden_layers\"";
        QTest::newRow("wrong type") << llama.arg(QStringLiteral(R"(, "num_key_value_heads": "8")"))
                                    << "/num_key_value_heads" << "an integer";
        QTest::newRow("unsupported model_type") << QStringLiteral(R"({"model_type": "bert"})") << "/model_type"
                                                << "a supported model_type";
        QTest::newRow("unknown architecture") << QStringLiteral(R"({"architectures": ["BertModel"]})")
                                              << "/architectures/0" << "a supported architecture";
        QTest::newRow("contradictory architecture")
            << QStringLiteral(R"({"model_type": "llama", "architectures": ["MixtralForCausalLM"]})") << "/architectures/0"
            << "an architecture of model_type \"llama\"";
        QTest::newRow("no model_type") << QStringLiteral(R"({"hidden_size": 4096})") << "/model_type"
                                       << "key \"model_type\"";
        QTest::newRow("unsupported rope scaling")
            << llama.arg(QStringLiteral(R"(, "rope_scaling": {"rope_type": "linear", "factor": 2.0})"))
            << "/rope_scaling/rope_type" << "\"llama3\", \"yarn\"";
        QTest::newRow("attention bias") << llama.arg(QStringLiteral(R"(, "attention_bias": true)")) << "/attention_bias"
                                        << "false";
        QTest::newRow("activation") << llama.arg(QStringLiteral(R"(, "hidden_act": "relu")")) << "/hidden_act"
                                    << "\"silu\"";
        QTest::newRow("too many layers") << llama.arg(QStringLiteral(R"(, "num_hidden_layers": 100000)"))
                                         << "/num_hidden_layers" << "at most 4096";
        QTest::newRow("kv heads not dividing") << llama.arg(QStringLiteral(R"(, "num_key_value_heads": 5)")) << "/"
                                               << "divisible by num_kv_heads";
        QTest::newRow("interleaved MoE (Maverick)")
            << QStringLiteral(R"({"model_type": "llama4", "text_config": {"hidden_size": 5120, "num_hidden_layers": 48,
                "num_attention_heads": 40, "num_key_value_heads": 8, "intermediate_size": 8192,
                "intermediate_size_mlp": 16384, "vocab_size": 202048, "max_position_embeddings": 8192,
                "num_local_experts": 128, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2}})")
            << "/text_config/interleave_moe_layer_step" << "1 (MoE in every layer";
        QTest::newRow("deepseek moe_layer_freq")
            << QStringLiteral(R"({"model_type": "deepseek_v3", "hidden_size": 1024, "num_hidden_layers": 4,
                "num_attention_heads": 8, "intermediate_size": 2048, "vocab_size": 1000, "max_position_embeddings": 4096,
                "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
                "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256, "moe_layer_freq": 2})")
            << "/moe_layer_freq" << "1 (MoE in every layer";
        QTest::newRow("deepseek unknown topk_method")
            << QStringLiteral(R"({"model_type": "deepseek_v3", "hidden_size": 1024, "num_hidden_layers": 4,
                "num_attention_heads": 8, "intermediate_size": 2048, "vocab_size": 1000, "max_position_embeddings": 4096,
                "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
                "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256, "topk_method": "sinkhorn"})")
            << "/topk_method" << "\"greedy\"";
        QTest::newRow("top-k above experts")
            << QStringLiteral(R"({"model_type": "mixtral", "hidden_size": 1024, "num_hidden_layers": 4,
                "num_attention_heads": 8, "intermediate_size": 2048, "vocab_size": 1000, "max_position_embeddings": 4096,
                "num_local_experts": 4, "num_experts_per_tok": 8})")
            << "/num_experts_per_tok" << "at most num_local_experts";
        QTest::newRow("not an object") << QStringLiteral("[1, 2]") << "/" << "object";
    }

    void errors()
    {
        QFETCH(QString, text);
        QFETCH(QString, keyPath);
        QFETCH(QString, expected);
        try {
            readText(text.toStdString());
            QFAIL("no error");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("config.json"));
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
            QVERIFY2(QString::fromStdString(error.expected()).contains(expected), error.what());
        }
    }

    // The plain MLP's activation (ModelDescription::activation): GPT-2's "activation_function" and
    // GPT-NeoX's "hidden_act" name a GeLU or ReLU; anything else is refused at its key.
    void plainActivation_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("activation"); // "gelu", "relu", or "" for refused
        const QString gpt2 = QStringLiteral(R"({"model_type": "gpt2", "n_layer": 2, "n_embd": 256, "n_head": 4,
            "vocab_size": 1000, "n_positions": 512 %1})");
        const QString neox = QStringLiteral(R"({"model_type": "gpt_neox", "num_hidden_layers": 2, "hidden_size": 256,
            "intermediate_size": 1024, "num_attention_heads": 4, "vocab_size": 1000, "max_position_embeddings": 512 %1})");
        QTest::newRow("gpt2 gelu_new") << gpt2.arg(QStringLiteral(R"(, "activation_function": "gelu_new")")) << "gelu";
        QTest::newRow("gpt2 none") << gpt2.arg(QString()) << "gelu";
        QTest::newRow("gpt2 relu") << gpt2.arg(QStringLiteral(R"(, "activation_function": "relu")")) << "relu";
        QTest::newRow("neox relu") << neox.arg(QStringLiteral(R"(, "hidden_act": "relu")")) << "relu";
        QTest::newRow("neox gelu") << neox.arg(QStringLiteral(R"(, "hidden_act": "gelu")")) << "gelu";
        QTest::newRow("gpt2 silu") << gpt2.arg(QStringLiteral(R"(, "activation_function": "silu")")) << "";
    }
    void plainActivation()
    {
        QFETCH(QString, text);
        QFETCH(QString, activation);
        if (activation.isEmpty()) {
            try {
                readText(text.toStdString());
                QFAIL("no error");
            } catch (const InputError& error) {
                QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/activation_function"));
                QVERIFY2(QString::fromStdString(error.expected()).contains("a GeLU or \"relu\""), error.what());
            }
            return;
        }
        const ModelDescription m = readText(text.toStdString()).model;
        QCOMPARE(QString::fromStdString(std::string(mlpActivationName(m.activation))), activation);
    }

    void nameAndNotes()
    {
        const HfModel neox = readHfConfigFile(kDir / "gpt-neox-redpajama-incite-3b-v1.json");
        QCOMPARE(QString::fromStdString(neox.model.name), QStringLiteral("rp_3b_800b_real_fp16")); // "_name_or_path"'s last part
        const HfModel llama = readHfConfigFile(kDir / "llama2-7b.json");
        QCOMPARE(QString::fromStdString(llama.model.name), QStringLiteral("llama2-7b")); // the file's stem
        QVERIFY(llama.notes.empty());
        const HfModel v3 = readHfConfigFile(kDir / "deepseek-v3.json");
        QCOMPARE(v3.notes.size(), std::size_t(1)); // YaRN
        QCOMPARE(v3.model.mtp_num_layers, 1); // num_nextn_predict_layers, costed (docs/moe.md)
    }

    // stratex-cli: --hf-config chooses the model of search (and so of the plan file evaluate and
    // export read); a bad file is named with its key; --model beside it is refused.
    void cli_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrHas");
        const QString qwen = QString::fromStdString((kDir / "qwen3-30b-a3b.json").string());
        QTest::newRow("search") << QStringList { "search", "--hf-config", qwen, "--gpu", "h100-80gb", "--num-nodes", "2",
            "--global-batch-size", "64", "--seq-length", "4096", "--json", "--top", "1", "--out", "{plan}" }
                                << 0 << "";
        QTest::newRow("with --model") << QStringList { "search", "--hf-config", qwen, "--model", "llama2-7b", "--gpu",
            "h100-80gb" } << 2 << "not both";
        QTest::newRow("unsupported model_type")
            << QStringList { "search", "--hf-config", "{bad}", "--gpu", "h100-80gb" } << 1 << "/model_type";
        QTest::newRow("missing file") << QStringList { "search", "--hf-config", "{dir}/none.json", "--gpu", "h100-80gb" }
                                      << 1 << "none.json";
    }
    void cli()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrHas);
        QTemporaryDir dir;
        const QString plan = dir.filePath(QStringLiteral("plan.json"));
        const QString bad = dir.filePath(QStringLiteral("config.json"));
        QVERIFY(test::writeTestFile(bad, R"({"model_type": "bert", "hidden_size": 768})"));
        for (QString& arg : args)
            arg.replace(QStringLiteral("{plan}"), plan).replace(QStringLiteral("{bad}"), bad).replace(
                QStringLiteral("{dir}"), dir.path());
        const test::CliResult r = test::runCli(args);
        QVERIFY2(r.exitCode == exitCode, (QByteArray::number(r.exitCode) + ": " + r.err).constData());
        QVERIFY2(QString::fromUtf8(r.err).contains(stderrHas), r.err.constData());
        if (exitCode != 0)
            return;
        // The plan file carries the config.json's model, the search's sequence length in it.
        const JsonDocument written = JsonDocument::load(plan.toStdString());
        const ModelDescription m = readModel(written.root()["model"]);
        ModelDescription expected = readHfConfigFile(kDir / "qwen3-30b-a3b.json").model;
        expected.seq_length = 4096;
        QVERIFY(m == expected);
        const test::CliResult exported = test::runCli({ "export", "--strategy", plan, "--to", "megatron" });
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QVERIFY(exported.out.contains("--num-experts 128"));
        QVERIFY(exported.out.contains("--kv-channels 128"));
    }

    // The routing facts' rules (Megatron's TransformerConfig checks) and their JSON.
    void routingValidation()
    {
        ModelDescription model = modelPreset("deepseek-v3-style");
        model.validate();
        ModelDescription bad = model;
        bad.moe->num_groups = 7; // 256 experts in 7 groups
        QVERIFY_THROWS_EXCEPTION(Error, bad.validate());
        bad = model;
        bad.moe->group_top_k = 9;
        QVERIFY_THROWS_EXCEPTION(Error, bad.validate());
        bad = model;
        bad.moe->score_function = RouterScore::Softmax; // expert bias needs sigmoid
        QVERIFY_THROWS_EXCEPTION(Error, bad.validate());
        bad = model;
        bad.moe->group_top_k = 0;
        QVERIFY_THROWS_EXCEPTION(Error, bad.validate());

        // A plan file of the preset written before the routing facts keeps the preset's router.
        nlohmann::ordered_json json = toJson(model);
        for (const char* key : { "score_function", "expert_bias", "num_groups", "group_top_k", "scaling_factor" }) {
            QVERIFY2(json["moe"].contains(key), key);
            json["moe"].erase(key);
        }
        const JsonDocument old = JsonDocument::parse(json.dump(), "plan.json");
        QVERIFY(readModel(old.root()) == model);
        // A capacity factor round-trips; a bad routing key names its path.
        model.moe->capacity_factor = 1.25;
        const JsonDocument withCapacity = JsonDocument::parse(toJson(model).dump(), "plan.json");
        QVERIFY(readModel(withCapacity.root()).moe->capacity_factor == std::optional<double>(1.25));
        nlohmann::ordered_json wrong = toJson(model);
        wrong["moe"]["score_function"] = "relu";
        try {
            readModel(JsonDocument::parse(wrong.dump(), "plan.json").root());
            QFAIL("no error");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/moe/score_function"));
        }
    }
};

QTEST_GUILESS_MAIN(TestHfConfig)
#include "tst_hf_config.moc"
