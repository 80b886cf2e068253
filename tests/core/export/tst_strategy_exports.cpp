// SPDX-License-Identifier: GPL-3.0-or-later
// Writing a searched plan for the training frameworks: Galvatron's strategy JSON (byte format,
// key order, world_size, file name), PaddleNLP's fine_grained_config.json and launch script with
// seed 004's mapping, and the CLI's JSON shapes (Megatron-LM: tst_megatron_args).
#include <QTest>

#include "core/common/progress.h"
#include "core/export/galvatron_config.h"
#include "core/export/paddle_config.h"
#include "core/export/plan_json.h"
#include "core/model/model_presets.h"
#include "core/search/search_engine.h"
#include "core/search/search_setting_table.h"
#include "core/search/strategy_file.h"

#include "../search/search_test_util.h"

using namespace stratex;
using namespace stratex::search;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

model::ModelDescription llama7b()
{
    model::ModelDescription m = model::modelPreset("llama2-7b");
    m.seq_length = 2048; // the fixtures' sequence length
    return m;
}

Plan searched(int memory, int bsz)
{
    NullProgress progress;
    return *stratex::search::search(llamaInputs(), llamaSettings(memory, bsz), progress, 2).best;
}

std::string join(const std::vector<std::string>& lines)
{
    std::string text;
    for (const std::string& line : lines)
        text += line + "\n";
    return text;
}

bool contains(const std::string& text, const std::string& part)
{
    if (text.find(part) != std::string::npos)
        return true;
    qWarning("missing: %s", part.c_str());
    return false;
}

// A hand-made plan on 128 GPUs with two-digit degrees.
Plan wideDataParallelPlan()
{
    Plan plan;
    plan.gbsz = 512;
    plan.chunks = 4;
    plan.pp = 2;
    plan.world = 128;
    plan.pp_division = { 2, 2 };
    for (int i = 0; i < 4; ++i) {
        cost::LayerStrategy s;
        s.pp = 2;
        s.tp = i < 2 ? 4 : 2;
        s.dp = 64 / s.tp;
        s.dp_type = i == 0 ? cost::DpType::Zero3 : cost::DpType::Zero2;
        s.checkpoint = i == 1;
        plan.layers.push_back(s);
    }
    plan.embedding = { 2, 4, 1, 1, 16, cost::DpType::Zero2 };
    return plan;
}

} // namespace

class TestStrategyExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void galvatronFileFormat();
    void galvatronFileName();
    void galvatronRoundTrip();
    void strategyFileCarriesModelAndCluster();
    void paddleConfig();
    void paddleMappingUsesFirstValue();
    void paddleScript();
    void cliJsonShapes();
};

void TestStrategyExports::galvatronFileFormat()
{
    const std::string text = galvatronConfigText(searched(36, 16));
    // json.dump(indent=4) in Galvatron's key order, world_size included, no trailing newline.
    QVERIFY(text.rfind("{\n    \"pp_deg\": 1,\n    \"tp_sizes_enc\": \"1,1,1,", 0) == 0);
    QVERIFY(contains(text,
        "\"checkpoint\": \"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0\",\n"
        "    \"world_size\": 8,\n    \"global_bsz\": 16,\n    \"chunks\": 1,\n    \"pp_division\": "
        "\"32\",\n    \"pipeline_type\": \"pipedream_flush\",\n    \"default_dp_type\": \"zero2\",\n"
        "    \"vtp\": 2,\n    \"vsp\": 1,\n    \"embed_sdp\": 1\n}"));
    QVERIFY(text.back() == '}');
}

void TestStrategyExports::galvatronFileName()
{
    SearchSettings settings = llamaSettings(36, 16);
    QCOMPARE(galvatronConfigFileName(settings, "llama2-7b"),
        std::string("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16_bsz16.json"));
    settings.settle_bsz = -1;
    settings.disable_tp = true;
    settings.disable_ckpt = true;
    settings.disable_sp = true; // sp and the embedding flags never appear
    QCOMPARE(galvatronConfigFileName(settings, "llama2-7b"),
        std::string("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16_[tp_ckpt_off].json"));
}

