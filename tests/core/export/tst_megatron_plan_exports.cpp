// SPDX-License-Identifier: GPL-3.0-or-later
// A Stratex plan file's Megatron-LM export checked against Megatron's own rules (megatron_rules.h,
// written down from Megatron-LM's arguments.py and validate_args), read back through the reader of
// measured runs (Megatron's argument dump) into a strategy and a model, and its train script
// re-costed. The other targets' exports: tst_plan_exports.
#include <algorithm>

#include <QTest>

#include "core/common/error.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/plan_file_export.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/model/model_presets.h"
#include "core/runs/run_arguments.h"

#include "export_test_util.h"
#include "megatron_rules.h"
#include "plan_file_test_util.h"

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

class TestMegatronPlanExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void megatronRulesCatchViolations_data();
    void megatronRulesCatchViolations();
    void megatron_data();
    void megatron();
    void megatronScriptRecosts();
};

// The rules added for the Megatron-space flags must be able to fail.
void TestMegatronPlanExports::megatronRulesCatchViolations_data()
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

void TestMegatronPlanExports::megatronRulesCatchViolations()
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

void TestMegatronPlanExports::megatron_data()
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
           "--grad-reduce-in-bf16;--use-precision-aware-optimizer;--no-gradient-accumulation-fusion;"
           "--cross-entropy-loss-fusion"
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
    // The micro-batch group N (docs/memory-model.md, "Micro-batch group N"): written when not pp,
    // Megatron's default (model_parallel_config.py @ d98e8a64).
    QTest::newRow("micro-batch group 8 over pp 4")
        << planOf(
               "llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 vpp=5 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved n=8")
        << "--num-virtual-stages-per-pipeline-rank 5;--microbatch-group-size-per-virtual-pipeline-stage 8"
        << ""
        << "" << false;
    QTest::newRow("micro-batch group pp is not written") << planOf(
        "llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 vpp=5 dp=2 sp=1 zero=1 gbs=64 schedule=interleaved n=4")
                                                         << "--num-virtual-stages-per-pipeline-rank 5"
                                                         << "--microbatch-group-size-per-virtual-pipeline-stage"
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
    // The plan's FP8 recipe (docs/kernels.md §8): --fp8-recipe unless delayed, Megatron's default.
    QTest::newRow("FP8 recipe: Megatron-Core default, delayed")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32")
        << "--fp8-format hybrid" << "--fp8-recipe" << "delayed recipe (Megatron's default)" << false;
    QTest::newRow("FP8 recipe: tensorwise")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32 recipe=tensorwise")
        << "--fp8-format hybrid;--fp8-recipe tensorwise" << "" << "tensorwise recipe" << false;
    QTest::newRow("FP8 recipe: blockwise")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32 recipe=blockwise")
        << "--fp8-recipe blockwise" << "" << "" << false;
    QTest::newRow("FP8 recipe: mxfp8 on B200")
        << planOf("llama2-7b", 0, 0, "b200-192gb", 1, "tp=2 pp=2 dp=2 sp=1 precision=fp8 gbs=32 recipe=mxfp8")
        << "--fp8-recipe mxfp8" << "" << "" << false;
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
    // A plan costed without Megatron's asynchronous TP backward (docs/collectives.md, "TP backward
    // overlap"): Megatron-Core has no flag that turns it off, so the export says so.
    QTest::newRow("TP backward overlap off planned")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 tpasync=0")
        << "--sequence-parallel"
        << "--no-async-tensor-model-parallel-allreduce"
        << "Megatron-Core overlaps them with the weight- and data-gradient GEMMs and has no flag to turn that off"
        << true;
    // The fused cross-entropy loss (docs/memory-model.md, "Fused cross-entropy loss"), written and
    // read back; off (Megatron's default) it is not written (the rows above).
    QTest::newRow("fused cross-entropy loss")
        << planOf("llama3-70b", 0, 0, "h100-80gb", 8, "tp=8 pp=4 dp=2 sp=1 zero=1 gbs=64 cefusion=1")
        << "--cross-entropy-loss-fusion;--use-distributed-optimizer"
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
    // What the GPU runs (docs/kernels.md §10; gpu_support.h): Volta has FP16 tensor cores only and
    // no flash or cuDNN fused attention, Ampere no FP8. The export writes what Megatron runs there.
    QTest::newRow("V100: bf16 planned, --fp16 and unfused written")
        << planOf("llama2-7b", 8, 4096, "v100-32gb", 1, "tp=2 pp=2 dp=2 gbs=16")
        << "--fp16;--attention-backend unfused"
        << "--bf16;--use-flash-attn;--loss-scale;--fp8-format"
        << "bf16 on v100-32gb: Volta (sm70) has FP16 tensor cores only; written --fp16 with Megatron's dynamic loss "
           "scaling;attention on v100-32gb: Transformer Engine runs no flash-attention or cuDNN fused kernel"
        << true;
    QTest::newRow("V100: fp16 and flash2 planned, unfused written")
        << planOf("llama2-7b", 8, 4096, "v100-32gb", 1, "tp=2 pp=2 dp=2 gbs=16 precision=fp16 kernel=flash2")
        << "--fp16;--attention-backend unfused"
        << "--bf16;--use-flash-attn"
        << "flash2 on v100-32gb: no flash-attention or cuDNN fused kernel runs below sm80" << true;
    QTest::newRow("V100: fp16, unfused planned: as planned")
        << planOf("llama2-7b", 8, 4096, "v100-32gb", 1, "tp=2 pp=2 dp=2 gbs=16 precision=fp16 flash=0")
        << "--fp16;--attention-backend unfused"
        << "--bf16;--use-flash-attn"
        << "" << false;
    QTest::newRow("A100: fp8 planned, --bf16 written")
        << planOf("llama2-7b", 8, 4096, "a100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16 precision=fp8")
        << "--bf16"
        << "--fp8-format;--fp16;--attention-backend"
        << "fp8 on a100-80gb: no FP8 tensor cores (Transformer Engine runs FP8 from compute capability 8.9); "
           "written --bf16"
        << true;
    QTest::newRow("H100: fp8 as planned")
        << planOf("llama2-7b", 8, 4096, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16 precision=fp8")
        << "--bf16;--fp8-format hybrid"
        << "--fp16;--attention-backend"
        << "" << false;
}

void TestMegatronPlanExports::megatron()
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

void TestMegatronPlanExports::megatronScriptRecosts()
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

QTEST_GUILESS_MAIN(TestMegatronPlanExports)
#include "tst_megatron_plan_exports.moc"
