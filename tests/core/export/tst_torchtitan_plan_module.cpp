// SPDX-License-Identifier: GPL-3.0-or-later
// What the torchtitan main export (torchtitan_module.h) writes for a plan: the config function's
// assignments, the flavour it registers, its notes and the layers of each model part; a Galvatron
// plan's per-layer recompute; the routes (CLI, GUI) that write it and the version names.
#include <QTest>

#include "core/export/plan_export.h"
#include "core/export/plan_file_export.h"
#include "core/export/python_literal.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/shell_quote.h"
#include "core/export/torchtitan_module.h"

#include "plan_file_test_util.h"
#include "torchtitan_module_reader.h"
#include "torchtitan_test_plans.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;
using namespace stratex::test::torchtitan_read;
using namespace stratex::test::torchtitan_plans;

class TestTorchtitanPlanModule : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void planFile_data();
    void planFile();
    void galvatronRecomputeIsPerLayer();
    void theRoutedExportsAreMain();
    void versionNames();
};

void TestTorchtitanPlanModule::planFile_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // "key=value" assignments of the config function, ';'-separated
    QTest::addColumn<QString>("written"); // other text the module holds, ';'-separated
    QTest::addColumn<QString>("notes"); // parts of the notes, ';'-separated
    QTest::addColumn<QString>("parts"); // layers per model part, ',' separated ("" without PP)
    QTest::newRow("VPP: Interleaved1F1B over 4 parts, token batch")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 vpp=2 dp=2 sp=1 mbs=2 gbs=32 schedule=interleaved")
        << "parallelism.pipeline_parallel_schedule=\"Interleaved1F1B\";parallelism.num_pp_microbatches=8;"
           "training.num_tokens_per_microbatch_per_dp_rank=16384;training.num_tokens_per_train_step=262144;"
           "training.max_context_length=8192;parallelism.data_parallel_replicate_degree=2;"
           "parallelism.enable_sequence_parallel=True;activation_checkpoint=None"
        << "model_registry(\"8B\")" << "" << "8,8,8,8";
    QTest::newRow("TP communication overlap: AsyncTP with compile")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=4 dp=2 sp=1 zero=3 gbs=16 tpoverlap=1")
        << "compile.enable=True;compile.enable_async_tensor_parallel=True;parallelism.tensor_parallel_degree=4"
        << "" << "" << "";
    // Megatron-Core's --no-gradient-accumulation-fusion has no torchtitan counterpart: said.
    QTest::newRow("gradient-accumulation fusion off: said")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=3 gbs=16 fusion=0")
        << "parallelism.tensor_parallel_degree=2" << "" << "gradient-accumulation fusion off planned" << "";
    QTest::newRow("CP ring: FSDP over CP, the flex load balancer")
        << planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 zero=0 gbs=8")
        << "parallelism.context_parallel_degree=2;parallelism.context_parallel_load_balancer=\"ptrr\";"
           "parallelism.data_parallel_replicate_degree=2"
        << "" << "shards the weights over the CP ranks" << "";
    QTest::newRow("CP Ulysses: ring, said")
        << planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 cpcomm=a2a zero=3 gbs=8")
        << "parallelism.context_parallel_degree=2" << "" << "only has ring attention" << "";
    QTest::newRow("EP 16, ETP 1: exact")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024")
        << "parallelism.expert_parallel_degree=16;training.disable_cuda_graphs=True"
        << "from torchtitan.models.deepseek_v3 import model_registry;"
           "_dsv3.deepseekv3_configs[\"stratex-deepseek-v3-style\"] = _stratex_flavor;"
           "model_registry(\"stratex-deepseek-v3-style\");n_layers=61,;n_dense_layers=3,;n_heads=128,;"
           "q_lora_rank=1536,;kv_lora_rank=512,;qk_nope_head_dim=128,;qk_rope_head_dim=64,;v_head_dim=128,;"
           "dense_hidden_dim=18432,;moe_hidden_dim=2048,;num_experts=256,;num_shared_experts=1,;router_top_k=8,;"
           "router_score_func=\"sigmoid\",;router_num_expert_groups=8,;router_num_limited_groups=4,;"
           "router_route_scale=2.5,;router_route_norm=True,;dim=64,;max_context_length=4096,;theta=10000.0,;"
           "scaling=\"none\",;hf_assets_path=\"./assets/hf/DeepSeek-V3.1-Base\""
        << "ZeRO-1: torchtitan's FSDP2" << "8,8,8,8,8,7,7,7";
    QTest::newRow("DeepSeek-V2-Lite: q_lora_rank 0, softmax without expert bias, 2 shared experts")
        << v2LitePlan() << "parallelism.expert_parallel_degree=8;parallelism.tensor_parallel_degree=2"
        << "model_registry(\"stratex-deepseek-v2-lite\");q_lora_rank=0,;n_dense_layers=1,;num_experts=64,;"
           "num_shared_experts=2,;moe_hidden_dim=1408,;router_top_k=6,;router_score_func=\"softmax\",;"
           "router_num_expert_groups=None,;router_route_scale=1.0,;router_route_norm=False,;"
           "layer.moe.load_balance_coeff = None;hf_assets_path=\"./assets/hf/deepseek-moe-16b-base\""
        << "ZeRO-1: torchtitan's FSDP2" << "";
    QTest::newRow("MLA with QK norm: refused, naming the field")
        << mlaWithQkNorm() << "" << "raise ValueError(" << "QK norm, which deepseek_v3's attention does not have"
        << "";
    QTest::newRow("DeepSeek with CP: FlexAttention's load balancer (v0.2 refused it at startup)")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 cp=2 pp=8 ep=16 dp=16 zero=1 gbs=1024")
        << "parallelism.context_parallel_degree=2;parallelism.context_parallel_load_balancer=\"ptrr\";"
           "parallelism.expert_parallel_degree=16;parallelism.data_parallel_shard_degree=16"
        << "" << "ZeRO-1: torchtitan's FSDP2" << "8,8,8,8,8,7,7,7";
    QTest::newRow("EP + ETP 2: refused, main has no expert TP")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=2 pp=8 ep=8 etp=2 dp=16 sp=1 zero=1 gbs=1024")
        << "parallelism.expert_parallel_degree=8" << "raise ValueError(" << "no expert tensor parallelism"
        << "8,8,8,8,8,7,7,7";
    QTest::newRow("uneven stages")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 first=6 last=10 zero=2 gbs=16")
        << "parallelism.pipeline_parallel_schedule=\"1F1B\"" << "" << "" << "6,8,8,10";
    QTest::newRow("ZeRO-0: DDP through the replicate mesh")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=0 gbs=16")
        << "parallelism.data_parallel_replicate_degree=4;parallelism.data_parallel_shard_degree=1" << "" << "" << "";
    QTest::newRow("ZeRO-1: FSDP never resharding, said")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=1 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"never\""
        << "" << "ZeRO-1: torchtitan's FSDP2" << "";
    QTest::newRow("ZeRO-2: FSDP never resharding")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=2 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"never\"" << "" << ""
        << "";
    QTest::newRow("ZeRO-3: FSDP resharding")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=3 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"always\"" << "" << ""
        << "";
    QTest::newRow("recompute modules: the plan's submodules")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1,
               "tp=2 pp=2 dp=2 sp=1 zero=2 recompute=selective modules=core_attn,mlp gbs=16")
        << "activation_checkpoint=FullAC.Config();override.imports=[__name__ + \".stratex_recompute\"]"
        << "modules=[\"attention.inner_attention\", \"feed_forward\"]" << "" << "16,16";
    QTest::newRow("FP8 MoE: the grouped-GEMM converter")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 precision=fp8 gbs=1024")
        << "parallelism.expert_parallel_degree=16"
        << "Float8GroupedExpertsConverter.Config(),;Float8LinearConverter.Config(filter_fqns=[\"lm_head\", "
           "\"router.gate\"])"
        << "rowwise" << "8,8,8,8,8,7,7,7";
    QTest::newRow("ZB-H1: the schedule CSV")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 zero=1 gbs=16 schedule=zb-h1")
        << "parallelism.pipeline_parallel_schedule=\"PipelineScheduleSingle\";"
           "parallelism.pipeline_parallel_schedule_csv=\"pipeline_schedule.csv\""
        << "" << "ZB-H1 runs the schedule CSV" << "8,8,8,8";
    QTest::newRow("GPipe") << gpipePlan() << "parallelism.pipeline_parallel_schedule=\"GPipe\"" << "" << ""
                           << "16,16";
    QTest::newRow("Llama 2: its own flavour, no note")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << ""
        << "_llama3.llama3_configs[\"stratex-llama2-7b\"] = _stratex_flavor;n_kv_heads=32,;hidden_dim=11008,;"
           "theta=10000.0,;scaling=\"none\",;model_registry(\"stratex-llama2-7b\")"
        << "" << "16,16";
    QTest::newRow("Llama 3 without RoPE scaling: its own flavour")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << ""
        << "theta=500000.0,;scaling=\"none\",;n_kv_heads=8," << "" << "16,16";
    // llama3's Attention takes head_dim = dim // n_heads: 32 heads of 256 next to dim 4096 is refused.
    megatron::PlanFile wideHeads = planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    wideHeads.model.head_dim = 256;
    QTest::newRow("head_dim apart from dim / n_heads: refused, naming the field")
        << wideHeads << "" << "raise ValueError(" << "head_dim 256 (attention 8192 wide, hidden 4096)" << "16,16";
    QTest::newRow("Mixtral: refused, naming the field")
        << planOf("mixtral-8x7b", 0, 4096, "h100-80gb", 2, "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64")
        << "parallelism.expert_parallel_degree=4" << "raise ValueError(" << "mixture of experts (8 experts, top-2)"
        << "";
}