void TestStrategyExports::galvatronRoundTrip()
{
    const SearchSettings settings = llamaSettings(24, 32);
    const Plan plan = searched(24, 32);
    const std::string text = galvatronConfigText(plan);
    const Plan back = planFromStrategyFile(StrategyFile::fromJson(jsonText(text, "written.json").root()), settings);
    QCOMPARE(back.layers, plan.layers);
    QCOMPARE(back.embedding, plan.embedding);
    QCOMPARE(back.pp_division, plan.pp_division);
    QCOMPARE(back.gbsz, plan.gbsz);
    QCOMPARE(back.chunks, plan.chunks);
}

void TestStrategyExports::strategyFileCarriesModelAndCluster()
{
    // Galvatron's keys, exactly as galvatronConfigText writes them, then what Stratex reads back.
    SearchSettings settings = llamaSettings(24, 32);
    settings.allocator_reserve_fraction = 0.1;
    const Plan plan = searched(24, 32);
    const model::ModelDescription model = llama7b();
    const profile::synth::ClusterDescription cluster { profile::synth::gpuPreset("a100-40gb"), 1, 8 };
    const std::string text = strategyFileText(plan, settings, model, cluster);
    const std::string galvatron = galvatronConfigText(plan);
    QCOMPARE(text.substr(0, galvatron.size() - 2), galvatron.substr(0, galvatron.size() - 2)); // up to "\n}"
    std::vector<std::string> keys;
    const nlohmann::ordered_json json = strategyFileJson(plan, settings, model, cluster);
    for (auto it = json.begin(); it != json.end(); ++it)
        keys.push_back(it.key());
    QCOMPARE(std::vector<std::string>(keys.end() - 3, keys.end()),
        std::vector<std::string>({ "model", "cluster", "search_settings" }));

    const StrategyFile back = StrategyFile::fromJson(jsonText(text, "written.json").root());
    QVERIFY(back.model == model);
    QVERIFY(back.cluster);
    QCOMPARE(back.cluster->gpu.name, cluster.gpu.name);
    QCOMPARE(back.cluster->gpu.memory_gb, cluster.gpu.memory_gb);
    QVERIFY(back.search_settings);
    QCOMPARE(searchSettingTable().toJson(*back.search_settings).dump(), searchSettingTable().toJson(settings).dump());
    QCOMPARE(int(back.search_settings_keys.size()), int(searchSettingTable().rows().size()));
    const Plan again = planFromStrategyFile(back, settings);
    QCOMPARE(again.layers, plan.layers);
    QCOMPARE(again.pp_division, plan.pp_division);
    // Without a model or a GPU the keys are left out, the settings stay.
    const nlohmann::ordered_json bare = strategyFileJson(plan, settings, std::nullopt, std::nullopt);
    QVERIFY(!bare.contains("model"));
    QVERIFY(!bare.contains("cluster"));
    QVERIFY(bare.contains("search_settings"));
}

void TestStrategyExports::paddleConfig()
{
    // The 24 GB pp-4 plan: stage 0 4-1-2-c x8 (ZeRO-2), stages 1-3 Megatron TP 2, dp 1.
    const Plan plan = searched(24, 32);
    const std::string text = paddleFineGrainedConfigText(plan);
    const nlohmann::ordered_json json = paddleFineGrainedConfig(plan);
    std::vector<std::string> keys;
    for (auto it = json.begin(); it != json.end(); ++it)
        keys.push_back(it.key());
    QCOMPARE(keys,
        std::vector<std::string>({ "pp_size", "vtp", "vsp_flag", "embed_sdp", "global_batch_size",
            "gradient_accumulation_steps", "dp_size_list", "sharding_stage_list", "tp_size_list", "usp_flag_list",
            "recompute_list", "pp_stage_idx_list" }));
    QCOMPARE(json["pp_size"].get<int>(), 4);
    QCOMPARE(json["gradient_accumulation_steps"].get<int>(), 16);
    QCOMPARE(json["embed_sdp"].get<int>(), 1);
    QCOMPARE(json["dp_size_list"].get<std::string>(),
        std::string("2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"));
    QCOMPARE(json["sharding_stage_list"].get<std::string>(),
        std::string("2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"));
    QCOMPARE(json["tp_size_list"].get<std::string>(),
        std::string("1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"));
    QCOMPARE(json["recompute_list"].get<std::string>(),
        std::string("1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,1,1,1,0,0,0,0,0,1,0,0,0,0,0,0,0"));
    QCOMPARE(json["pp_stage_idx_list"].get<std::string>(),
        std::string("0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3"));
    QVERIFY(text.rfind("{\n    \"pp_size\": 4,", 0) == 0);
}

