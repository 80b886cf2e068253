// SPDX-License-Identifier: GPL-3.0-or-later
// The exports of a Stratex plan file (a Megatron-space strategy) checked against the targets' own
// rules (megatron_rules.h, pytorch_rules.h: written down from Megatron-LM, PyTorch and torchtitan),
// read back where the format allows (Megatron's arguments, as the argument dump Megatron prints for
// them, through the reader of measured runs into a strategy and a model), and the
// targets that cannot express a dimension refusing it by name.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include <QRegularExpression>
#include <QTest>

#include "core/common/error.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/plan_file_export.h"
#include "core/export/torchtitan_module.h"
#include "core/model/model_presets.h"
#include "core/hardware/hardware_model.h"
#include "core/runs/run_arguments.h"
#include "core/hardware/cluster_description.h"

#include "export_test_util.h"
#include "megatron_rules.h"
#include "plan_file_test_util.h"
#include "pytorch_rules.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;
using megatron::ParallelStrategy;
using megatron::PipelineSchedule;
using megatron::Precision;
using megatron::Recompute;

namespace {

hardware::HardwareModel hardwareOf(const megatron::PlanFile& plan)
{
    return hardware::HardwareModel(plan.cluster, hardware::efficiencyFor(plan.cluster.gpu));
}

} // namespace

Q_DECLARE_METATYPE(stratex::megatron::PlanFile)

class TestPlanExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void megatronRulesCatchViolations_data();
    void megatronRulesCatchViolations();
    void megatron_data();
    void megatron();
    void megatronScriptRecosts();
    void invalidStrategiesRefused_data();
    void invalidStrategiesRefused();
    void scheduleCsv_data();
    void scheduleCsv();
    void torchtitan_data();
    void torchtitan();
    void galvatronAndPaddle_data();
    void galvatronAndPaddle();
};

// The rules added for the Megatron-space flags must be able to fail.
void TestPlanExports::megatronRulesCatchViolations_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("violation");
    const QStringList base { "--num-layers", "32", "--hidden-size", "4096", "--num-attention-heads", "32",
        "--seq-length", "4096", "--max-position-embeddings", "4096", "--micro-batch-size", "1", "--global-batch-size",
        "16" };
    const QStringList moe { "--num-experts", "8", "--moe-router-topk", "2" };
    QTest::newRow("accepted") << base << "";
    QTest::newRow("vpp with one stage") << base + QStringList { "--num-virtual-stages-per-pipeline-rank", "2" }
                                        << "interleaved schedule with pipeline-model-parallel size 1";
    QTest::newRow("vpp with two stages, no p2p overlap") << base
            + QStringList { "--pipeline-model-parallel-size", "2", "--num-virtual-stages-per-pipeline-rank", "2",
                  "--no-overlap-p2p-communication" } << "interleaved schedule with pipeline-model-parallel size 2";
    QTest::newRow("two vpp flags") << base
            + QStringList { "--pipeline-model-parallel-size", "4", "--num-virtual-stages-per-pipeline-rank", "2",
                  "--num-layers-per-virtual-pipeline-stage", "4" }
                                   << "no more than one of";
    QTest::newRow("vpp not dividing a rank's layers")
        << base + QStringList { "--pipeline-model-parallel-size", "4", "--num-virtual-stages-per-pipeline-rank", "3" }
        << "not divisible by the virtual pipeline degree 3";
    QTest::newRow("uneven with the layer-count vpp") << base
            + QStringList { "--pipeline-model-parallel-size", "4", "--decoder-first-pipeline-num-layers", "5",
                  "--num-layers-per-virtual-pipeline-stage", "2" }
                                                     << "please use --num-virtual-stages-per-pipeline-rank";
    // Two query groups over tp 2: one key/value head a rank, which Ulysses cannot split over cp 4.
    const QStringList gqaCp4 { "--group-query-attention", "--num-query-groups", "2", "--tensor-model-parallel-size",
        "2", "--context-parallel-size", "4" };
    QTest::newRow("ulysses with one kv head a rank over cp 4")
        << base + gqaCp4 + QStringList { "--cp-comm-type", "a2a" } << "cp_comm_type a2a";
    QTest::newRow("ring with one kv head a rank over cp 4")
        << base + gqaCp4 + QStringList { "--cp-comm-type", "p2p" } << "";
    QTest::newRow("moe_act recompute without grouped GEMM")
        << base + moe + QStringList { "--recompute-granularity", "selective", "--recompute-modules", "moe_act" }
        << "only supported with moe_grouped_gemm";
    QTest::newRow("layernorm recompute with FP8 delayed scaling") << base
            + QStringList { "--recompute-granularity", "selective", "--recompute-modules", "layernorm", "--bf16",
                  "--fp8-format", "hybrid" } << "Delayed scaling does not support";
    QTest::newRow("an unknown recompute module")
        << base + QStringList { "--recompute-granularity", "selective", "--recompute-modules", "attention" }
        << "'attention' is not a choice";
    QTest::newRow("param gather without the distributed optimizer")
        << base + QStringList { "--overlap-grad-reduce", "--overlap-param-gather" } << "--overlap-param-gather needs";
    QTest::newRow("ep not dividing the experts")
        << base + moe + QStringList { "--expert-model-parallel-size", "3" } << "num_experts is not a multiple";
    QTest::newRow("expert grid") << base + moe
            + QStringList { "--expert-model-parallel-size", "8", "--expert-tensor-parallel-size", "2" }
                                 << "does not divide the data-parallel ranks";
    QTest::newRow("MoE and TP without SP")
        << base + moe + QStringList { "--tensor-model-parallel-size", "2" } << "needs --sequence-parallel";
    QTest::newRow("interleaved, micro-batches not a multiple of pp") << base
            + QStringList { "--pipeline-model-parallel-size", "4", "--num-virtual-stages-per-pipeline-rank", "2",
                  "--global-batch-size", "6" } << "3 micro-batches, not a multiple of pp 4";
    QTest::newRow("a bad attention backend")
        << base + QStringList { "--attention-backend", "flash_attn" } << "is not a choice";
    QTest::newRow("a bad FP8 format") << base + QStringList { "--bf16", "--fp8-format", "e5m2" } << "is not a choice";
    QTest::newRow("precision-aware optimizer without the distributed optimizer")
        << base + QStringList { "--use-precision-aware-optimizer" } << "only supported with distributed optimizer";
}