void TestTorchtitanPlanModule::planFile()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(QString, written);
    QFETCH(QString, notes);
    QFETCH(QString, parts);
    const TorchtitanConfig config = torchtitanModule(plan);
    const Module m = readModule(config.text);
    for (const std::string& item : items(expect)) {
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        QVERIFY2(m.values.contains(key), (item + "\n" + config.text).c_str());
        QCOMPARE(QString::fromStdString(m.values.at(key)), QString::fromStdString(item.substr(eq + 1)));
    }
    for (const std::string& part : items(written))
        QVERIFY2(config.text.find(part) != std::string::npos, (part + "\n" + config.text).c_str());
    const std::string lines = joined(config.notes);
    for (const std::string& part : items(notes))
        QVERIFY2(lines.find(part) != std::string::npos, (part + "\n" + lines).c_str());
    if (notes.isEmpty() && !written.contains("raise"))
        QVERIFY2(config.notes.empty(), lines.c_str());
    QStringList shown;
    for (int n : partLayers(m))
        shown << QString::number(n);
    QCOMPARE(shown.join(','), parts);
}

void TestTorchtitanPlanModule::galvatronRecomputeIsPerLayer()
{
    // Issue 25: a Galvatron plan recomputing 5 layers on stage 0 became 1 per stage in v0.2's TOML.
    const galvatron::Plan plan = galvatronPlan({ 6, 2 }, 2, 1, galvatron::DpType::Zero3, 4, { 0, 1, 2, 3, 4 });
    const TorchtitanConfig config = torchtitanModule(plan, galvatron::SearchSettings {}, resizedModel("llama2-7b", 8, 2048));
    QVERIFY2(config.text.find("        layers=[0, 1, 2, 3, 4],\n") != std::string::npos, config.text.c_str());
    QVERIFY2(config.text.find("parallelism.fsdp_reshard_after_forward = \"always\"") != std::string::npos,
        config.text.c_str());
    const Module m = readModule(config.text);
    QCOMPARE(partLayers(m), (std::vector<int> { 6, 2 }));
    QVERIFY2(refusals(config.notes).empty(), joined(config.notes).c_str());
}

