// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 25: every model fact a plan assumes reaches every target, or is said. The flags are checked
// against Megatron-LM's rules (megatron_rules.h, read from main d98e8a64) and read back as
// Megatron prints them; Galvatron main's loader keys (PKU-DAIR/Hetu-Galvatron cea12ffb,
// hybrid_parallel_config.py, utils/config_utils.py) for context and expert parallelism; a plan
// file's "gpipe" schedule per target; every approximation a structured note of the export.
#include <map>
#include <nlohmann/json.hpp>

#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/plan_file_export.h"
#include "core/hardware/cluster_json.h"
#include "core/model/model_json.h"

#include "plan_file_test_util.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

std::vector<std::string> items(const QString& list)
{
    std::vector<std::string> out;
    for (const QString& item : list.split(';', Qt::SkipEmptyParts))
        out.push_back(item.toStdString());
    return out;
}

// A plan file's text, as the Search page saves one: the model, the cluster and a strategy object.
std::string planFileText(const nlohmann::ordered_json& model, const nlohmann::ordered_json& strategy, int nodes = 1)
{
    nlohmann::ordered_json root;
    root["format"] = "stratex-plan";
    root["version"] = 1;
    root["model"] = model;
    root["cluster"] = hardware::toJson(hardware::ClusterDescription { hardware::gpuPreset("h100-80gb"), nodes, 8 });
    root["strategy"] = strategy;
    return root.dump(2);
}

} // namespace

Q_DECLARE_METATYPE(stratex::megatron::PlanFile)

class TestExportFacts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void modelFactsReachMegatron_data();
    void modelFactsReachMegatron();
    void oldModelFilesReadThePresetsFacts();
    void gpipePerTarget_data();
    void gpipePerTarget();
    void galvatronContextAndExpertParallelism_data();
    void galvatronContextAndExpertParallelism();
    void paddleShardingAndFlashAttention_data();
    void paddleShardingAndFlashAttention();
    void everyCommentIsANote_data();
    void everyCommentIsANote();
};

void TestExportFacts::modelFactsReachMegatron_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // "flag value" items, ';'-separated
    QTest::addColumn<QString>("absent"); // flags it must not hold
    // HF config.json "rope_theta" of each model (model_presets.cpp cites them).
    QTest::newRow("Llama 2: base 10000") << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16")
                                         << "--rotary-base 10000"
                                         << "--use-rope-scaling;--multi-latent-attention;--qk-layernorm";
    QTest::newRow("Llama 3: base 500000, no scaling")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << "--rotary-base 500000"
        << "--use-rope-scaling;--rope-scaling-factor";
    QTest::newRow("Llama 3.1: llama3 scaling, factor 8")
        << planOf("llama3.1-70b", 0, 0, "h100-80gb", 4, "tp=8 pp=4 dp=1 gbs=16")
        << "--rotary-base 500000;--use-rope-scaling;--rope-scaling-factor 8"
        << "--multi-latent-attention";
    QTest::newRow("Mixtral: base 1000000") << planOf("mixtral-8x7b", 0, 0, "h100-80gb", 2,
        "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64")
                                           << "--rotary-base 1000000;--num-experts 8;--moe-router-topk 2"
                                           << "--use-rope-scaling;--multi-latent-attention";
    QTest::newRow("Qwen 2.5: base 1000000, Q/K/V bias")
        << planOf("qwen2.5-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16")
        << "--rotary-base 1000000;--add-qkv-bias;--disable-bias-linear" << "--use-rope-scaling";
    QTest::newRow("DeepSeek-V3: MLA with its ranks")
        << planOf("deepseek-v3-style", 8, 4096, "h100-80gb", 2, "tp=2 pp=2 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=32")
        << "--multi-latent-attention;--q-lora-rank 1536;--kv-lora-rank 512;--qk-head-dim 128;"
           "--qk-pos-emb-head-dim 64;--v-head-dim 128;--qk-layernorm;--rope-type rope;--no-rope-fusion;--rotary-base 10000;"
           "--moe-layer-freq ([0]*3+[1]*5);--moe-shared-expert-intermediate-size 2048"
        << "--group-query-attention;--num-query-groups;--use-rope-scaling";
    QTest::newRow("GPT-3: learned positions, no RoPE flags")
        << planOf("gpt3-13b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << "--position-embedding-type learned_absolute"
        << "--rotary-base;--use-rope-scaling";
}