void TestStrategyExports::paddleMappingUsesFirstValue()
{
    // Seed 004: sharding / tensor degree = the first comma-separated value ("16", not "1").
    const Plan plan = wideDataParallelPlan();
    QCOMPARE(paddleFineGrainedConfig(plan)["dp_size_list"].get<std::string>(), std::string("16,16,32,32"));
    const PaddleParallelArgs args = paddleParallelArgs(plan);
    QCOMPARE(args.sharding_parallel_degree, 16);
    QCOMPARE(args.tensor_parallel_degree, 4);
    QCOMPARE(args.pipeline_parallel_degree, 2);
    QVERIFY(args.recompute);
    QCOMPARE(args.gradient_accumulation_steps, 4);
    QCOMPARE(args.per_device_train_batch_size, 8); // 512 / 4 / 16
    QVERIFY(args.per_device_batch_exact);
    QCOMPARE(args.sharding_stage, 3);
}

void TestStrategyExports::paddleScript()
{
    SearchSettings settings = llamaSettings(24, 512);
    settings.num_nodes = 16;
    const std::string script = paddleLaunchScript(wideDataParallelPlan(), settings, llama7b());
    QVERIFY(script.rfind("#!/usr/bin/env bash\n", 0) == 0);
    QVERIFY(contains(script, "    --sharding_parallel_degree 16\n"));
    QVERIFY(contains(script, "    --tensor_parallel_degree 4\n"));
    QVERIFY(contains(script, "    --pipeline_parallel_degree 2\n"));
    QVERIFY(contains(script, "    --per_device_train_batch_size 8\n"));
    QVERIFY(contains(script, "    --gradient_accumulation_steps 4\n"));
    QVERIFY(contains(script, "    --recompute true\n"));
    QVERIFY(contains(script, "    --sequence_parallel true\n"));
    QVERIFY(contains(script, "    --sharding 'stage3'\n"));
    QVERIFY(contains(script, "    --fine_grained_config_path './configs/fine_grained_config.json'\n"));
    QVERIFY(contains(script, "--granularity_type fine_grained"));
    QVERIFY(contains(script, "--gpus 0,1,2,3,4,5,6,7"));
    QVERIFY(contains(script, "END_RANK=${END_RANK:-16}"));
    // An uneven per-device batch is rounded up and said so.
    Plan uneven = wideDataParallelPlan();
    uneven.gbsz = 500;
    QVERIFY(contains(paddleLaunchScript(uneven, settings, llama7b()), "is not whole"));
}

void TestStrategyExports::cliJsonShapes()
{
    NullProgress progress;
    const SearchResult result = stratex::search::search(llamaInputs(), llamaSettings(36, 16), progress, 2);
    const nlohmann::ordered_json json = searchResultJson(result);
    std::vector<std::string> keys;
    for (auto it = json.begin(); it != json.end(); ++it)
        keys.push_back(it.key());
    QCOMPARE(keys, std::vector<std::string>({ "best", "top", "pareto", "search_time_s", "dp_calls", "threads" }));
    std::vector<std::string> bestKeys;
    for (auto it = json["best"].begin(); it != json["best"].end(); ++it)
        bestKeys.push_back(it.key());
    QCOMPARE(bestKeys,
        std::vector<std::string>({ "gbsz", "chunks", "pp", "time_cost_s", "throughput_samples_per_s",
            "memory_cost_mb_per_stage", "memory_remaining_mb_per_stage", "strategy" }));
    QCOMPARE(json["best"]["strategy"].dump(), galvatronConfigJson(*result.best).dump());
    const Evaluation ev
        = evaluate(buildCostModel(llamaInputs(), llamaSettings(36, 16)), llamaSettings(36, 16), *result.best);
    const nlohmann::ordered_json e = evaluationJson(ev);
    QCOMPARE(e["layers"].size(), std::size_t(32));
    QCOMPARE(e["layers"][0].begin().key(), std::string("time_s"));
    QCOMPARE(e["stages"].size(), std::size_t(1));
    QCOMPARE(e["memory_cost_mb_per_stage"].dump(), std::string("[36757]"));
}

QTEST_GUILESS_MAIN(TestStrategyExports)
#include "tst_strategy_exports.moc"
