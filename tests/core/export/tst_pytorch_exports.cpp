// SPDX-License-Identifier: GPL-3.0-or-later
// The PyTorch exports of a searched Galvatron plan read back as PyTorch and torchtitan read them
// (pytorch_rules.h: their rules, written down from their sources).
#include <map>
#include <regex>
#include <set>
#include <variant>

#include <QTest>

#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/export/plan_export.h"
#include "core/export/pytorch_exports.h"
#include "core/export/torchtitan_module.h"
#include "core/model/model_presets.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/synthesized_inputs.h"

#include "export_test_util.h"
#include "pytorch_rules.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::exporting;
using namespace stratex::test;
using namespace stratex::test::pytorch;

namespace {

Plan handMade(
    const std::vector<int>& division, int tp, int sp, galvatron::DpType dpType, galvatron::PipelineType type, int chunks)
{
    Plan plan;
    plan.pp = int(division.size());
    plan.world = 8;
    plan.pp_division = division;
    plan.gbsz = 64;
    plan.chunks = chunks;
    plan.pipeline_type = type;
    for (int n : division) {
        for (int i = 0; i < n; ++i) {
            galvatron::LayerStrategy s;
            s.pp = plan.pp;
            s.tp = tp;
            s.sp = sp;
            s.dp = 8 / (plan.pp * tp * sp);
            s.dp_type = s.dp > 1 ? dpType : galvatron::DpType::Ddp;
            s.checkpoint = i % 2 == 0;
            plan.layers.push_back(s);
        }
    }
    plan.embedding = { plan.pp, tp, sp, 1, 8 / (plan.pp * tp * sp), galvatron::DpType::Zero2 };
    return plan;
}

} // namespace

Q_DECLARE_METATYPE(stratex::galvatron::Plan)
Q_DECLARE_METATYPE(stratex::model::ModelDescription)

class TestPytorchExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rulesCatchViolations();
    void scheduleCsv_data();
    void scheduleCsv();
    void torchtitanConfig_data();
    void torchtitanConfig();
};

void TestPytorchExports::rulesCatchViolations()
{
    // A backward before its forward, a missing micro-batch, a deadlock.
    std::vector<std::string> errors;
    QVERIFY(joined(scheduleViolations(loadCsv("0B0,0F0\n1F0,1B0\n", errors), 2, 1)).find("backward before forward")
        != std::string::npos);
    QVERIFY(joined(scheduleViolations(loadCsv("0F0,0B0\n1F0,1B0\n", errors), 2, 2)).find("every micro-batch")
        != std::string::npos);
    QVERIFY(
        joined(scheduleViolations(loadCsv("0F0,0B0,0F1,0B1\n1F1,1F0,1B0,1B1\n", errors), 2, 2)).find("waits forever")
        != std::string::npos);
    QVERIFY(errors.empty());
    loadCsv("0X0\n", errors);
    QCOMPARE(errors.size(), std::size_t(1));
    // An unknown TOML field, a world size that does not add up, a batch that does not divide.
    const Toml bad = parseToml("[parallelism]\ntensor_parallel_degree = 2\ndata_parallel_shard_degree = 2\nzero = 3\n"
                               "[training]\nlocal_batch_size = 3\nglobal_batch_size = 16\n",
        errors);
    const std::string v = joined(torchtitanViolations(bad, 8, 4));
    QVERIFY2(v.find("Invalid field names in parallelism: zero") != std::string::npos, v.c_str());
    QVERIFY2(v.find("!= world size") != std::string::npos, v.c_str());
    QVERIFY2(v.find("multiple of local batch size") != std::string::npos, v.c_str());
}

void TestPytorchExports::scheduleCsv_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::newRow("7B, 24 GB: pp 4, 1F1B") << searched(24, 32);
    QTest::newRow("GPipe, 8 micro-batches")
        << handMade({ 8, 8, 8, 8 }, 1, 1, galvatron::DpType::Ddp, galvatron::PipelineType::GPipe, 8);
    QTest::newRow("1F1B, fewer micro-batches than stages")
        << handMade({ 8, 8, 8, 8 }, 1, 1, galvatron::DpType::Ddp, galvatron::PipelineType::PipeDreamFlush, 2);
    QTest::newRow("one stage") << searched(36, 16);
}

