// SPDX-License-Identifier: GPL-3.0-or-later
// The exports of a Stratex plan file (a Megatron-space strategy) to PyTorch, torchtitan, Galvatron
// and PaddleNLP, checked against the targets' own rules (pytorch_rules.h: written down from PyTorch
// and torchtitan), and the targets that cannot express a dimension refusing it by name. The
// Megatron-LM export: tst_megatron_plan_exports.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QTest>

#include "core/common/error.h"
#include "core/export/plan_file_export.h"
#include "core/export/torchtitan_module.h"
#include "core/model/model_presets.h"
#include "core/hardware/hardware_model.h"
#include "core/hardware/cluster_description.h"

#include "export_test_util.h"
#include "plan_file_test_util.h"
#include "pytorch_rules.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;
using megatron::ParallelStrategy;
using megatron::PipelineSchedule;
using megatron::Precision;
using megatron::Recompute;

Q_DECLARE_METATYPE(stratex::megatron::PlanFile)

class TestPlanExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void invalidStrategiesRefused_data();
    void invalidStrategiesRefused();
    void scheduleCsv_data();
    void scheduleCsv();
    void torchtitan_data();
    void torchtitan();
    void galvatronAndPaddle_data();
    void galvatronAndPaddle();
};


void TestPlanExports::invalidStrategiesRefused_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("rule");
    QTest::newRow("heads over tp") << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=3 pp=1 dp=2 gbs=16")
                                   << "is not divisible by tp 3";
    // Llama 3 8B: 8 key/value heads, 4 a rank at tp 2, which Ulysses cannot split over cp 8.
    QTest::newRow("ulysses heads over cp")
        << planOf("llama3-8b", 0, 32768, "h100-80gb", 2, "tp=2 cp=8 cpcomm=a2a dp=1 sp=1 zero=1 gbs=16")
        << "cp_comm_type a2a needs each TP rank's heads (16 query, 4 key/value) divisible by cp 8";
    // schedules.py (Megatron-LM d98e8a64) raises at the first step: megatron::strategyProblems.
    QTest::newRow("interleaved with micro-batches Megatron refuses")
        << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 vpp=2 dp=1 gbs=6 schedule=interleaved")
        << "the interleaved schedule needs the micro-batches (global_batch_size / (micro_batch_size x dp) = 6) "
           "to be a multiple of pp 4";
}

void TestPlanExports::invalidStrategiesRefused()
{
    // Megatron would not start: no format writes it, each names the rule.
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, rule);
    for (ExportFormat format : exportFormats()) {
        try {
            exportPlanFile(format, plan);
            QFAIL(exportFormatName(format).data());
        } catch (const Error& error) {
            const std::string what = error.what();
            QVERIFY2(what.find("plan.json: not exported to") != std::string::npos, what.c_str());
            QVERIFY2(what.find(rule.toStdString()) != std::string::npos, what.c_str());
        }
    }
}

void TestPlanExports::scheduleCsv_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("types"); // the compute types the CSV holds
    QTest::newRow("1F1B") << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 dp=1 gbs=8") << "BF";
    QTest::newRow("interleaved, vpp 2") << planOf(
        "llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 vpp=2 dp=1 gbs=8 schedule=interleaved")
                                        << "BF";
    // torchtitan's torch.distributed.pipelining takes what Megatron's interleaving refuses.
    QTest::newRow("interleaved, vpp 4, micro-batches not a multiple of pp")
        << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 vpp=4 dp=1 gbs=6 schedule=interleaved framework=torchtitan")
        << "BF";
    QTest::newRow("ZB-H1") << planOf("llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 dp=1 gbs=8 schedule=zb-h1") << "FIW";
    QTest::newRow("one stage, ZB-H1") << planOf(
        "llama2-7b", 0, 0, "a100-80gb", 1, "tp=8 pp=1 dp=1 gbs=3 schedule=zb-h1")
                                      << "FIW";
}

