// SPDX-License-Identifier: GPL-3.0-or-later
// The Megatron-Bridge recipe export (core/export/megatron_bridge_recipe.h): every assignment of the
// written file is a field Bridge's dataclasses declare, with a value of the declared type
// (megatron_bridge_fields.h, read from Bridge 067f987d and its Megatron-Core 2a75ac12), over the
// plans of issue 25 (VPP, CP ring and Ulysses, EP + ETP, uneven stages, ZeRO 0-3, recompute
// modules, FP8, GQA, MLA, Galvatron plans); ZB-H1 and GPipe are refused with Megatron-Core's reason;
// strings are escaped; python3 compiles every file.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "core/common/error.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/python_literal.h"
#include "core/megatron/model_state_memory.h"
#include "core/export/plan_export.h"
#include "core/export/plan_file_export.h"

#include "megatron_bridge_fields.h"
#include "plan_file_test_util.h"

using namespace stratex;
using namespace stratex::exporting;
using stratex::test::planOf;
using stratex::test::bridge::PyType;

Q_DECLARE_METATYPE(megatron::PlanFile)

namespace {

megatron::PlanFile withHeadDim(megatron::PlanFile plan, int headDim)
{
    plan.model.head_dim = headDim;
    return plan;
}

struct Assignment {
    std::string path;
    std::string value;
};

// Every `cfg.<path> = <value>` line of stratex_pretrain_config().
std::vector<Assignment> assignments(const std::string& text)
{
    static const QRegularExpression line(QStringLiteral("^    cfg\\.([A-Za-z_][A-Za-z_0-9.]*) = (.*)$"),
        QRegularExpression::MultilineOption);
    std::vector<Assignment> out;
    auto it = line.globalMatch(QString::fromStdString(text));
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out.push_back({ m.captured(1).toStdString(), m.captured(2).toStdString() });
    }
    return out;
}

std::optional<std::string> plainString(const std::string& value)
{
    if (value.size() < 2 || value.front() != '"' || value.back() != '"')
        return std::nullopt;
    const std::string inner = value.substr(1, value.size() - 2);
    if (inner.find_first_of("\"\\") != std::string::npos)
        return std::nullopt;
    return inner;
}

bool chosen(const test::bridge::Field& field, const std::string& name)
{
    return field.choices.empty() || std::find(field.choices.begin(), field.choices.end(), name) != field.choices.end();
}

// Whether `value` (a Python expression as written) has the field's declared type; `why` otherwise.
bool fits(const test::bridge::Field& field, PyType type, const std::string& value, std::string* why)
{
    static const QRegularExpression integer(QStringLiteral("^-?[0-9]+$"));
    static const QRegularExpression real(QStringLiteral("^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$"));
    static const QRegularExpression strList(QStringLiteral("^\\[(\"[a-z_0-9+]+\"(, \"[a-z_0-9+]+\")*)?\\]$"));
    static const QRegularExpression freq(QStringLiteral("^\\[0\\] \\* [0-9]+ \\+ \\[1\\] \\* [0-9]+$"));
    const QString v = QString::fromStdString(value);
    const bool isNone = value == "None";
    const bool isInt = integer.match(v).hasMatch();
    const auto str = plainString(value);
    bool ok = false;
    switch (type) {
    case PyType::Int:
        ok = isInt;
        break;
    case PyType::OptInt:
        ok = isInt || isNone;
        break;
    case PyType::Float:
        ok = real.match(v).hasMatch() && v.contains(QRegularExpression(QStringLiteral("[.e]")));
        break;
    case PyType::Bool:
        ok = value == "True" || value == "False";
        break;
    case PyType::Str:
        ok = str && chosen(field, *str);
        break;
    case PyType::OptStr:
        ok = isNone || (str && chosen(field, *str));
        break;
    case PyType::OptStrList:
        ok = isNone || strList.match(v).hasMatch();
        if (ok && !isNone) {
            for (const QString& item : v.mid(1, v.size() - 2).split(QStringLiteral(", "), Qt::SkipEmptyParts))
                ok = ok && chosen(field, item.mid(1, item.size() - 2).toStdString());
        }
        break;
    case PyType::IntOrIntList:
        ok = isInt || freq.match(v).hasMatch();
        break;
    case PyType::OptIntList: {
        static const QRegularExpression intList(QStringLiteral("^\\[[0-9]+(, [0-9]+)*\\]$"));
        ok = isNone || intList.match(v).hasMatch();
        break;
    }
    case PyType::Callable:
        ok = value == "F.silu" || value == "F.gelu";
        break;
    case PyType::AttnBackend:
        ok = value.starts_with("AttnBackend.") && chosen(field, value.substr(12));
        break;
    case PyType::TorchDtype:
        ok = value.starts_with("torch.") && chosen(field, value.substr(6));
        break;
    case PyType::CommOverlap: {
        // CommOverlapConfig(name=True|False, ...) with names among the field's.
        static const QRegularExpression call(QStringLiteral("^CommOverlapConfig\\((.*)\\)$"));
        const QRegularExpressionMatch m = call.match(v);
        ok = m.hasMatch();
        for (const QString& kw : ok ? m.captured(1).split(QStringLiteral(", ")) : QStringList()) {
            const QString name = kw.section(QLatin1Char('='), 0, 0);
            const QString arg = kw.section(QLatin1Char('='), 1);
            ok = ok && chosen(field, name.toStdString()) && (arg == QLatin1String("True") || arg == QLatin1String("False"));
        }
        break;
    }
    }
    if (!ok && why)
        *why = "cfg." + std::string(field.path) + " = " + value + " is not of the declared type";
    return ok;
}