void TestExportFacts::modelFactsReachMegatron()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(QString, absent);
    const MegatronPlanArgs m = megatronPlanArgs(plan, nullptr);
    const megatron_rules::Args args = argsOf(m.arguments);
    const int world = plan.cluster.worldSize();
    const std::map<std::string, std::string> environment(m.environment.set.begin(), m.environment.set.end());
    const bool unset = !m.environment.unset.empty();
    const std::string violations = joined(megatron_rules::megatronViolations(args, environment, unset, world));
    QVERIFY2(violations.empty(), (violations + joined(megatronArgumentLines(m.arguments))).c_str());
    for (const std::string& item : items(expect)) {
        const std::string flag = item.substr(0, item.find(' '));
        const std::string value = item.find(' ') == std::string::npos ? "" : item.substr(item.find(' ') + 1);
        QVERIFY2(args.contains(flag), item.c_str());
        QCOMPARE(args.at(flag), value);
    }
    for (const std::string& flag : items(absent))
        QVERIFY2(!args.contains(flag), flag.c_str());
    // Megatron builds the planned model: read back from its argument dump, every fact is the plan's.
    const runs::RunArguments back = runs::runArguments(dumpOf(m.arguments, world, plan.model.vocab_size));
    QVERIFY2(back.missing.empty(), joined(back.missing).c_str());
    QVERIFY(back.model);
    model::ModelDescription model = *back.model;
    model.name = plan.model.name;
    QCOMPARE(model, plan.model);
}

void TestExportFacts::oldModelFilesReadThePresetsFacts()
{
    // A strategy file written before the facts existed names its model and leaves them out: they are
    // the preset's of that name (model_json.h), not Megatron's defaults.
    nlohmann::ordered_json old = model::toJson(model::modelPreset("deepseek-v3-style"));
    old.erase("rotary_base");
    old.erase("mla");
    const JsonDocument document = JsonDocument::parse(old.dump(), "old.json");
    QCOMPARE(model::readModel(document.root()), model::modelPreset("deepseek-v3-style"));
    // A model of its own keeps the description's defaults; rope_scaling null removes the preset's.
    const JsonDocument own = JsonDocument::parse(
        R"({"preset": "llama3.1-8b", "name": "mine", "rope_scaling": null, "rotary_base": 250000})", "own.json");
    const model::ModelDescription mine = model::readModel(own.root());
    QVERIFY(!mine.rope_scaling);
    QCOMPARE(mine.rotary_base, 250000.0);
    // Bad values name the key.
    const JsonDocument bad = JsonDocument::parse(R"({"preset": "llama3-8b", "mla": {"kv_lora_rank": 0}})", "bad.json");
    QVERIFY_THROWS_EXCEPTION(InputError, model::readModel(bad.root()));
}

void TestExportFacts::gpipePerTarget_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<QString>("written"); // what the file holds, or "" when refused
    QTest::newRow("Galvatron: pipeline_type gpipe")
        << int(ExportFormat::Galvatron) << "\"pipeline_type\": \"gpipe\"";
    QTest::newRow("PaddleNLP: FThenB") << int(ExportFormat::PaddleScript) << "--pipeline_schedule_mode 'FThenB'";
    QTest::newRow("torchtitan: GPipe") << int(ExportFormat::Torchtitan)
                                       << "pipeline_parallel_schedule = \"GPipe\"";
    QTest::newRow("Megatron-LM has none") << int(ExportFormat::Megatron) << "";
    QTest::newRow("the simulated CSV has none") << int(ExportFormat::PytorchSchedule) << "";
}

void TestExportFacts::gpipePerTarget()
{
    QFETCH(int, format);
    QFETCH(QString, written);
    const std::string text = planFileText(model::toJson(model::modelPreset("llama2-7b")),
        { { "tp", 2 }, { "pp", 2 }, { "dp", 2 }, { "zero", 0 }, { "global_batch_size", 16 }, { "schedule", "gpipe" } });
    const ExportFormat target = ExportFormat(format);
    if (written.isEmpty()) {
        try {
            exportPlanFileText(target, text, "gpipe.json");
            QFAIL("exported a GPipe plan to a target without GPipe");
        } catch (const Error& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains("\"schedule\": \"gpipe\" cannot be expressed"), error.what());
        }
        return;
    }
    const ExportedFile file = exportPlanFileText(target, text, "gpipe.json");
    QVERIFY2(file.text.find(written.toStdString()) != std::string::npos, file.text.c_str());
    // Costed as 1F1B: said among the plan file's notes.
    QVERIFY2(joined(file.notes).find("\"gpipe\" costed as 1F1B") != std::string::npos, joined(file.notes).c_str());
}

void TestExportFacts::galvatronContextAndExpertParallelism_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("keys"); // "key=value" the file holds, ';'-separated
    QTest::addColumn<QString>("absent"); // keys it must not hold
    QTest::addColumn<QString>("refused"); // or the refusal's words
    QTest::newRow("ring CP: cp_sizes_enc and vcp")
        << planOf("llama3-8b", 4, 8192, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 gbs=8")
        << "cp_sizes_enc=2,2,2,2;vcp=2;tp_sizes_enc=2,2,2,2;use_sp=0,0,0,0;world_size=8"
        << "ep_sizes_enc" << "";
    QTest::newRow("Ulysses with tp 1: use_sp over the layer's group")
        << planOf("llama3-8b", 4, 8192, "h100-80gb", 1, "tp=1 cp=4 cpcomm=a2a dp=2 gbs=8")
        << "tp_sizes_enc=4,4,4,4;use_sp=1,1,1,1;world_size=8"
        << "cp_sizes_enc" << "";
    QTest::newRow("Ulysses beside TP: refused") << planOf("llama3-8b", 4, 8192, "h100-80gb", 1,
        "tp=2 cp=2 cpcomm=a2a dp=2 sp=1 gbs=8")
                                                << ""
                                                << ""
                                                << "Ulysses context parallelism (cp 2, a2a) beside tp 2";
    QTest::newRow("EP and expert TP per layer")
        << planOf("mixtral-8x7b", 4, 4096, "h100-80gb", 2, "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64")
        << "ep_sizes_enc=4,4,4,4;tp_of_ep_sizes_enc=1,1,1,1;tp_sizes_enc=2,2,2,2;world_size=16"
        << "cp_sizes_enc" << "";
}