void TestPlanExports::scheduleCsv()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, types);
    const ParallelStrategy& s = plan.strategy;
    const std::string csv = exportPlanFile(ExportFormat::PytorchSchedule, plan).text;
    std::vector<std::string> errors;
    const auto ranks = pytorch::loadCsv(csv, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations = joined(pytorch::scheduleViolations(ranks, s.pp * s.vpp, s.microbatches(), s.pp));
    QVERIFY2(violations.empty(), (violations + csv).c_str());
    std::set<char> found;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        for (const pytorch::Action& a : ranks[r]) {
            found.insert(a.type.front());
            QCOMPARE(a.stage % s.pp, int(r)); // the loop placement of looped schedules
        }
    }
    QCOMPARE(QString::fromStdString(std::string(found.begin(), found.end())), types);
    // Megatron's interleaved warm-up: (pp - r - 1) x 2 + (vpp - 1) x pp forwards before the first
    // backward (schedules.py get_pp_rank_microbatches), capped by all of them.
    if (s.vpp > 1 && s.microbatches() % s.pp == 0) {
        for (int r = 0; r < s.pp; ++r) {
            const auto& actions = ranks[std::size_t(r)];
            const auto firstBackward
                = std::find_if(actions.begin(), actions.end(), [](const pytorch::Action& a) { return a.type != "F"; });
            const int total = s.microbatches() * s.vpp;
            const int expected = std::min((s.pp - r - 1) * 2 + (s.vpp - 1) * s.pp + 1, total);
            QCOMPARE(int(firstBackward - actions.begin()), expected);
        }
    }
}

void TestPlanExports::torchtitan_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // "section.key=value" items, ';'-separated
    QTest::addColumn<int>("parts"); // model parts (0: no pipeline)
    QTest::newRow("Llama 3 70B: interleaved, FSDP ZeRO-3, full AC")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8,
               "tp=8 pp=4 vpp=2 dp=2 sp=1 zero=3 recompute=full gbs=64 schedule=interleaved")
        << "model.name=llama3;model.flavor=70B;parallelism.pipeline_parallel_schedule=Interleaved1F1B;"
           "parallelism.fsdp_reshard_after_forward=always;parallelism.data_parallel_shard_degree=2;"
           "activation_checkpoint.mode=full;training.local_batch_size=32"
        << 8;
    QTest::newRow("Llama 3 8B: ZB-H1 from the schedule CSV, selective AC")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=1 pp=4 dp=2 zero=1 recompute=selective gbs=16 schedule=zb-h1")
        << "parallelism.pipeline_parallel_schedule=PipelineScheduleSingle;"
           "parallelism.pipeline_parallel_schedule_csv=pipeline_schedule.csv;parallelism.fsdp_reshard_after_forward="
           "never;activation_checkpoint.mode=selective;activation_checkpoint.selective_ac_option=op"
        << 4;
    QTest::newRow("context parallelism, DDP, no pipeline")
        << planOf("llama3-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 gbs=8")
        << "parallelism.context_parallel_degree=2;parallelism.data_parallel_replicate_degree=2;"
           "training.local_batch_size=1;training.seq_len=32768;activation_checkpoint.mode=none"
        << 0;
    QTest::newRow("DeepSeek-V3-style: EP, torchtitan's 671B flavour")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024")
        << "model.name=deepseek_v3;model.flavor=671B;parallelism.expert_parallel_degree=16;"
           "parallelism.expert_tensor_parallel_degree=1"
        << 8;
    // TP communication overlap (issue 22): AsyncTP, which needs torch.compile.
    QTest::newRow("AsyncTP with compile")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=4 dp=2 sp=1 zero=1 gbs=16 tpoverlap=1")
        << "parallelism.enable_async_tensor_parallel=true;compile.enable=true;parallelism.tensor_parallel_degree=4"
        << 0;
    QTest::newRow("Qwen 2.5 (no flavour), FP8")
        << planOf("qwen2.5-14b", 0, 0, "h100-80gb", 1, "tp=4 pp=2 dp=1 sp=1 precision=fp8 gbs=16")
        << "quantize.linear.float8.recipe_name=tensorwise;"
           "training.local_batch_size=16"
        << 2;
}