// Every assignment is a known field with a value of its type, none twice; the provider and the
// mixed-precision factory are Bridge's. Returns the assignments by path.
std::map<std::string, std::string> checkedFields(const std::string& text)
{
    std::map<std::string, std::string> byPath;
    std::string provider;
    for (const Assignment& a : assignments(text)) {
        if (a.path == "model") {
            provider = a.value;
            const std::string name = a.value.substr(0, a.value.find('('));
            const auto& known = test::bridge::providers();
            if (a.value != name + "()" || std::find(known.begin(), known.end(), name) == known.end())
                qFatal("cfg.model = %s is no provider", a.value.c_str());
            continue;
        }
        if (a.path == "mixed_precision") {
            const std::string name = a.value.substr(0, a.value.find('('));
            const auto& known = test::bridge::mixedPrecisionFactories();
            if (a.value != name + "()" || std::find(known.begin(), known.end(), name) == known.end())
                qFatal("cfg.mixed_precision = %s is no factory", a.value.c_str());
            continue;
        }
        const test::bridge::Field* field = nullptr;
        for (const test::bridge::Field& f : test::bridge::fields())
            field = f.path == a.path ? &f : field;
        if (!field)
            qFatal("cfg.%s is not a field of Bridge's dataclasses", a.path.c_str());
        PyType type = field->type;
        if (a.path == "model.rotary_base" && provider == "MLAModelProvider()")
            type = test::bridge::mlaRotaryBaseType();
        std::string why;
        if (!fits(*field, type, a.value, &why))
            qFatal("%s", why.c_str());
        if (!byPath.emplace(a.path, a.value).second)
            qFatal("cfg.%s assigned twice", a.path.c_str());
    }
    return byPath;
}

std::vector<std::string> items(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& item : text.split(QLatin1Char(';'), Qt::SkipEmptyParts))
        out.push_back(item.trimmed().toStdString());
    return out;
}

// The plans of issue 25 that Bridge takes, with what their recipes must say.
struct Scenario {
    const char* name;
    megatron::PlanFile plan;
    const char* expect; // "path=value" items, ';'-separated
    const char* note; // a part of a note, "" for none at all
};

