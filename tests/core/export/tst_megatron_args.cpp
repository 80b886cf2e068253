// SPDX-License-Identifier: GPL-3.0-or-later
// The Megatron-LM export of a searched Galvatron plan checked against Megatron-LM's own rules
// (megatron_rules.h, written down from its sources).
#include <map>
#include <regex>

#include <QTest>

#include "core/common/progress.h"
#include "core/export/megatron_args.h"
#include "core/model/model_presets.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/synthesized_inputs.h"

#include "export_test_util.h"
#include "megatron_rules.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::exporting;
using namespace stratex::test;
using namespace stratex::test::megatron_rules;

namespace {

// ---- the export under test ----

Args argsOf(const MegatronArgs& m)
{
    Args args;
    for (const auto& [flag, value] : m.arguments) {
        if (args.contains(flag))
            qWarning("flag given twice: %s", flag.c_str());
        args[flag] = value;
    }
    return args;
}

std::map<std::string, std::string> environmentOf(const MegatronArgs& m)
{
    return { m.environment.begin(), m.environment.end() };
}

bool unsetsConnections(const MegatronArgs& m)
{
    return std::find(m.unset_environment.begin(), m.unset_environment.end(), "CUDA_DEVICE_MAX_CONNECTIONS")
        != m.unset_environment.end();
}

// The model's architecture, read back from the arguments.
void checkModel(const Args& args, const model::ModelDescription& model)
{
    QCOMPARE(intOf(args, "--num-layers", 0), model.num_layers);
    QCOMPARE(intOf(args, "--hidden-size", 0), model.hidden_size);
    QCOMPARE(intOf(args, "--ffn-hidden-size", 0), model.ffn_hidden_size);
    QCOMPARE(intOf(args, "--num-attention-heads", 0), model.num_heads);
    QCOMPARE(intOf(args, "--num-query-groups", model.num_heads), model.num_kv_heads);
    QCOMPARE(intOf(args, "--seq-length", 0), model.seq_length);
    QCOMPARE(args.contains("--swiglu"), model.mlp == model::MlpKind::Gated);
    QCOMPARE(args.at("--normalization"), std::string(model.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm"));
    QCOMPARE(args.at("--position-embedding-type"),
        std::string(model.position == model::PositionEmbedding::Rope ? "rope" : "learned_absolute"));
    QCOMPARE(args.contains("--untie-embeddings-and-output-weights"), !model.tied_embeddings);
    QCOMPARE(args.contains("--num-experts"), model.moe.has_value());
    if (model.moe) {
        QCOMPARE(intOf(args, "--num-experts", 0), model.moe->num_experts);
        QCOMPARE(intOf(args, "--moe-router-topk", 0), model.moe->top_k);
        QCOMPARE(intOf(args, "--moe-ffn-hidden-size", 0), model.moe->expert_ffn_hidden_size);
        QCOMPARE(intOf(args, "--moe-shared-expert-intermediate-size", 0),
            model.moe->shared_experts * model.moe->shared_expert_ffn_hidden_size);
        QCOMPARE(args.contains("--moe-layer-freq"), model.moe->first_dense_layers > 0);
    }
}

// A hand-made plan on 8 GPUs: per-layer (tp, sp) and DP type, checkpoint flags, a division.
Plan handMade(const std::vector<int>& division, int tp, int sp, galvatron::DpType dpType, std::vector<bool> checkpoint = {})
{
    Plan plan;
    plan.pp = int(division.size());
    plan.world = 8;
    plan.pp_division = division;
    plan.gbsz = 64;
    plan.chunks = 8;
    int layers = 0;
    for (int n : division)
        layers += n;
    for (int i = 0; i < layers; ++i) {
        galvatron::LayerStrategy s;
        s.pp = plan.pp;
        s.tp = tp;
        s.sp = sp;
        s.dp = 8 / (plan.pp * tp * sp);
        s.dp_type = s.dp > 1 ? dpType : galvatron::DpType::Ddp;
        s.checkpoint = i < int(checkpoint.size()) && checkpoint[std::size_t(i)];
        plan.layers.push_back(s);
    }
    plan.embedding = { plan.pp, tp, sp, 1, 8 / (plan.pp * tp * sp), galvatron::DpType::Zero2 };
    return plan;
}

} // namespace

Q_DECLARE_METATYPE(stratex::galvatron::Plan)
Q_DECLARE_METATYPE(stratex::model::ModelDescription)

class TestMegatronArgs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rulesCatchViolations_data();
    void rulesCatchViolations();
    void exportsSatisfyMegatron_data();
    void exportsSatisfyMegatron();
    void goldenPlanRecosted();
    void seventyBillionPlan();
    void scriptLaunchesWithTheEnvironment();
};

// The rules above must be able to fail: hand-written argument sets Megatron rejects.
void TestMegatronArgs::rulesCatchViolations_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("environment"); // "" or "CUDA_DEVICE_MAX_CONNECTIONS=1"
    QTest::addColumn<QString>("violation");
    const QStringList base { "--num-layers", "32", "--hidden-size", "4096", "--num-attention-heads", "32",
        "--seq-length", "2048", "--max-position-embeddings", "2048", "--micro-batch-size", "1", "--global-batch-size",
        "16" };
    QTest::newRow("accepted") << base << ""
                              << "";
    QTest::newRow("unknown flag") << base + QStringList { "--zero-stage", "3" } << ""
                                  << "unknown flag --zero-stage";
    QTest::newRow("dropout 0 accepted") << base + QStringList { "--hidden-dropout", "0.0" } << ""
                                        << "";
    QTest::newRow("dropout of 1") << base + QStringList { "--attention-dropout", "1" } << ""
                                  << "needs a probability";
    QTest::newRow("bad choice") << base + QStringList { "--normalization", "rmsnorm" } << ""
                                << "is not a choice";
    QTest::newRow("heads vs tp") << base
            + QStringList { "--tensor-model-parallel-size", "8", "--num-attention-heads", "12" }
                                 << "CUDA_DEVICE_MAX_CONNECTIONS=1"
                                 << "num_attention_heads not a multiple of tp";
    QTest::newRow("tp without the environment") << base + QStringList { "--tensor-model-parallel-size", "2" } << ""
                                                << "CUDA_DEVICE_MAX_CONNECTIONS=1";
    QTest::newRow("uneven layers") << base
            + QStringList { "--pipeline-model-parallel-size", "3", "--global-batch-size", "15" }
                                   << ""
                                   << "world size not divisible";
    QTest::newRow("selective with a method")
        << base + QStringList { "--recompute-granularity", "selective", "--recompute-method", "block" } << ""
        << "selective recompute takes no method";
    QTest::newRow("full without a count")
        << base + QStringList { "--recompute-granularity", "full", "--recompute-method", "uniform" } << ""
        << "full recompute needs";
    QTest::newRow("layout without the loss") << base
            + QStringList { "--pipeline-model-parallel-size", "2", "--pipeline-model-parallel-layout", "Et*16|t*16" }
                                             << ""
                                             << "last layer must be the loss";
    QTest::newRow("layout with a wrong count") << base
            + QStringList { "--pipeline-model-parallel-size", "2", "--pipeline-model-parallel-layout", "Et*16|t*15L" }
                                               << ""
                                               << "decoder layers do not match";
    QTest::newRow("uneven middle") << base
            + QStringList { "--pipeline-model-parallel-size", "4", "--decoder-last-pipeline-num-layers", "9",
                  "--global-batch-size", "16" }
                                   << ""
                                   << "middle layers";
    QTest::newRow("fsdp with the tp environment") << base
            + QStringList { "--use-megatron-fsdp", "--ckpt-format", "fsdp_dtensor", "--tensor-model-parallel-size",
                  "2" } << "CUDA_DEVICE_MAX_CONNECTIONS=1"
                                                  << "FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset";
    QTest::newRow("groups without gqa") << base + QStringList { "--num-query-groups", "8" } << ""
                                        << "--num-query-groups without --group-query-attention";
    QTest::newRow("sequence parallel without tp") << base + QStringList { "--sequence-parallel" } << ""
                                                  << "--sequence-parallel with tp 1";
}