void TestPlanExports::torchtitan()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(int, parts);
    // torchtitan v0.2's TOML (--torchtitan-version 0.2); main's module: tst_torchtitan_module.
    TorchtitanConfig config = torchtitanExport(TorchtitanVersion::V0_2, plan);
    const ExportedFile file { std::move(config.text), false, std::move(config.notes) };
    std::vector<std::string> errors;
    const pytorch::Toml toml = pytorch::parseToml(file.text, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations
        = joined(pytorch::torchtitanViolations(toml, plan.cluster.worldSize(), plan.model.num_layers));
    QVERIFY2(violations.empty(), (violations + file.text).c_str());
    QVERIFY2(refusals(file.notes).empty(), joined(file.notes).c_str());
    for (const QString& item : expect.split(';')) {
        const std::string key = item.section('=', 0, 0).toStdString();
        const std::string section = key.substr(0, key.rfind('.'));
        const std::string field = key.substr(key.rfind('.') + 1);
        QVERIFY2(toml.contains(section) && toml.at(section).contains(field), qPrintable(item));
        const pytorch::TomlValue& found = toml.at(section).at(field);
        const std::string shown = std::holds_alternative<long long>(found) ? std::to_string(std::get<long long>(found))
            : std::holds_alternative<bool>(found)                          ? (std::get<bool>(found) ? "true" : "false")
                                                                           : std::get<std::string>(found);
        QCOMPARE(QString::fromStdString(shown), item.section('=', 1));
    }
    const bool hasParts = toml.contains("parallelism") && toml.at("parallelism").contains("module_fqns_per_model_part");
    QCOMPARE(hasParts
            ? int(std::get<pytorch::TomlArray>(toml.at("parallelism").at("module_fqns_per_model_part")).size())
            : 0,
        parts);
    const bool flavour = toml.contains("model") && toml.at("model").contains("flavor");
    QCOMPARE(flavour, file.text.find("# [model]: torchtitan v0.2 ships") == std::string::npos);
    // The batch is the plan's: local batch x data-parallel degree x accumulation steps.
    const long long dp = pytorch::intOf(toml, "parallelism", "data_parallel_replicate_degree", 1)
        * pytorch::intOf(toml, "parallelism", "data_parallel_shard_degree", 1);
    QCOMPARE(dp, static_cast<long long>(plan.strategy.dp));
    const long long local = pytorch::intOf(toml, "training", "local_batch_size", 0);
    QCOMPARE(plan.strategy.pp > 1 ? local * dp : local * dp * plan.strategy.microbatches(),
        static_cast<long long>(plan.strategy.global_batch_size));
}

void TestPlanExports::galvatronAndPaddle_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("refused"); // the dimension named, or "" when exported
    QTest::addColumn<QString>("warned"); // a warning part, or ""
    // Galvatron refuses it too (main exports CP and EP: tst_galvatron_cp_ep checks them).
    QTest::addColumn<bool>("galvatronRefuses");
    QTest::newRow("uniform, ZeRO-3") << planOf("llama2-7b", 0, 0, "a100-80gb", 2, "tp=2 pp=2 dp=4 sp=1 zero=3 gbs=64")
                                     << ""
                                     << "" << false;
    QTest::newRow("ZeRO-1, selective recompute, uneven stages")
        << planOf("llama2-13b", 0, 0, "a100-80gb", 2, "tp=2 pp=4 dp=2 sp=1 zero=1 recompute=selective gbs=64 first=8")
        << ""
        << "selective recompute planned" << false;
    QTest::newRow("gradient-accumulation fusion off: said")
        << planOf("llama2-7b", 0, 0, "a100-80gb", 2, "tp=2 pp=2 dp=4 sp=1 zero=3 gbs=64 fusion=0")
        << ""
        << "gradient-accumulation fusion off planned" << false;
    QTest::newRow("virtual stages") << planOf(
        "llama2-7b", 0, 0, "a100-80gb", 1, "tp=2 pp=4 vpp=2 dp=1 gbs=8 schedule=interleaved")
                                    << "virtual pipeline stages (vpp 2)"
                                    << "" << true;
    QTest::newRow("context parallelism") << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 gbs=8")
                                         << "ring context parallelism (cp 2)"
                                         << "" << false;
    QTest::newRow("expert parallelism") << planOf(
        "mixtral-8x7b", 0, 0, "h100-80gb", 2, "tp=2 pp=1 ep=4 dp=8 sp=1 zero=1 gbs=64")
                                        << "expert parallelism (ep 4, etp 1)"
                                        << "" << false;
}