std::vector<Scenario> scenarios()
{
    return {
        { "VPP 5, distributed optimizer, selective recompute",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8,
                "tp=8 pp=4 vpp=5 dp=2 sp=1 zero=1 recompute=selective mbs=1 gbs=128 schedule=interleaved"),
            "model.virtual_pipeline_model_parallel_size=5;model.pipeline_model_parallel_layout=None;"
            "ddp.use_distributed_optimizer=True;optimizer.use_distributed_optimizer=True;"
            "model.hidden_dropout=0.0;model.attention_dropout=0.0;"
            "ddp.data_parallel_sharding_strategy=\"no_shard\";ddp.overlap_param_gather=True;"
            "model.recompute_granularity=\"selective\";model.recompute_modules=[\"core_attn\"];"
            "model.num_query_groups=8;model.rotary_base=500000;model.rope_scaling=False",
            "" },
        { "uneven first and last stages",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8,
                "tp=8 pp=4 vpp=2 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved first=18 last=18"),
            "model.num_layers_in_first_pipeline_stage=18;model.num_layers_in_last_pipeline_stage=18;"
            "model.virtual_pipeline_model_parallel_size=2;model.pipeline_model_parallel_layout=None",
            "" },
        { "uneven stages as a layout",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8,
                "tp=8 pp=4 vpp=2 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved first=19 last=17"),
            // The first rank's lighter chunk is its first, beside the embedding (chunkLayerCounts).
            "model.pipeline_model_parallel_layout=\"Et*9|t*11|t*11|t*9|t*10|t*11|t*11|t*8L\";"
            "model.virtual_pipeline_model_parallel_size=2;model.num_layers_in_first_pipeline_stage=None",
            "" },
        { "remainder on the last stage",
            planOf("llama2-13b", 30, 4096, "a100-80gb", 1, "tp=2 pp=4 dp=1 sp=1 gbs=16 last=9"),
            "model.num_layers_in_last_pipeline_stage=9;model.virtual_pipeline_model_parallel_size=None", "" },
        { "CP ring, ZeRO-3 as Megatron-FSDP, full recompute",
            planOf("llama3-8b", 0, 32768, "h100-80gb", 2, "tp=2 cp=4 dp=2 sp=1 zero=3 recompute=full gbs=16"),
            "model.context_parallel_size=4;model.cp_comm_type=\"p2p\";ddp.use_megatron_fsdp=True;"
            "dist.use_megatron_fsdp=True;ddp.data_parallel_sharding_strategy=\"optim_grads_params\";"
            "checkpoint.ckpt_format=\"fsdp_dtensor\";model.recompute_granularity=\"full\";"
            "model.recompute_method=\"uniform\";model.recompute_num_layers=1;dataset.seq_length=32768",
            "" },
        { "CP Ulysses",
            planOf("llama2-7b", 0, 32768, "h100-80gb", 2, "tp=2 cp=4 cpcomm=a2a dp=2 sp=1 zero=1 gbs=16"),
            "model.cp_comm_type=\"a2a\";model.context_parallel_size=4;model.rotary_base=10000", "" },
        { "CP hierarchical a2a+p2p (issue 22): a2a in the node, the ring across",
            planOf("llama2-7b", 0, 65536, "h100-80gb", 2, "tp=2 cp=8 cpcomm=a2a+p2p dp=1 sp=1 zero=1 gbs=8"),
            "model.cp_comm_type=\"a2a+p2p\";model.context_parallel_size=8;"
            "model.hierarchical_context_parallel_sizes=[4, 2]",
            "" },
        { "ZeRO-0: plain DDP", planOf("llama2-7b", 0, 0, "a100-80gb", 2, "tp=1 pp=2 dp=8 zero=0 gbs=64"),
            "ddp.use_distributed_optimizer=False;optimizer.use_distributed_optimizer=False;"
            "ddp.overlap_param_gather=False;optimizer.overlap_param_gather=False;ddp.use_megatron_fsdp=False;"
            "ddp.data_parallel_sharding_strategy=\"no_shard\";ddp.overlap_grad_reduce=True",
            "" },
        { "ZeRO-2 as Megatron-FSDP optim_grads",
            planOf("llama2-7b", 0, 0, "a100-80gb", 2, "tp=1 pp=2 dp=8 zero=2 gbs=64"),
            "ddp.use_megatron_fsdp=True;ddp.data_parallel_sharding_strategy=\"optim_grads\";"
            "ddp.use_distributed_optimizer=True",
            "" },
        { "EP 4, ETP 1, all-to-all",
            planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4, "tp=2 pp=4 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=64"),
            "model.expert_model_parallel_size=4;model.expert_tensor_parallel_size=1;"
            "model.moe_token_dispatcher_type=\"alltoall\";model.num_moe_experts=8;model.moe_router_topk=2;"
            "model.rotary_base=1000000",
            "" },
        { "ETP 2 with TP 2, no SP: SP turned on",
            planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4, "tp=2 pp=4 ep=2 etp=2 dp=4 sp=0 zero=1 gbs=64"),
            "model.expert_tensor_parallel_size=2;model.sequence_parallel=True", "sequence parallelism on" },
        { "recompute modules: layernorm and MoE activation, FP8",
            planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4,
                "tp=2 pp=4 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=64 recompute=selective modules=layernorm,moe_act "
                "precision=fp8"),
            "model.recompute_modules=[\"layernorm\", \"moe_act\"];model.moe_grouped_gemm=True;"
            "mixed_precision.fp8=\"hybrid\";mixed_precision.fp8_recipe=\"tensorwise\"",
            "" },
        // The plan's recipe (docs/kernels.md §8): a Megatron-Core plan's default, delayed; an explicit one.
        { "FP8 recipe: Megatron-Core default, delayed",
            planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32"),
            "mixed_precision.fp8=\"hybrid\";mixed_precision.fp8_recipe=\"delayed\"", "" },
        { "FP8 recipe: blockwise",
            planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32 recipe=blockwise"),
            "mixed_precision.fp8_recipe=\"blockwise\"", "" },
        { "FP8, unfused attention, full recompute in groups",
            planOf("llama2-7b", 0, 0, "h100-80gb", 1,
                "tp=2 pp=2 dp=2 sp=1 precision=fp8 flash=0 recompute=full groups=2 gbs=32 overlap=0"),
            "model.attention_backend=AttnBackend.unfused;model.recompute_num_layers=2;"
            "mixed_precision.fp8=\"hybrid\";ddp.overlap_grad_reduce=False",
            "" },
        { "bf16 main gradients and optimizer states",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 grads=bf16 optim=bf16"),
            "mixed_precision.grad_reduce_in_fp32=False;optimizer.use_precision_aware_optimizer=True;"
            "optimizer.exp_avg_dtype=torch.bfloat16;optimizer.exp_avg_sq_dtype=torch.bfloat16;"
            "model.gradient_accumulation_fusion=True",
            "" },
        // Bridge's default is detected where the run starts (utils/fusions.py): written both ways.
        { "gradient-accumulation fusion off",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 fusion=0"),
            "model.gradient_accumulation_fusion=False", "" },
        // Bridge's GPTModelProvider fuses the loss by default, Megatron-Core does not: written both ways.
        { "fused cross-entropy loss on",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 cefusion=1"),
            "model.cross_entropy_loss_fusion=True", "" },
        { "fused cross-entropy loss off (the plan's default)",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64"),
            "model.cross_entropy_loss_fusion=False", "" },
        { "TP communication overlap: CommOverlapConfig",
            planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 tpoverlap=1"),
            "comm_overlap=CommOverlapConfig(tp_comm_overlap=True);model.sequence_parallel=True", "" },
        { "FP16", planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=2 dp=2 precision=fp16 gbs=16"),
            "model.tensor_model_parallel_size=2", "" },
        // What the GPU runs (docs/kernels.md §10): Volta has no BF16 and no flash or cuDNN fused
        // attention, Ampere no FP8; the recipe writes what Bridge runs there and says so.
        { "V100: bf16 and flash2 planned, fp16 and unfused written",
            planOf("llama2-7b", 8, 4096, "v100-32gb", 1, "tp=2 pp=2 dp=2 gbs=16 kernel=flash2"),
            "model.attention_backend=AttnBackend.unfused",
            "Megatron-Bridge: bf16 on v100-32gb: Volta (sm70) has FP16 tensor cores only" },
        { "A100: fp8 planned, bf16 written", planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16 precision=fp8"),
            "model.tensor_model_parallel_size=2", "Megatron-Bridge: fp8 on a100-80gb: no FP8 tensor cores" },
        { "ZeRO with one data-parallel rank, QKV bias",
            planOf("qwen2.5-7b", 0, 0, "h100-80gb", 1, "tp=4 pp=2 dp=1 sp=1 zero=1 gbs=16"),
            "model.add_qkv_bias=True;model.add_bias_linear=False;model.num_query_groups=4;"
            "ddp.use_distributed_optimizer=False",
            "nothing to shard" },
        { "Llama 3.1: RoPE scaling", planOf("llama3.1-70b", 0, 0, "h100-80gb", 4, "tp=8 pp=4 dp=1 gbs=16"),
            "model.rope_scaling=True;model.rope_scaling_factor=8.0;model.rotary_base=500000",
            "Megatron-Bridge: the plan does not fit" },
        { "GQA: Llama 3 8B", planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"),
            "model.num_query_groups=8;model.num_attention_heads=32;model.normalization=\"RMSNorm\";"
            "model.gated_linear_unit=True;model.activation_func=F.silu;model.vocab_size=128256;"
            "model.should_pad_vocab=False;tokenizer.vocab_size=128256",
            "" },
        { "MLA: DeepSeek-V3 style",
            planOf("deepseek-v3-style", 8, 4096, "h100-80gb", 2, "tp=2 pp=2 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=32"),
            "model.multi_latent_attention=True;model.q_lora_rank=1536;model.kv_lora_rank=512;model.qk_head_dim=128;"
            "model.qk_pos_emb_head_dim=64;model.v_head_dim=128;model.qk_layernorm=True;model.rope_type=\"rope\";"
            "model.rotary_base=10000.0;model.moe_layer_freq=[0] * 3 + [1] * 5;"
            "model.moe_shared_expert_intermediate_size=2048;model.moe_router_score_function=\"sigmoid\";"
            "model.moe_router_enable_expert_bias=True;model.moe_router_topk_scaling_factor=2.5;"
            "model.moe_router_num_groups=8;model.moe_router_group_topk=4",
            "Megatron-Bridge: the plan does not fit" },
        // TransformerConfig.kv_channels (transformer_config.py): heads x kv_channels is the
        // attention's width; Qwen 3 and gpt-oss have it apart from hidden_size.
        { "head_dim apart from hidden / heads",
            withHeadDim(planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"), 256),
            "model.kv_channels=256;model.num_attention_heads=32;model.hidden_size=4096", "" },
        { "GPT-3: learned positions, biases",
            planOf("gpt3-13b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"),
            "model.position_embedding_type=\"learned_absolute\";model.add_bias_linear=True;"
            "model.gated_linear_unit=False;model.activation_func=F.gelu;model.normalization=\"LayerNorm\"",
            "" },
    };
}

} // namespace