void TestMegatronArgs::rulesCatchViolations()
{
    QFETCH(QStringList, args);
    QFETCH(QString, environment);
    QFETCH(QString, violation);
    Args parsed;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const std::string flag = args[i].toStdString();
        const bool hasValue = i + 1 < args.size() && !args[i + 1].startsWith("--");
        parsed[flag] = hasValue ? args[++i].toStdString() : std::string();
    }
    std::map<std::string, std::string> env;
    if (!environment.isEmpty())
        env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1";
    const std::string found = joined(megatronViolations(parsed, env, false, 8));
    if (violation.isEmpty())
        QVERIFY2(found.empty(), found.c_str());
    else
        QVERIFY2(found.find(violation.toStdString()) != std::string::npos, found.c_str());
}

void TestMegatronArgs::exportsSatisfyMegatron_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<model::ModelDescription>("model");
    QTest::addColumn<QString>("expect"); // "flag value" pairs the export must hold, ';'-separated
    QTest::addColumn<QString>("comment"); // comments it must hold, ';'-separated, or ""
    using galvatron::DpType;
    const std::vector<bool> first20(20, true);
    QTest::newRow("7B golden") << searched(36, 16) << llama7b()
                               << "--use-megatron-fsdp;--data-parallel-sharding-strategy optim_grads_params;"
                                  "--recompute-method block;--recompute-num-layers 20;--micro-batch-size 2"
                               << "embedding / LM head: vtp 2 as Ulysses SP;embedding / LM head: ZeRO-3 planned";
    QTest::newRow("7B, 24 GB, pp 4")
        << searched(24, 32) << llama7b()
        << "--tensor-model-parallel-size 2;--pipeline-model-parallel-size 4;"
           "--sequence-parallel;--recompute-num-layers 8"
        << "layers 0-7: tp 1 (Megatron: one TP degree, 2);recomputes (per stage) 8, 5, 3, 1";
    QTest::newRow("remainder on the last stage")
        << handMade({ 7, 7, 7, 9 }, 2, 1, DpType::Ddp) << resizedModel("llama3-8b", 30, 8192)
        << "--decoder-last-pipeline-num-layers 9"
        << "";
    QTest::newRow("a smaller first stage")
        << handMade({ 6, 8, 8, 8 }, 1, 1, DpType::Zero2) << resizedModel("llama2-13b", 30, 4096)
        << "--decoder-first-pipeline-num-layers 6;--use-distributed-optimizer"
        << "ZeRO-2 runs as Megatron's distributed optimizer";
    QTest::newRow("both ends") << handMade({ 6, 9, 9, 6 }, 1, 1, DpType::Zero2) << resizedModel("llama2-13b", 30, 4096)
                               << "--decoder-first-pipeline-num-layers 6;--decoder-last-pipeline-num-layers 6"
                               << "";
    QTest::newRow("a layout") << handMade({ 5, 9, 8, 8 }, 1, 1, DpType::Ddp) << resizedModel("llama2-13b", 30, 4096)
                              << "--pipeline-model-parallel-layout Et*5|t*9|t*8|t*8L"
                              << "";
    QTest::newRow("Ulysses as context parallelism")
        << handMade({ 16, 16 }, 1, 4, DpType::Zero2, first20) << resizedModel("llama3-8b", 32, 8192)
        << "--context-parallel-size 4;--cp-comm-type a2a;"
           "--recompute-method block;--recompute-num-layers 16"
        << "recomputes (per stage) 16, 4 layers";
    QTest::newRow("every layer recomputed")
        << handMade({ 32 }, 4, 1, DpType::Zero3, std::vector<bool>(32, true)) << resizedModel("qwen2.5-7b", 32, 8192)
        << "--recompute-method uniform;--recompute-num-layers 1;--add-qkv-bias;"
           "--group-query-attention;--num-query-groups 4"
        << "";
    QTest::newRow("recomputed layers in the middle of a stage")
        << handMade({ 16, 16 }, 2, 1, DpType::Zero2, { false, true, true }) << resizedModel("llama2-7b", 32, 4096)
        << "--recompute-method block;--recompute-num-layers 2"
        << "the plan recomputes (per stage) 2, 0 layers, not always the first ones";
    Plan mixed = handMade({ 32 }, 1, 1, DpType::Zero2);
    for (int i = 0; i < 10; ++i)
        mixed.layers[std::size_t(i)].dp_type = DpType::Zero3;
    QTest::newRow("mixed ZeRO") << mixed << resizedModel("llama2-7b", 32, 4096) << "--use-megatron-fsdp"
                                << "per-layer ZeRO is not expressible (ZeRO-3 on 10 of 32 layers)";
    QTest::newRow("GPT-3: plain MLP, tied, learned positions")
        << handMade({ 24, 24 }, 2, 1, DpType::Zero2) << resizedModel("gpt3-13b", 48, 2048)
        << "--normalization LayerNorm;--position-embedding-type learned_absolute"
        << "";
    QTest::newRow("Mixtral") << handMade({ 16, 16 }, 2, 1, DpType::Zero2) << resizedModel("mixtral-8x7b", 32, 4096)
                             << "--num-experts 8;--moe-router-topk 2;--moe-ffn-hidden-size 14336"
                             << "expert parallelism: none";
    QTest::newRow("DeepSeek-style MoE") << handMade({ 8, 8 }, 2, 1, DpType::Zero2)
                                        << resizedModel("deepseek-v3-style", 16, 4096)
                                        << "--moe-shared-expert-intermediate-size 2048;--moe-layer-freq ([0]*3+[1]*13)"
                                        << "";
}

