// SPDX-License-Identifier: GPL-3.0-or-later
// The torchtitan main export (torchtitan_module.h) loads as torchtitan main: for the scenarios of
// issue 25 (VPP, CP ring and Ulysses, EP with and without expert TP, uneven stages, ZeRO 0-3,
// recompute modules, FP8 MoE, ZB-H1, GPipe, models torchtitan does not ship, Galvatron plans), the
// Python config module read back against torchtitan main's config dataclasses
// (torchtitan_module_reader.h) and compiled by python3 where there is one; and the checks
// themselves can fail.
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
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

namespace {

struct Scenario {
    std::string text;
    std::vector<ExportNote> notes;
    long long world = 0;
    int layers = 0;
};

} // namespace

Q_DECLARE_METATYPE(Scenario)

class TestTorchtitanModule : public QObject {
    Q_OBJECT

private:
    // Every scenario: its export, its world and layers.
    static void scenarios();

private Q_SLOTS:
    void loadsAsTorchtitanMain_data() { scenarios(); }
    void loadsAsTorchtitanMain();
    void compilesInPython_data() { scenarios(); }
    void compilesInPython();

    void checkerRejects_data();
    void checkerRejects();
    void flavourCheckerRejects_data();
    void flavourCheckerRejects();
};

void TestTorchtitanModule::scenarios()
{
    QTest::addColumn<Scenario>("scenario");
    const auto plan = [](const char* name, const megatron::PlanFile& p) {
        const TorchtitanConfig config = torchtitanModule(p);
        QTest::newRow(name) << Scenario { config.text, config.notes, p.cluster.worldSize(), p.model.num_layers };
    };
    plan("VPP", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 vpp=2 dp=2 sp=1 gbs=16 schedule=interleaved"));
    plan("CP ring", planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 zero=1 gbs=8"));
    plan("CP Ulysses", planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 cpcomm=a2a gbs=8"));
    plan("EP", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024"));
    plan("DeepSeek with CP", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 cp=2 pp=8 ep=16 dp=16 zero=1 gbs=1024"));
    plan("DeepSeek-V2-Lite: EP with TP", v2LitePlan());
    plan("DeepSeek-V2-Lite: CP", v2LitePlan("tp=1 cp=2 pp=2 ep=4 dp=4 zero=3 gbs=64"));
    plan("DeepSeek-V3 style: TP 8, EP 8", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32,
                                                 "tp=8 pp=8 ep=8 dp=4 sp=1 zero=1 gbs=1024"));
    plan("MLA with QK norm (refused)", mlaWithQkNorm());
    plan("EP + ETP (refused)",
        planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=2 pp=8 ep=8 etp=2 dp=16 sp=1 zero=1 gbs=1024"));
    plan("uneven stages", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 first=6 last=10 zero=1 gbs=16"));
    for (int zero = 0; zero <= 3; ++zero) {
        const std::string name = "ZeRO-" + std::to_string(zero);
        plan(name.c_str(),
            planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, QString("tp=2 dp=4 sp=1 gbs=16 zero=%1").arg(zero)));
    }
    plan("recompute modules",
        planOf("llama3.1-8b", 0, 0, "h100-80gb", 1,
            "tp=2 pp=2 dp=2 sp=1 zero=1 recompute=selective modules=core_attn,mlp,layernorm gbs=16"));
    plan("full recompute", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 recompute=full gbs=16"));
    plan("FP8 MoE",
        planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 precision=fp8 gbs=1024"));
    plan("ZB-H1", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 zero=1 gbs=16 schedule=zb-h1"));
    plan("GPipe", gpipePlan());
    plan("Llama 2: a registered flavour", planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"));
    plan("Llama 3 without scaling", planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"));
    plan("Mixtral (refused)",
        planOf("mixtral-8x7b", 0, 4096, "h100-80gb", 2, "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64 precision=fp8"));
    const auto galvatron = [](const char* name, const galvatron::Plan& p, int layers) {
        const model::ModelDescription m = resizedModel("llama2-7b", layers, 2048);
        const TorchtitanConfig config = torchtitanModule(p, galvatron::SearchSettings {}, m);
        QTest::newRow(name) << Scenario { config.text, config.notes, p.world, layers };
    };
    galvatron("Galvatron: ZeRO-3, 5 layers recomputed on stage 0",
        galvatronPlan({ 6, 2 }, 2, 1, galvatron::DpType::Zero3, 4, { 0, 1, 2, 3, 4 }), 8);
    galvatron("Galvatron: Ulysses, DDP", galvatronPlan({ 4, 4 }, 1, 2, galvatron::DpType::Ddp, 4, {}), 8);
    {
        // The plan a Galvatron search finds on the llama2-7b fixtures.
        const galvatron::SearchSettings settings = llamaSettings(36, 16);
        const galvatron::Plan p = searched(36, 16);
        const TorchtitanConfig config = torchtitanModule(p, settings, llama7b());
        QTest::newRow("Galvatron: searched on the fixtures")
            << Scenario { config.text, config.notes, p.world > 0 ? p.world : settings.world(), int(p.layers.size()) };
    }
}

void TestTorchtitanModule::loadsAsTorchtitanMain()
{
    QFETCH(Scenario, scenario);
    const Module m = readModule(scenario.text);
    const std::string fields = joined(fieldViolations(m));
    QVERIFY2(fields.empty(), (fields + scenario.text).c_str());
    const std::string startup = joined(startupViolations(m, scenario.world, scenario.layers));
    QVERIFY2(startup.empty(), (startup + scenario.text).c_str());
    const std::string flavour = joined(flavourViolations(scenario.text));
    QVERIFY2(flavour.empty(), (flavour + scenario.text).c_str());
    // A refusal raises before torchtitan builds anything; otherwise nothing is refused.
    QCOMPARE(m.raises, !refusals(scenario.notes).empty());
    // Every note is a comment of the file.
    for (const ExportNote& note : scenario.notes)
        QVERIFY2(scenario.text.find(commentLine(note.text)) != std::string::npos, note.text.c_str());
}

void TestTorchtitanModule::compilesInPython()
{
    QFETCH(Scenario, scenario);
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("no python3 on PATH");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("stratex_torchtitan.py"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(scenario.text.data(), qint64(scenario.text.size()));
    file.close();
    QProcess process;
    process.start(python, { QStringLiteral("-m"), QStringLiteral("py_compile"), path });
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, (process.readAllStandardError().toStdString() + scenario.text).c_str());
}

void TestTorchtitanModule::checkerRejects_data()
{
    // The field check fails on what main does not have, or a wrong type: it can fail.
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("violation");
    QTest::newRow("v0.2's local batch") << "config.training.local_batch_size = 8" << "torchtitan v0.2's field";
    QTest::newRow("v0.2's expert TP") << "config.parallelism.expert_tensor_parallel_degree = 2"
                                      << "torchtitan v0.2's field";
    QTest::newRow("no such field") << "config.parallelism.virtual_stages = 2" << "no such field";
    QTest::newRow("a string for an int") << "config.parallelism.tensor_parallel_degree = \"8\"" << "type";
    QTest::newRow("a reshard policy main lacks") << "config.parallelism.fsdp_reshard_after_forward = \"sometimes\""
                                                 << "type";
    QTest::newRow("an unknown schedule") << "config.parallelism.pipeline_parallel_schedule = \"ZBH1\"" << "type";
    QTest::newRow("v0.2's AC mode") << "config.activation_checkpoint = \"selective\"" << "type";
}

void TestTorchtitanModule::checkerRejects()
{
    QFETCH(QString, line);
    QFETCH(QString, violation);
    const std::string text = "def stratex_plan() -> Trainer.Config:\n    " + line.toStdString() + "\n    return config\n";
    const std::string found = joined(fieldViolations(readModule(text)));
    QVERIFY2(found.find(violation.toStdString()) != std::string::npos, found.c_str());
}

void TestTorchtitanModule::flavourCheckerRejects_data()
{
    // The flavour check fails on an argument main's builders lack, or a missing required one.
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("violation");
    QTest::newRow("a misspelt builder argument") << "        n_dense_layers=" << "        n_dense_layer="
                                                 << "no argument n_dense_layer";
    QTest::newRow("a RoPE field main lacks") << "            theta=" << "            base=" << "no argument base";
    QTest::newRow("the value head dropped") << "        v_head_dim=128,\n" << ""
                                           << "required argument v_head_dim missing";
    QTest::newRow("an MoE field main lacks") << "layer.moe.load_balance_coeff" << "layer.moe.aux_loss_coeff"
                                             << "no such MoE.Config field";
}

void TestTorchtitanModule::flavourCheckerRejects()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, violation);
    std::string text = torchtitanModule(v2LitePlan()).text;
    const std::size_t at = text.find(from.toStdString());
    QVERIFY2(at != std::string::npos, text.c_str());
    QVERIFY(flavourViolations(text).empty());
    text.replace(at, std::size_t(from.size()), to.toStdString());
    const std::string found = joined(flavourViolations(text));
    QVERIFY2(found.find(violation.toStdString()) != std::string::npos, (found + text).c_str());
}

QTEST_GUILESS_MAIN(TestTorchtitanModule)
#include "tst_torchtitan_module.moc"