class TestMegatronBridgeRecipe : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fieldTableIsFromTheSources();
    void assignsOnlyKnownFields_data();
    void assignsOnlyKnownFields();
    void refused_data();
    void refused();
    void galvatronPlans();
    void pythonStrings_data();
    void pythonStrings();
    void craftedNamesStayInTheirLiterals();
    void pyCompiles();
    void allocatorConfiguredBeforeTorch();
};

void TestMegatronBridgeRecipe::fieldTableIsFromTheSources()
{
    // The checker must be able to fail: an unknown field, a wrong type, a value out of a Literal.
    const auto& table = test::bridge::fields();
    const test::bridge::Field* cp = nullptr;
    for (const test::bridge::Field& f : table)
        cp = f.path == "model.cp_comm_type" ? &f : cp;
    QVERIFY(cp);
    QVERIFY(fits(*cp, cp->type, "\"a2a\"", nullptr));
    QVERIFY(!fits(*cp, cp->type, "\"ulysses\"", nullptr)); // Bridge has no such cp_comm_type
    QVERIFY(!fits(*cp, cp->type, "2", nullptr));
    const test::bridge::Field tp { "model.tensor_model_parallel_size", PyType::Int, {} };
    QVERIFY(!fits(tp, tp.type, "\"4\"", nullptr));
    QVERIFY(!fits(tp, tp.type, "None", nullptr));
    const test::bridge::Field factor { "model.rope_scaling_factor", PyType::Float, {} };
    QVERIFY(fits(factor, factor.type, "8.0", nullptr));
    QVERIFY(!fits(factor, factor.type, "8", nullptr));
    QVERIFY(assignments("    cfg.model.zero_stage = 3\n").size() == 1);
}