void TestMegatronArgs::exportsSatisfyMegatron()
{
    QFETCH(Plan, plan);
    QFETCH(model::ModelDescription, model);
    QFETCH(QString, expect);
    QFETCH(QString, comment);
    SearchSettings settings = test::llamaSettings(36, plan.gbsz);
    setModelShape(settings, model);
    const MegatronArgs m = megatronArgs(plan, settings, model);
    const Args args = argsOf(m);
    QCOMPARE(args.size(), m.arguments.size()); // no flag twice
    const std::string violations = joined(megatronViolations(args, environmentOf(m), unsetsConnections(m), plan.world));
    QVERIFY2(violations.empty(), (violations + joined(megatronArgumentLines(m.arguments))).c_str());
    // Nothing Megatron refuses; every comment of the script is a note of the export (issue 25).
    QVERIFY2(refusals(m.notes).empty(), joined(m.notes).c_str());
    for (const std::string& scriptComment : m.comments)
        QVERIFY2(joined(m.notes).find(scriptComment) != std::string::npos, scriptComment.c_str());
    checkModel(args, model);
    // The division Megatron builds is the plan's.
    std::vector<std::string> unused;
    QCOMPARE(megatronDivision(args, unused), plan.pp_division);
    for (const QString& item : expect.split(';')) {
        const QString flag = item.section(' ', 0, 0);
        const QString value = item.section(' ', 1);
        QVERIFY2(args.contains(flag.toStdString()), qPrintable(flag));
        QCOMPARE(QString::fromStdString(args.at(flag.toStdString())), value);
    }
    for (const QString& part : comment.split(';', Qt::SkipEmptyParts))
        QVERIFY2(joined(m.comments).find(part.toStdString()) != std::string::npos, joined(m.comments).c_str());
    if (comment.isEmpty())
        QVERIFY2(joined(m.comments).find("layer") == std::string::npos, joined(m.comments).c_str());
    // Every layer of what Megatron runs recomputes as the arguments say.
    QCOMPARE(int(m.exported.layers.size()), int(plan.layers.size()));
    int first = 0;
    for (int stage = 0; stage < plan.pp; ++stage) {
        for (int j = 0; j < plan.pp_division[std::size_t(stage)]; ++j) {
            const bool recomputed = args.contains("--recompute-method")
                && (args.at("--recompute-method") == "uniform" || j < intOf(args, "--recompute-num-layers", 0));
            QCOMPARE(m.exported.layers[std::size_t(first + j)].checkpoint, recomputed);
        }
        first += plan.pp_division[std::size_t(stage)];
    }
}