void TestExportFacts::galvatronContextAndExpertParallelism()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, keys);
    QFETCH(QString, absent);
    QFETCH(QString, refused);
    if (!refused.isEmpty()) {
        try {
            exportPlanFile(ExportFormat::Galvatron, plan);
            QFAIL("exported what Galvatron cannot run");
        } catch (const Error& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(refused), error.what());
        }
        return;
    }
    const ExportedFile file = exportPlanFile(ExportFormat::Galvatron, plan);
    const nlohmann::json json = nlohmann::json::parse(file.text);
    for (const std::string& item : items(keys)) {
        const std::string key = item.substr(0, item.find('='));
        const std::string value = item.substr(item.find('=') + 1);
        QVERIFY2(json.contains(key), item.c_str());
        const std::string found = json.at(key).is_string() ? json.at(key).get<std::string>() : json.at(key).dump();
        QCOMPARE(found, value);
    }
    for (const std::string& key : items(absent))
        QVERIFY2(!json.contains(key), key.c_str());
    // hybrid_parallel_config.py: dp = world / pp / tp / sp / cp is the plan's.
    const int pp = json.at("pp_deg").get<int>();
    const int tpsp = std::stoi(json.at("tp_sizes_enc").get<std::string>());
    const int cp = json.contains("cp_sizes_enc") ? std::stoi(json.at("cp_sizes_enc").get<std::string>()) : 1;
    QCOMPARE(json.at("world_size").get<int>() / pp / tpsp / cp, plan.strategy.dp);
    // PaddleNLP's port has neither ring CP nor experts: refused, naming the dimension.
    if (plan.strategy.ep > 1 || plan.strategy.cp_comm_type == megatron::CpCommType::P2p)
        QVERIFY_THROWS_EXCEPTION(Error, exportPlanFile(ExportFormat::PaddleConfig, plan));
}

void TestExportFacts::paddleShardingAndFlashAttention_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // script parts, ';'-separated
    QTest::newRow("DDP: no sharding, not stage 1")
        << planOf("llama2-7b", 4, 4096, "h100-80gb", 1, "tp=2 pp=1 dp=4 zero=0 gbs=16")
        << "--sharding_parallel_degree 1;--sharding '';--sharding_stage_level 0;--use_flash_attention true";
    QTest::newRow("ZeRO-3 over dp") << planOf("llama2-7b", 4, 4096, "h100-80gb", 1, "tp=2 pp=1 dp=4 zero=3 gbs=16")
                                    << "--sharding_parallel_degree 4;--sharding 'stage3';--use_flash_attention true";
}

void TestExportFacts::paddleShardingAndFlashAttention()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    const ExportedFile file = exportPlanFile(ExportFormat::PaddleScript, plan);
    for (const std::string& part : items(expect))
        QVERIFY2(file.text.find(part) != std::string::npos, (part + "\n" + file.text).c_str());
}

void TestExportFacts::everyCommentIsANote_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("notes"); // note parts the CLI prints, ';'-separated
    // torchtitan's approximations were comments only (issue 25, finding 5). torchtitan main's
    // module (the default): recompute modules are written as the plan's (tst_torchtitan_module),
    // Llama 2 and Llama 3 without scaling as registered flavours, FP8 experts through the
    // grouped-GEMM converter.
    QTest::newRow("torchtitan: ZeRO-1, fp16")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 zero=1 recompute=selective precision=fp16 gbs=16")
        << "ZeRO-1: torchtitan's FSDP2;fp16: torchtitan trains";
    QTest::newRow("torchtitan: a model it cannot build")
        << planOf("qwen2.5-14b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << "has a bias on Q, K and V";
    QTest::newRow("torchtitan: Ulysses") << planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1,
        "tp=2 cp=2 dp=2 sp=1 cpcomm=a2a gbs=8") << "only has ring attention";
    QTest::newRow("torchtitan: FP8 recipe") << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32,
        "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024 precision=fp8")
                                             << "float8 recipe is rowwise";
}

void TestExportFacts::everyCommentIsANote()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, notes);
    const ExportedFile file = exportPlanFile(ExportFormat::Torchtitan, plan);
    const std::string lines = joined(file.notes);
    for (const std::string& part : items(notes)) {
        QVERIFY2(lines.find(part) != std::string::npos, (part + "\n" + lines).c_str());
        // ... and the file says it too.
        QVERIFY2(file.text.find(part) != std::string::npos || part.find("ships no flavour") != std::string::npos,
            (part + "\n" + file.text).c_str());
    }
}

QTEST_GUILESS_MAIN(TestExportFacts)
#include "tst_export_facts.moc"