void TestMegatronBridgeRecipe::assignsOnlyKnownFields_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect");
    QTest::addColumn<QString>("note");
    for (const Scenario& s : scenarios())
        QTest::newRow(s.name) << s.plan << QString::fromUtf8(s.expect) << QString::fromUtf8(s.note);
}

void TestMegatronBridgeRecipe::assignsOnlyKnownFields()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(QString, note);
    const ExportedFile file = exportPlanFile(ExportFormat::MegatronBridge, plan);
    QVERIFY(!file.executable);
    const std::map<std::string, std::string> fields = checkedFields(file.text);
    for (const std::string& item : items(expect)) {
        const std::string path = item.substr(0, item.find('='));
        QVERIFY2(fields.contains(path), item.c_str());
        QCOMPARE(QString::fromStdString(fields.at(path)), QString::fromStdString(item.substr(item.find('=') + 1)));
    }
    // The parallel degrees and the model's shape are always written.
    for (const char* path : { "model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
             "model.context_parallel_size", "model.sequence_parallel", "model.num_layers", "model.hidden_size",
             "model.ffn_hidden_size", "model.num_attention_heads", "model.seq_length", "train.micro_batch_size",
             "train.global_batch_size", "ddp.use_distributed_optimizer" })
        QVERIFY2(fields.contains(path), path);
    QCOMPARE(fields.at("model.tensor_model_parallel_size"), std::to_string(plan.strategy.tp));
    QCOMPARE(fields.at("model.pipeline_model_parallel_size"), std::to_string(plan.strategy.pp));
    QCOMPARE(fields.at("model.num_layers"), std::to_string(plan.model.num_layers));
    QCOMPARE(fields.at("train.global_batch_size"), std::to_string(plan.strategy.global_batch_size));
    QCOMPARE(fields.at("model.vocab_size"), std::to_string(plan.model.paddedVocabSize(plan.strategy.tp)));
    // Notes: the expected one, or none; each is also a comment of the file.
    const std::string notes = test::joined(file.notes);
    if (note.isEmpty())
        QVERIFY2(file.notes.empty(), notes.c_str());
    else
        QVERIFY2(notes.find(note.toStdString()) != std::string::npos, notes.c_str());
    for (const ExportNote& n : file.notes) {
        QVERIFY2(n.text.starts_with("Megatron-Bridge"), n.text.c_str());
        const std::string body = n.text.substr(n.text.find(": ") + 2);
        QVERIFY2(file.text.find(body) != std::string::npos, n.text.c_str());
    }
    // Same plan, same bytes.
    QCOMPARE(exportPlanFile(ExportFormat::MegatronBridge, plan).text, file.text);
}