void TestMegatronArgs::goldenPlanRecosted()
{
    // The 7B golden plan: ZeRO-3 on every layer is Megatron-FSDP's optim_grads_params, not the
    // distributed optimizer (ZeRO-1), so what Megatron runs is re-costed near the plan, not at the
    // 48 GB the distributed optimizer would need.
    const SearchSettings settings = test::llamaSettings(36, 16);
    const galvatron::CostModel costModel = test::withCurveFit(test::llamaInputs(), settings);
    const Plan plan = searched(36, 16);
    const MegatronArgs m = megatronArgs(plan, settings, llama7b(), &costModel);
    QVERIFY(m.planned);
    QVERIFY(m.recosted);
    QCOMPARE(m.planned->stages[0].memory_cost_mb, 36757);
    const int recosted = m.recosted->stages[0].memory_cost_mb;
    QVERIFY2(recosted < 40000, std::to_string(recosted).c_str());
    QCOMPARE(m.recosted->fits, m.recosted->stages[0].memory_remaining_mb >= 0);
    // Fits, or said so.
    QCOMPARE(joined(m.notes).find("does not fit") != std::string::npos, !m.recosted->fits);
    const std::string script = megatronArgsScript(plan, settings, m);
    QVERIFY(script.find("#   the plan:            ") != std::string::npos);
    QVERIFY(script.find("[36757] MB of 36864 MB (fits)") != std::string::npos);
    QVERIFY(script.find("#   as Megatron runs it: ") != std::string::npos);

    // The distributed optimizer instead (what the export wrote before): re-costed as ZeRO-2 it
    // needs more than the budget.
    Plan zero2 = plan;
    for (galvatron::LayerStrategy& s : zero2.layers)
        s.dp_type = galvatron::DpType::Zero2;
    const MegatronArgs d = megatronArgs(zero2, settings, llama7b(), &costModel);
    QVERIFY(d.recosted);
    QVERIFY(!d.recosted->fits);
    QVERIFY2(joined(d.notes)
                 .find("the Megatron-LM version does not fit the memory budget of 36864 MB per GPU: "
                       "stage 0 needs ")
            != std::string::npos,
        joined(d.notes).c_str());
    QVERIFY(megatronArgsScript(zero2, settings, d).find("(DOES NOT FIT: stage 0 needs") != std::string::npos);
}