void TestTorchtitanPlanModule::theRoutedExportsAreMain()
{
    // exportPlanFile and exportPlan (the CLI's default and the GUI) write the main module;
    // --torchtitan-version 0.2 (torchtitanExport) keeps v0.2's TOML.
    const megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    QCOMPARE(exportPlanFile(ExportFormat::Torchtitan, plan).text, torchtitanModule(plan).text);
    QCOMPARE(torchtitanExport(TorchtitanVersion::V0_2, plan).text, torchtitanPlanConfig(plan).text);
    QVERIFY(torchtitanExport(TorchtitanVersion::V0_2, plan).text.find("[parallelism]") != std::string::npos);
    const galvatron::Plan g = galvatronPlan({ 4, 4 }, 2, 1, galvatron::DpType::Zero3, 4, {});
    const model::ModelDescription m = resizedModel("llama2-7b", 8, 2048);
    ExportContext context;
    context.model = m;
    QCOMPARE(exportPlan(ExportFormat::Torchtitan, g, galvatron::SearchSettings {}, context).text,
        torchtitanModule(g, galvatron::SearchSettings {}, m).text);
    QCOMPARE(defaultExportFileName(ExportFormat::Torchtitan, {}), std::string("stratex_torchtitan.py"));
}

void TestTorchtitanPlanModule::versionNames()
{
    QCOMPARE(parseTorchtitanVersion("main"), std::optional(TorchtitanVersion::Main));
    QCOMPARE(parseTorchtitanVersion("0.2"), std::optional(TorchtitanVersion::V0_2));
    QVERIFY(!parseTorchtitanVersion("0.3"));
    QCOMPARE(torchtitanVersionName(TorchtitanVersion::V0_2), std::string_view("0.2"));
}

QTEST_GUILESS_MAIN(TestTorchtitanPlanModule)
#include "tst_torchtitan_plan_module.moc"