void TestMegatronBridgeRecipe::refused_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("reason");
    QTest::newRow("ZB-H1: Megatron-Core has no zero-bubble schedule")
        << planOf("llama2-13b", 0, 0, "a100-80gb", 2, "tp=4 pp=4 dp=1 sp=1 gbs=32 schedule=zb-h1")
        << "ZB-H1 cannot be expressed: Bridge trains with Megatron-Core's schedules";
    megatron::PlanFile gpipe = planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 dp=1 gbs=8");
    gpipe.gpipe = true;
    QTest::newRow("GPipe") << gpipe << "\"schedule\": \"gpipe\" cannot be expressed";
    QTest::newRow("Megatron's rules: heads over tp")
        << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=3 pp=1 dp=2 gbs=16") << "Megatron-Bridge";
}

void TestMegatronBridgeRecipe::refused()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, reason);
    try {
        exportPlanFile(ExportFormat::MegatronBridge, plan);
        QFAIL("exported");
    } catch (const Error& error) {
        const std::string what = error.what();
        QVERIFY2(what.starts_with("plan.json: not exported to Megatron-Bridge"), what.c_str());
        QVERIFY2(what.find(reason.toStdString()) != std::string::npos, what.c_str());
    }
}

void TestMegatronBridgeRecipe::galvatronPlans()
{
    // A searched Galvatron plan: what Megatron-Core runs of its per-layer strategies, every field known.
    const galvatron::Plan plan = test::searched(36, 16);
    const ExportedFile file = exportPlan(
        ExportFormat::MegatronBridge, plan, test::llamaSettings(36, 16), { test::llama7b(), std::nullopt, nullptr });
    const std::map<std::string, std::string> fields = checkedFields(file.text);
    QCOMPARE(fields.at("model.pipeline_model_parallel_size"), std::to_string(plan.pp));
    QCOMPARE(fields.at("train.global_batch_size"), std::to_string(plan.gbsz));
    QCOMPARE(fields.at("model.num_layers"), "32");
    for (const ExportNote& n : file.notes)
        QVERIFY2(n.text.find("Megatron-LM") == std::string::npos, n.text.c_str());
    QVERIFY_THROWS_EXCEPTION(Error, exportPlan(ExportFormat::MegatronBridge, plan, test::llamaSettings(36, 16)));
}