void TestPlanExports::megatronRulesCatchViolations()
{
    QFETCH(QStringList, args);
    QFETCH(QString, violation);
    megatron_rules::Args parsed;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const std::string flag = args[i].toStdString();
        const bool hasValue = i + 1 < args.size() && !args[i + 1].startsWith("--");
        parsed[flag] = hasValue ? args[++i].toStdString() : std::string();
    }
    std::map<std::string, std::string> env { { "CUDA_DEVICE_MAX_CONNECTIONS", "1" } };
    const std::string found = joined(megatron_rules::megatronViolations(parsed, env, false, 8));
    if (violation.isEmpty())
        QVERIFY2(found.empty(), found.c_str());
    else
        QVERIFY2(found.find(violation.toStdString()) != std::string::npos, found.c_str());
}

void TestPlanExports::megatron_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // "flag value" items the export holds, ';'-separated
    QTest::addColumn<QString>("absent"); // flags it must not hold, ';'-separated
    QTest::addColumn<QString>("comment"); // comment parts, ';'-separated
    QTest::addColumn<bool>("differs"); // Megatron runs something else than the plan
    QTest::newRow("70B: interleaved, distributed optimizer, selective")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8,
               "tp=8 pp=4 vpp=5 dp=2 sp=1 zero=1 recompute=selective mbs=1 gbs=128 schedule=interleaved")
        << "--num-virtual-stages-per-pipeline-rank 5;--use-distributed-optimizer;--overlap-grad-reduce;"
           "--overlap-param-gather;--recompute-granularity selective;--sequence-parallel;--bf16;"
           "--hidden-dropout 0.0;--attention-dropout 0.0"
        << "--recompute-method;--pipeline-model-parallel-layout;--use-megatron-fsdp;--context-parallel-size;"
           "--grad-reduce-in-bf16;--use-precision-aware-optimizer;--no-gradient-accumulation-fusion"
        << "" << false;
    QTest::newRow("uneven ends divisible by vpp")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8,
               "tp=8 pp=4 vpp=2 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved first=18 last=18")
        << "--num-virtual-stages-per-pipeline-rank 2;--decoder-first-pipeline-num-layers 18;"
           "--decoder-last-pipeline-num-layers 18"
        << "--pipeline-model-parallel-layout"
        << "" << false;
    QTest::newRow("uneven ends as a layout")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8,
               "tp=8 pp=4 vpp=2 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved first=19 last=17")
        // The first rank's 19 layers: 9 in its first chunk (beside the embedding), 10 in its
        // second (megatron::chunkLayerCounts, Llama 3's balanced ends; issue 22).
        << "--pipeline-model-parallel-layout Et*9|t*11|t*11|t*9|t*10|t*11|t*11|t*8L"
        << "--num-virtual-stages-per-pipeline-rank;--decoder-first-pipeline-num-layers"
        << "" << false;
    QTest::newRow("remainder on the last stage, no vpp")
        << planOf("llama2-13b", 30, 4096, "a100-80gb", 1, "tp=2 pp=4 dp=1 sp=1 gbs=16 last=9")
        << "--decoder-last-pipeline-num-layers 9"
        << "--num-virtual-stages-per-pipeline-rank"
        << "" << false;
    QTest::newRow("context parallelism, Megatron-FSDP ZeRO-3")
        << planOf("llama3-8b", 0, 32768, "h100-80gb", 2, "tp=2 cp=4 dp=2 sp=1 zero=3 recompute=full gbs=16")
        << "--context-parallel-size 4;--cp-comm-type p2p;--use-megatron-fsdp;"
           "--data-parallel-sharding-strategy optim_grads_params;--recompute-method uniform;--recompute-num-layers 1"
        << "--pipeline-model-parallel-size 2"
        << "Megatron-FSDP with TP or CP" << false;
    QTest::newRow("Ulysses context parallelism")
        << planOf("llama2-7b", 0, 32768, "h100-80gb", 2, "tp=2 cp=4 cpcomm=a2a dp=2 sp=1 zero=1 gbs=16")
        << "--context-parallel-size 4;--cp-comm-type a2a;--use-distributed-optimizer"
        << "--cp-comm-type p2p"
        << "" << false;
    // Issue 22: hierarchical CP needs its two levels (arguments.py); the a2a level is the node's 4
    // CP ranks (tp 2), the ring's 2 cross nodes (cp_comm.h, cpA2aGroupSize).
    QTest::newRow("hierarchical context parallelism")
        << planOf("llama2-7b", 0, 65536, "h100-80gb", 2, "tp=2 cp=8 cpcomm=a2a+p2p dp=1 sp=1 zero=1 gbs=8")
        << "--context-parallel-size 8;--cp-comm-type a2a+p2p;--hierarchical-context-parallel-sizes 4 2"
        << "--cp-comm-type p2p"
        << "" << false;
    QTest::newRow("all-gather context parallelism")
        << planOf("llama3-8b", 0, 32768, "h100-80gb", 2, "tp=2 cp=4 cpcomm=all_gather dp=2 sp=1 zero=1 gbs=16")
        << "--context-parallel-size 4;--cp-comm-type all_gather"
        << "--hierarchical-context-parallel-sizes"
        << "" << false;
    QTest::newRow("ZeRO-2 as Megatron-FSDP optim_grads")
        << planOf("llama2-7b", 0, 0, "a100-80gb", 2, "tp=1 pp=2 dp=8 zero=2 gbs=64")
        << "--use-megatron-fsdp;--data-parallel-sharding-strategy optim_grads;--ckpt-format fsdp_dtensor"
        << "--sequence-parallel"
        << "the distributed optimizer alone" << false;
    QTest::newRow("Mixtral: EP 4, ETP 1, all-to-all")
        << planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4, "tp=2 pp=4 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=64")
        << "--expert-model-parallel-size 4;--expert-tensor-parallel-size 1;--moe-token-dispatcher-type alltoall;"
           "--num-experts 8"
        << ""
        << "" << false;
    QTest::newRow("Qwen3-style MoE recipe: norms and MoE layers recomputed")
        << planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4,
               "tp=2 pp=4 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=64 recompute=selective modules=layernorm,moe")
        << "--recompute-granularity selective;--recompute-modules layernorm moe"
        << "--moe-grouped-gemm;--recompute-method"
        << "" << false;
    QTest::newRow("MoE activation recompute, FP8") << planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4,
        "tp=2 pp=4 ep=4 etp=1 dp=4 sp=1 zero=1 gbs=64 recompute=selective modules=layernorm,moe_act precision=fp8")
                                                   << "--recompute-modules layernorm "
                                                      "moe_act;--moe-grouped-gemm;--fp8-recipe tensorwise"
                                                   << ""
                                                   << "" << false;
    QTest::newRow("MoE with TP needs SP")
        << planOf("mixtral-8x7b", 0, 0, "h100-80gb", 4, "tp=2 pp=4 ep=2 etp=2 dp=4 sp=0 zero=1 gbs=64")
        << "--sequence-parallel;--expert-tensor-parallel-size 2"
        << ""
        << "sequence parallelism on" << true;
    QTest::newRow("ZB-H1 runs as 1F1B") << planOf(
        "llama2-13b", 0, 0, "a100-80gb", 2, "tp=4 pp=4 dp=1 sp=1 gbs=32 schedule=zb-h1")
                                        << "--pipeline-model-parallel-size 4"
                                        << "--num-virtual-stages-per-pipeline-rank"
                                        << "ZB-H1" << true;
    QTest::newRow("FP8, unfused attention, full recompute in groups")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1,
               "tp=2 pp=2 dp=2 sp=1 precision=fp8 flash=0 recompute=full groups=2 gbs=32 overlap=0")
        << "--fp8-format hybrid;--bf16;--attention-backend unfused;--recompute-num-layers 2"
        << "--overlap-grad-reduce;--fp16"
        << "FP8" << false;
    // The plan's attention kernel as Megatron's AttnBackend (docs/kernels.md §6); the framework's
    // default writes none (auto).
    QTest::newRow("cuDNN attention: --attention-backend fused")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 gbs=32 kernel=cudnn")
        << "--attention-backend fused"
        << "--attention-backend flash"
        << "" << false;
    QTest::newRow("flash-attn 2: --attention-backend flash")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 gbs=32 kernel=flash2")
        << "--attention-backend flash"
        << "--attention-backend fused"
        << "" << false;
    QTest::newRow("default attention kernel: auto")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 gbs=32")
        << ""
        << "--attention-backend"
        << "" << false;
    QTest::newRow("bf16 main gradients and optimizer states (Nemotron-4 340B's NeMo config)")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 grads=bf16 optim=bf16")
        << "--grad-reduce-in-bf16;--use-precision-aware-optimizer;--exp-avg-dtype bf16;--exp-avg-sq-dtype bf16;"
           "--use-distributed-optimizer"
        << ""
        << "" << false;
    // Dropout as costed (layer_cost.cpp): a plain MLP with Megatron's default 0.1, nothing written
    // (a gated model's 0.0 is in the first row).
    QTest::newRow("GPT-3: dropout at Megatron's default")
        << planOf("gpt3-13b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 zero=1 gbs=16")
        << "--num-layers 40"
        << "--hidden-dropout;--attention-dropout"
        << "" << false;
    // The strategy's gradient_accumulation_fusion (te_dummy_wgrad.h), written and read back.
    QTest::newRow("gradient-accumulation fusion off")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 fusion=0")
        << "--no-gradient-accumulation-fusion;--use-distributed-optimizer"
        << ""
        << "" << false;
    // TP communication overlap (issue 22): Megatron's switch beside sequence parallelism, read back.
    QTest::newRow("TP communication overlap")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 tpoverlap=1")
        << "--tp-comm-overlap;--sequence-parallel"
        << ""
        << "" << false;
    QTest::newRow("Qwen 2.5: QKV bias, ZeRO with one data-parallel rank")
        << planOf("qwen2.5-7b", 0, 0, "h100-80gb", 1, "tp=4 pp=2 dp=1 sp=1 zero=1 gbs=16")
        << "--add-qkv-bias;--disable-bias-linear;--num-query-groups 4"
        << "--use-distributed-optimizer;--overlap-param-gather"
        << "nothing to shard" << true;
}