void TestMegatronArgs::seventyBillionPlan()
{
    // Llama 2 70B on 8 x 8 H100 (estimated profiles): the searched plan's Megatron arguments satisfy
    // every rule, and what Megatron runs fits the budget or is flagged.
    const model::ModelDescription model = model::modelPreset("llama2-70b");
    const hardware::ClusterDescription cluster { hardware::gpuPreset("h100-80gb"), 8, 8 };
    SearchSettings settings;
    settings.num_nodes = 8;
    settings.memory_constraint_gb = 80;
    settings.settle_bsz = 64;
    setModelShape(settings, model);
    const galvatron::CostModel costModel
        = buildCostModel(synthesizedInputs(model, cluster, settings.mixed_precision), settings);
    NullProgress progress;
    const SearchResult result = galvatron::search(costModel, settings, progress, 2);
    QVERIFY(result.best);
    for (const Plan& plan : { *result.best, result.top.back() }) {
        const MegatronArgs m = megatronArgs(plan, settings, model, &costModel);
        const Args args = argsOf(m);
        const std::string violations = joined(megatronViolations(args, environmentOf(m), unsetsConnections(m), 64));
        QVERIFY2(violations.empty(), violations.c_str());
        checkModel(args, model);
        QVERIFY(args.contains("--group-query-attention"));
        QCOMPARE(args.at("--num-query-groups"), std::string("8"));
        QVERIFY2(m.recosted, m.not_costed.c_str());
        QCOMPARE(joined(m.notes).find("does not fit") != std::string::npos, !m.recosted->fits);
        std::vector<std::string> unused;
        QCOMPARE(megatronDivision(args, unused), plan.pp_division);
    }
}

void TestMegatronArgs::scriptLaunchesWithTheEnvironment()
{
    // The script's MEGATRON_ARGS hold the arguments (values quoted where the shell would split
    // or glob them), and its launch line sets the environment Megatron asserts on.
    const Plan plan = handMade({ 5, 9, 8, 8 }, 2, 1, galvatron::DpType::Ddp);
    const model::ModelDescription model = resizedModel("llama2-13b", 30, 4096);
    SearchSettings settings = test::llamaSettings(36, 64);
    const MegatronArgs m = megatronArgs(plan, settings, model);
    const std::string script = megatronArgsScript(plan, settings, m);
    QVERIFY(script.find("    --pipeline-model-parallel-layout 'Et*5|t*9|t*8|t*8L'\n") != std::string::npos);
    QVERIFY(script.find("    exec env CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --standalone --nproc-per-node 8")
        != std::string::npos);
    QVERIFY(script.find("\"${MEGATRON_ARGS[@]}\" \"$@\"") != std::string::npos);
    // Megatron-FSDP: the variable is removed instead; several nodes need the rendezvous.
    settings.num_nodes = 2;
    Plan fsdp = handMade({ 32 }, 2, 1, galvatron::DpType::Zero3);
    fsdp.world = 16;
    for (galvatron::LayerStrategy& s : fsdp.layers)
        s.dp = 8;
    fsdp.embedding.dp = 8;
    const std::string sharded = megatronArgsScript(fsdp, settings, resizedModel("llama2-7b", 32, 4096));
    QVERIFY(sharded.find("    exec env -u CUDA_DEVICE_MAX_CONNECTIONS torchrun --nnodes 2 --nproc-per-node 8")
        != std::string::npos);
    QVERIFY(sharded.find("--master-addr \"${MASTER_ADDR:?set MASTER_ADDR}\"") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestMegatronArgs)
#include "tst_megatron_args.moc"