void TestMegatronBridgeRecipe::pythonStrings_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("literal");
    QTest::newRow("plain") << QByteArray("llama3-70b") << "\"llama3-70b\"";
    QTest::newRow("quote and backslash") << QByteArray("a\"b\\c") << "\"a\\\"b\\\\c\"";
    QTest::newRow("newline ends no literal") << QByteArray("x\nimport os") << "\"x\\nimport os\"";
    QTest::newRow("carriage return, tab") << QByteArray("a\rb\tc") << "\"a\\rb\\tc\"";
    QTest::newRow("other controls and DEL") << QByteArray("a\x01\x1b\x7f", 4) << "\"a\\x01\\x1b\\x7f\"";
    QTest::newRow("NUL") << QByteArray("a\0b", 3) << "\"a\\x00b\"";
    QTest::newRow("UTF-8 as \\u escapes") << QByteArray("modèle") << QString("\"mod\\u00e8le\"");
    QTest::newRow("triple quotes") << QByteArray("\"\"\"") << "\"\\\"\\\"\\\"\"";
}

void TestMegatronBridgeRecipe::pythonStrings()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, literal);
    QCOMPARE(QString::fromStdString(pythonString(std::string_view(text.constData(), std::size_t(text.size())))),
        literal);
}

void TestMegatronBridgeRecipe::craftedNamesStayInTheirLiterals()
{
    // A model name that tries to end the string, the comment and the function.
    megatron::PlanFile plan = planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    plan.model.name = "evil\"\n    cfg.model.zero_stage = 3\r\n__import__('os').system('x') # \\";
    const ExportedFile file = exportPlanFile(ExportFormat::MegatronBridge, plan);
    const std::map<std::string, std::string> fields = checkedFields(file.text); // no model.zero_stage
    QVERIFY(!fields.contains("model.zero_stage"));
    QVERIFY(file.text.find("\n__import__") == std::string::npos);
    QVERIFY(file.text.find("\"model\": " + pythonString(plan.model.name) + ",\n") != std::string::npos);
    // Floats read back as floats.
    QCOMPARE(pythonFloat(8), "8.0");
    QCOMPARE(pythonFloat(0.1), "0.1");
    QCOMPARE(pythonFloat(1e300), "1e+300");
}