void TestPytorchExports::scheduleCsv()
{
    QFETCH(Plan, plan);
    const std::string csv = pipelineScheduleCsv(plan);
    std::vector<std::string> errors;
    const std::vector<std::vector<Action>> ranks = loadCsv(csv, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations = joined(scheduleViolations(ranks, plan.pp, plan.chunks));
    QVERIFY2(violations.empty(), (violations + csv).c_str());
    // As ScheduleGPipe / Schedule1F1B order them.
    for (int r = 0; r < plan.pp; ++r) {
        const std::vector<Action>& actions = ranks[std::size_t(r)];
        QCOMPARE(int(actions.size()), 2 * plan.chunks);
        int warmup = 0;
        while (warmup < int(actions.size()) && actions[std::size_t(warmup)].type == "F")
            ++warmup;
        const int expected
            = plan.pipeline_type == galvatron::PipelineType::GPipe ? plan.chunks : std::min(plan.chunks, plan.pp - r);
        QCOMPARE(warmup, expected);
        for (const Action& a : actions)
            QCOMPARE(a.stage, r);
    }
    // The export entry point writes the same bytes, needing no model.
    QCOMPARE(exportPlan(ExportFormat::PytorchSchedule, plan, test::llamaSettings(36, plan.gbsz)).text, csv);
}

void TestPytorchExports::torchtitanConfig_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<model::ModelDescription>("model");
    QTest::addColumn<QString>("expect"); // "section.key=value" items, ';'-separated
    QTest::addColumn<bool>("warned");
    QTest::newRow("7B, 36 GB: ZeRO-3, 20 of 32 layers recomputed")
        << searched(36, 16) << resizedModel("llama2-7b", 32, 2048)
        << "parallelism.data_parallel_shard_degree=8;parallelism.fsdp_reshard_after_forward=always;"
           "activation_checkpoint.mode=selective;activation_checkpoint.selective_ac_option=1;"
           "training.local_batch_size=2;training.global_batch_size=16"
        << false;
    QTest::newRow("7B, 24 GB: pp 4, 16 micro-batches")
        << searched(24, 32) << resizedModel("llama2-7b", 32, 2048)
        << "parallelism.pipeline_parallel_degree=4;parallelism.tensor_parallel_degree=2;"
           "parallelism.pipeline_parallel_microbatch_size=2;training.local_batch_size=32"
        << false;
    QTest::newRow("Llama 3 8B flavor, GPipe, ZeRO-2")
        << handMade({ 16, 16 }, 2, 1, galvatron::DpType::Zero2, galvatron::PipelineType::GPipe, 8)
        << resizedModel("llama3-8b", 32, 8192)
        << "model.name=llama3;model.flavor=8B;parallelism.pipeline_parallel_schedule=GPipe;"
           "parallelism.fsdp_reshard_after_forward=never;parallelism.data_parallel_shard_degree=2"
        << false;
    QTest::newRow("Ulysses as context parallelism, DDP")
        << handMade({ 32 }, 1, 4, galvatron::DpType::Ddp, galvatron::PipelineType::PipeDreamFlush, 4)
        << resizedModel("llama3-8b", 32, 8192)
        << "parallelism.context_parallel_degree=4;parallelism.data_parallel_replicate_degree=2;"
           "training.local_batch_size=8"
        << false;
    QTest::newRow("too few micro-batches for 1F1B")
        << handMade({ 8, 8, 8, 8 }, 1, 1, galvatron::DpType::Ddp, galvatron::PipelineType::PipeDreamFlush, 2)
        << resizedModel("llama2-13b", 32, 4096) << "parallelism.pipeline_parallel_degree=4" << true;
}

void TestPytorchExports::torchtitanConfig()
{
    QFETCH(Plan, plan);
    QFETCH(model::ModelDescription, model);
    QFETCH(QString, expect);
    QFETCH(bool, warned);
    const SearchSettings settings = test::llamaSettings(36, plan.gbsz);
    // torchtitan v0.2's TOML (--torchtitan-version 0.2); main's module: tst_torchtitan_module.
    TorchtitanConfig config = torchtitanExport(TorchtitanVersion::V0_2, plan, settings, model);
    const ExportedFile file { std::move(config.text), false, std::move(config.notes) };
    std::vector<std::string> errors;
    const Toml toml = parseToml(file.text, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations = joined(torchtitanViolations(toml, plan.world, int(plan.layers.size())));
    QCOMPARE(violations.find("Schedule1F1B") != std::string::npos, warned);
    QCOMPARE(!refusals(file.notes).empty(), warned);
    if (!warned)
        QVERIFY2(violations.empty(), (violations + file.text).c_str());
    QCOMPARE(intOf(toml, "training", "seq_len", 0), static_cast<long long>(model.seq_length));
    QCOMPARE(intOf(toml, "training", "global_batch_size", 0), static_cast<long long>(plan.gbsz));
    for (const QString& item : expect.split(';')) {
        const std::string section = item.section('.', 0, 0).toStdString();
        const std::string key = item.section('.', 1).section('=', 0, 0).toStdString();
        const std::string value = item.section('=', 1).toStdString();
        QVERIFY2(toml.contains(section) && toml.at(section).contains(key), qPrintable(item));
        const TomlValue& found = toml.at(section).at(key);
        const std::string shown = std::holds_alternative<long long>(found) ? std::to_string(std::get<long long>(found))
                                                                           : std::get<std::string>(found);
        QCOMPARE(QString::fromStdString(shown), QString::fromStdString(value));
    }
    // Micro-batches per step as the plan's: torchtitan splits the local batch (pp > 1) or
    // accumulates gradients over it.
    const long long dp = intOf(toml, "parallelism", "data_parallel_replicate_degree", 1)
        * intOf(toml, "parallelism", "data_parallel_shard_degree", 1);
    const long long local = intOf(toml, "training", "local_batch_size", 0);
    const long long steps = plan.pp > 1 ? local / intOf(toml, "parallelism", "pipeline_parallel_microbatch_size", 1)
                                        : plan.gbsz / (local * dp);
    QCOMPARE(steps, static_cast<long long>(plan.chunks));
    // The model is required.
    QVERIFY_THROWS_EXCEPTION(Error, exportPlan(ExportFormat::Torchtitan, plan, settings));
}

QTEST_GUILESS_MAIN(TestPytorchExports)
#include "tst_pytorch_exports.moc"