void TestPlanExports::megatron()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(QString, absent);
    QFETCH(QString, comment);
    QFETCH(bool, differs);
    const hardware::HardwareModel hardware = hardwareOf(plan);
    const MegatronPlanArgs m = megatronPlanArgs(plan, &hardware);
    const megatron_rules::Args args = argsOf(m.arguments);
    QCOMPARE(args.size(), m.arguments.size()); // no flag twice
    const int world = plan.cluster.worldSize();
    const std::map<std::string, std::string> environment(m.environment.set.begin(), m.environment.set.end());
    const bool unset = std::find(m.environment.unset.begin(), m.environment.unset.end(), "CUDA_DEVICE_MAX_CONNECTIONS")
        != m.environment.unset.end();
    const std::string violations = joined(megatron_rules::megatronViolations(args, environment, unset, world));
    // Megatron refuses exactly what the export warns about.
    QCOMPARE(violations.empty(), refusals(m.notes).empty());
    if (refusals(m.notes).empty())
        QVERIFY2(violations.empty(), (violations + joined(megatronArgumentLines(m.arguments))).c_str());
    for (const QString& item : expect.split(';', Qt::SkipEmptyParts)) {
        const std::string flag = item.section(' ', 0, 0).toStdString();
        QVERIFY2(args.contains(flag), flag.c_str());
        QCOMPARE(QString::fromStdString(args.at(flag)), item.section(' ', 1));
    }
    for (const QString& item : absent.split(';', Qt::SkipEmptyParts)) {
        const std::string flag = item.section(' ', 0, 0).toStdString();
        const std::string value = item.section(' ', 1).toStdString();
        QVERIFY2(!args.contains(flag) || (!value.empty() && args.at(flag) != value), flag.c_str());
    }
    for (const QString& part : comment.split(';', Qt::SkipEmptyParts))
        QVERIFY2(joined(m.comments).find(part.toStdString()) != std::string::npos, joined(m.comments).c_str());
    // The layers per chunk Megatron builds are the plan's.
    std::vector<std::string> unused;
    QCOMPARE(megatron_rules::megatronChunks(args, unused), megatron::chunkLayerCounts(m.exported, plan.model.num_layers));
    // Costed: the plan, and what Megatron runs when it differs.
    QVERIFY(m.planned);
    QCOMPARE(m.recosted.has_value(), differs);
    QCOMPARE(!(m.exported == plan.strategy), differs);

    // Read back as Megatron prints the arguments at start: the strategy Megatron runs and the model,
    // read exactly (nothing missing, nothing approximated).
    const runs::RunArguments back
        = runs::runArguments(dumpOf(m.arguments, world, plan.model.vocab_size));
    QVERIFY2(back.missing.empty(), joined(back.missing).c_str());
    QVERIFY2(back.notes.empty(), joined(back.notes).c_str());
    QVERIFY(back.strategy && back.model);
    QCOMPARE(back.world_size, std::optional(world));
    QVERIFY2(sameRun(*back.strategy, m.exported, plan.model.num_layers),
        (back.strategy->notation() + " / " + m.exported.notation()).c_str());
    model::ModelDescription model = *back.model;
    model.name = plan.model.name;
    QCOMPARE(model, plan.model);
}

