// SPDX-License-Identifier: GPL-3.0-or-later
// Writing a searched plan for Galvatron: its strategy JSON (byte format, key order, world_size,
// file name) read back by Galvatron's own loaders, the Stratex strategy file that carries the model
// and cluster, and the CLI's JSON shapes (PaddleNLP: tst_paddle_exports; Megatron-LM:
// tst_megatron_args).
#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <QTest>

#include "core/common/progress.h"
#include "core/export/galvatron_config.h"
#include "core/export/plan_json.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_setting_table.h"
#include "core/galvatron/strategy_file.h"

#include "export_test_util.h"
#include "support/text_contains.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

// ---- Galvatron's runtime loaders, written down from PKU-DAIR/Hetu-Galvatron (tag v2.4.0 and main
// at cea12ff, read for this test; no code copied) ----
// galvatron/core/runtime/hybrid_parallel_config.py get_hybrid_parallel_configs_api and
// galvatron/utils/config_utils.py config2strategy / str2array, in both versions:
// - read by key (extra keys such as Stratex's model, cluster and search_settings are never looked at):
//   pp_deg, tp_sizes_enc, tp_consecutive_flags, dp_types_enc, global_bsz and chunks are required;
//   vtp (1), vsp (0), use_sp (0s), checkpoint (0s), pp_division (even, remainder last),
//   pipeline_type and default_dp_type are optional; main adds vcp, cp_sizes_enc, ep_sizes_enc and
//   tp_of_ep_sizes_enc (optional);
// - the embedding's ZeRO-3 flag: 2.4 reads "embed_sdp", main reads "vocab_sdp" (default 0);
// - per-layer lists go through str2array, s.split(','): a string of integers, not a JSON number;
// - main asserts the layer count equals the model's (2.4's assert is a tuple, never false);
// - both assert global_bsz % (world_size // pp_deg // min_tp [// min_cp]) == 0, min_tp over the
//   layers' degrees and vtp.
struct GalvatronRead {
    int pp = 0;
    std::vector<int> tp;
    std::vector<int> dpTypes;
    std::vector<int> checkpoint;
    std::vector<int> division;
    int vtp = 1;
    int vsp = 0;
    int sdp = 0;
};

std::vector<int> str2array(const nlohmann::ordered_json& value, const char* key)
{
    if (!value.is_string())
        throw std::runtime_error(std::string(key) + ": 'int' object has no attribute 'split'");
    std::vector<int> out;
    std::stringstream in(value.get<std::string>());
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(std::stoi(item));
    return out;
}

GalvatronRead galvatronLoad(const nlohmann::ordered_json& config, bool main, int world, int layers)
{
    GalvatronRead r;
    for (const char* key :
        { "pp_deg", "tp_sizes_enc", "tp_consecutive_flags", "dp_types_enc", "global_bsz", "chunks" }) {
        if (!config.contains(key))
            throw std::runtime_error(std::string("KeyError: ") + key);
    }
    r.pp = config["pp_deg"].get<int>();
    r.tp = str2array(config["tp_sizes_enc"], "tp_sizes_enc");
    str2array(config["tp_consecutive_flags"], "tp_consecutive_flags");
    r.dpTypes = str2array(config["dp_types_enc"], "dp_types_enc");
    if (config.contains("use_sp"))
        str2array(config["use_sp"], "use_sp");
    r.checkpoint = config.contains("checkpoint") ? str2array(config["checkpoint"], "checkpoint")
                                                 : std::vector<int>(r.tp.size(), 0);
    if (config.contains("pp_division")) {
        r.division = str2array(config["pp_division"], "pp_division");
    } else {
        const int layersPerStage = int(r.tp.size()) / r.pp;
        r.division.assign(std::size_t(r.pp - 1), layersPerStage);
        r.division.push_back(int(r.tp.size()) - layersPerStage * (r.pp - 1));
    }
    r.vtp = config.value("vtp", 1);
    r.vsp = config.value("vsp", 0);
    const int vcp = main ? config.value("vcp", 1) : 1;
    r.sdp = config.value(main ? "vocab_sdp" : "embed_sdp", 0);
    if (main && int(r.tp.size()) != layers)
        throw std::runtime_error("Layer_num in json config does not match layer_num in the model!");
    const int minTp = std::min(*std::min_element(r.tp.begin(), r.tp.end()), r.vtp);
    const int divisor = world / r.pp / minTp / vcp;
    if (config["global_bsz"].get<int>() % divisor != 0)
        throw std::runtime_error("global_batch_size should be multiple of world_size//pp_deg//min_tp");
    return r;
}

} // namespace

class TestStrategyExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void galvatronFileFormat();
    void galvatronFileName();
    void galvatronRoundTrip();
    void galvatronLoadersReadTheFile_data();
    void galvatronLoadersReadTheFile();
    void strategyFileCarriesModelAndCluster();
    void cliJsonShapes();
};

void TestStrategyExports::galvatronFileFormat()
{
    const std::string text = galvatronConfigText(searched(36, 16));
    // json.dump(indent=4) in Galvatron's key order, world_size included, no trailing newline; then
    // vocab_sdp, the key Galvatron main's runtime reads (galvatronLoadersReadTheFile).
    QVERIFY(text.rfind("{\n    \"pp_deg\": 1,\n    \"tp_sizes_enc\": \"1,1,1,", 0) == 0);
    QVERIFY(contains(text,
        "\"checkpoint\": \"1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0\",\n"
        "    \"world_size\": 8,\n    \"global_bsz\": 16,\n    \"chunks\": 1,\n    \"pp_division\": "
        "\"32\",\n    \"pipeline_type\": \"pipedream_flush\",\n    \"default_dp_type\": \"zero2\",\n"
        "    \"vtp\": 2,\n    \"vsp\": 1,\n    \"embed_sdp\": 1,\n    \"vocab_sdp\": 1\n}"));
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

void TestStrategyExports::galvatronLoadersReadTheFile_data()
{
    QTest::addColumn<int>("memory");
    QTest::addColumn<int>("bsz");
    QTest::addColumn<bool>("main"); // Galvatron main's loader, else 2.4's
    for (const bool main : { false, true }) {
        const char* version = main ? "main" : "2.4";
        QTest::newRow(qPrintable(QStringLiteral("36 GB, ZeRO-3 embedding, %1").arg(version))) << 36 << 16 << main;
        QTest::newRow(qPrintable(QStringLiteral("24 GB, pp 4, %1").arg(version))) << 24 << 32 << main;
        QTest::newRow(qPrintable(QStringLiteral("16 GB, %1").arg(version))) << 16 << 64 << main;
    }
}

void TestStrategyExports::galvatronLoadersReadTheFile()
{
    QFETCH(int, memory);
    QFETCH(int, bsz);
    QFETCH(bool, main);
    const Plan plan = searched(memory, bsz);
    const SearchSettings settings = llamaSettings(memory, bsz);
    const auto read = [&](const std::string& text) {
        return galvatronLoad(nlohmann::ordered_json::parse(text), main, plan.world, int(plan.layers.size()));
    };
    const GalvatronRead r = read(galvatronConfigText(plan));
    QCOMPARE(r.pp, plan.pp);
    QCOMPARE(r.division, plan.pp_division);
    QCOMPARE(r.vtp, plan.vtp());
    QCOMPARE(r.vsp, plan.vsp());
    QCOMPARE(r.sdp, plan.embedSdp()); // both runtimes shard the embedding as planned
    for (std::size_t i = 0; i < plan.layers.size(); ++i) {
        QCOMPARE(r.tp[i], plan.layers[i].tpsp());
        QCOMPARE(r.checkpoint[i], plan.layers[i].checkpoint ? 1 : 0);
    }
    // Stratex's extra keys change nothing a loader reads.
    const GalvatronRead withExtras = read(strategyFileText(plan, settings, llama7b(), std::nullopt));
    QCOMPARE(withExtras.sdp, r.sdp);
    QCOMPARE(withExtras.division, r.division);
    // Galvatron's search output alone (embed_sdp only): main's runtime trains the embedding
    // unsharded where ZeRO-3 was planned.
    const GalvatronRead searchOutput = read(galvatronConfigJson(plan).dump());
    QCOMPARE(searchOutput.sdp == plan.embedSdp(), !main || plan.embedSdp() == 0);
}

void TestStrategyExports::strategyFileCarriesModelAndCluster()
{
    // Galvatron's keys, exactly as galvatronConfigText writes them, then what Stratex reads back.
    SearchSettings settings = llamaSettings(24, 32);
    settings.allocator_reserve_fraction = 0.1;
    const Plan plan = searched(24, 32);
    const model::ModelDescription model = llama7b();
    const hardware::ClusterDescription cluster { hardware::gpuPreset("a100-40gb"), 1, 8 };
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

void TestStrategyExports::cliJsonShapes()
{
    NullProgress progress;
    const SearchResult result = stratex::galvatron::search(llamaInputs(), llamaSettings(36, 16), progress, 2);
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