void TestMegatronBridgeRecipe::pyCompiles()
{
    // /usr/bin/python3 compiles every written recipe, and its own parser finds the assignments this
    // suite checked (no line the C++ reading missed or misread).
    const QString python = QStringLiteral("/usr/bin/python3");
    if (!QFileInfo(python).isExecutable())
        QSKIP("/usr/bin/python3 is not installed");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<std::pair<QString, std::string>> files;
    int n = 0;
    for (const Scenario& s : scenarios())
        files.emplace_back(dir.filePath(QStringLiteral("recipe_%1.py").arg(n++)),
            exportPlanFile(ExportFormat::MegatronBridge, s.plan).text);
    megatron::PlanFile crafted = planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    crafted.model.name = "evil\"\n    cfg.x = 1\r\n'''\"\"\"\x01\\";
    files.emplace_back(dir.filePath(QStringLiteral("crafted.py")), exportPlanFile(ExportFormat::MegatronBridge, crafted).text);
    files.emplace_back(dir.filePath(QStringLiteral("galvatron.py")),
        exportPlan(ExportFormat::MegatronBridge, test::searched(36, 16), test::llamaSettings(36, 16),
            { test::llama7b(), std::nullopt, nullptr })
            .text);
    static const char* dump = "import ast, sys\n"
                              "tree = ast.parse(open(sys.argv[1], encoding='utf-8').read())\n"
                              "for node in ast.walk(tree):\n"
                              "    if isinstance(node, ast.Assign) and len(node.targets) == 1:\n"
                              "        t = node.targets[0]\n"
                              "        parts = []\n"
                              "        while isinstance(t, ast.Attribute):\n"
                              "            parts.insert(0, t.attr)\n"
                              "            t = t.value\n"
                              "        if isinstance(t, ast.Name) and t.id == 'cfg' and parts:\n"
                              "            print('.'.join(parts) + '=' + ast.unparse(node.value))\n";
    for (const auto& [path, text] : files) {
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text.data(), qint64(text.size()));
        out.close();
        QProcess compile;
        compile.start(python, { QStringLiteral("-m"), QStringLiteral("py_compile"), path });
        QVERIFY(compile.waitForFinished(60000));
        QVERIFY2(compile.exitCode() == 0, (path + ": " + QString::fromUtf8(compile.readAllStandardError())).toUtf8());
        QProcess parse;
        parse.start(python, { QStringLiteral("-c"), QString::fromLatin1(dump), path });
        QVERIFY(parse.waitForFinished(60000));
        QVERIFY2(parse.exitCode() == 0, parse.readAllStandardError().constData());
        QStringList fromPython = QString::fromUtf8(parse.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QStringList fromSuite;
        for (const Assignment& a : assignments(text))
            fromSuite << QString::fromStdString(a.path + "=" + a.value);
        // ast.unparse writes strings in single quotes: compare the paths, and the values that are not strings.
        QCOMPARE(fromPython.size(), fromSuite.size());
        for (qsizetype i = 0; i < fromPython.size(); ++i) {
            QCOMPARE(fromPython[i].section('=', 0, 0), fromSuite[i].section('=', 0, 0));
            if (!fromSuite[i].contains('"'))
                QCOMPARE(fromPython[i], fromSuite[i]);
        }
    }
}

void TestMegatronBridgeRecipe::allocatorConfiguredBeforeTorch()
{
    // Stratex costs a Megatron-Bridge plan's device memory with expandable segments, as NVIDIA's
    // Bridge performance launcher runs it (launcherExpandableSegments): the script sets them before
    // torch is imported (the allocator reads PYTORCH_CUDA_ALLOC_CONF once), keeping a user's own.
    for (const Scenario& s : scenarios()) {
        const std::string text = exportPlanFile(ExportFormat::MegatronBridge, s.plan).text;
        const std::size_t env = text.find("os.environ.setdefault(\"PYTORCH_CUDA_ALLOC_CONF\", \"expandable_segments:True\")");
        const std::size_t torch = text.find("\nimport torch");
        QVERIFY2(env != std::string::npos, s.name);
        QVERIFY2(torch != std::string::npos && env < torch, s.name);
        QVERIFY(text.find("import os\n") < env);
    }
    QVERIFY(megatron::launcherExpandableSegments(megatron::Framework::MegatronBridge, 4));
}

QTEST_GUILESS_MAIN(TestMegatronBridgeRecipe)
#include "tst_megatron_bridge_recipe.moc"