void TestPlanExports::galvatronAndPaddle()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, refused);
    QFETCH(QString, warned);
    QFETCH(bool, galvatronRefuses);
    const ParallelStrategy& s = plan.strategy;
    for (ExportFormat format : { ExportFormat::Galvatron, ExportFormat::PaddleConfig, ExportFormat::PaddleScript }) {
        if (format == ExportFormat::Galvatron && !refused.isEmpty() && !galvatronRefuses)
            continue;
        if (!refused.isEmpty()) {
            QVERIFY_THROWS_EXCEPTION(Error, exportPlanFile(format, plan));
            try {
                exportPlanFile(format, plan);
            } catch (const Error& error) {
                QVERIFY2(QString::fromUtf8(error.what()).contains(refused), error.what());
                QVERIFY2(QString::fromUtf8(error.what()).contains(QStringLiteral("cannot be expressed")), error.what());
            }
            continue;
        }
        const ExportedFile file = exportPlanFile(format, plan);
        if (!warned.isEmpty())
            QVERIFY2(
                joined(file.notes).find(warned.toStdString()) != std::string::npos, joined(file.notes).c_str());
        if (format == ExportFormat::PaddleScript) {
            QVERIFY(file.executable);
            QVERIFY(file.text.find("--pipeline_parallel_degree " + std::to_string(s.pp)) != std::string::npos);
            continue;
        }
        const nlohmann::json json = nlohmann::json::parse(file.text);
        const std::vector<int> stages = megatron::stageLayerCounts(s, plan.model.num_layers);
        if (format == ExportFormat::Galvatron) {
            QCOMPARE(json.at("pp_deg").get<int>(), s.pp);
            QCOMPARE(json.at("global_bsz").get<int>(), s.global_batch_size);
            QCOMPARE(json.at("chunks").get<int>(), s.microbatches());
            QCOMPARE(json.at("world_size").get<int>(), plan.cluster.worldSize());
            QVERIFY(json.contains("model") && json.contains("cluster"));
        } else {
            QCOMPARE(json.at("pp_size").get<int>(), s.pp);
            QCOMPARE(json.at("gradient_accumulation_steps").get<int>(), s.microbatches());
            const std::string dp = json.at("dp_size_list").get<std::string>();
            QCOMPARE(dp.substr(0, dp.find(',')), std::to_string(s.dp));
            QCOMPARE(json.at("recompute_list").get<std::string>().front(), s.recompute == Recompute::None ? '0' : '1');
            // The stages' layer counts are the plan's.
            const std::string stageList = json.at("pp_stage_idx_list").get<std::string>();
            for (int stage = 0; stage < s.pp; ++stage) {
                const std::string tag = std::to_string(stage);
                int count = 0;
                std::size_t pos = 0;
                while (pos < stageList.size()) {
                    const std::size_t end = std::min(stageList.find(',', pos), stageList.size());
                    count += stageList.substr(pos, end - pos) == tag ? 1 : 0;
                    pos = end + 1;
                }
                QCOMPARE(count, stages[std::size_t(stage)]);
            }
        }
    }
}

QTEST_GUILESS_MAIN(TestPlanExports)
#include "tst_plan_exports.moc"