void TestPlanExports::megatronScriptRecosts()
{
    // The script says both predictions when Megatron runs something else, and launches with the
    // environment Megatron asserts on.
    const megatron::PlanFile plan
        = planOf("llama2-13b", 0, 0, "a100-80gb", 2, "tp=4 pp=4 dp=1 sp=1 gbs=32 schedule=zb-h1 overlap=0");
    const ExportedFile file = exportPlanFile(ExportFormat::Megatron, plan);
    QVERIFY(file.executable);
    QVERIFY(file.text.find("#   the plan:            ") != std::string::npos);
    QVERIFY(file.text.find("#   as Megatron runs it: ") != std::string::npos);
    QVERIFY(file.text.find(" s/iteration, memory per stage [") != std::string::npos);
    QVERIFY(file.text.find("exec env CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nnodes 2 --nproc-per-node 8")
        != std::string::npos);
    // The re-costed time is the 1F1B one, which has the larger bubble.
    const hardware::HardwareModel hardware = hardwareOf(plan);
    const MegatronPlanArgs m = megatronPlanArgs(plan, &hardware);
    QVERIFY(m.recosted->iteration_ms > m.planned->iteration_ms);
    // A plan that fits nowhere says so.
    const megatron::PlanFile huge = planOf("llama3-70b", 0, 0, "a100-40gb", 1, "tp=8 pp=1 dp=1 gbs=8");
    const ExportedFile over = exportPlanFile(ExportFormat::Megatron, huge);
    QVERIFY2(joined(over.notes).find("does not fit") != std::string::npos, joined(over.notes).c_str());
    QVERIFY(over.text.find("(DOES NOT FIT)") != std::string::npos);
}

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
