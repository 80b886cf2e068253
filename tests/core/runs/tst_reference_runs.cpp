// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex cost model against the published runs of resources/reference-runs: the error on
// the hold-out papers (never fitted on) must not grow, and every record must be costable.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/hardware/attention_kernels.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/dp_traffic.h"
#include "core/runs/reference_run.h"

#include "support/reference_runs.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path& kRuns = test::kReferenceRuns;
using test::compareAll;

} // namespace

class TestReferenceRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyRecordIsCostable()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        QVERIFY(runs.size() >= 100);
        for (const ReferenceComparison& c : compareAll(runs)) {
            if (!c.estimate.problems.empty())
                QFAIL(qPrintable(QString::fromStdString(c.run->id + ": " + c.estimate.problems.front())));
            QVERIFY(c.predicted_iteration_s > 0);
            if (c.run->measured_time) // memory-only records publish no time
                QVERIFY(c.run->measured_iteration_s > 0);
        }
    }

    // Issue 9's targets: 10 % on runs not used for fitting, no run that trained predicted out of
    // memory. With the presets fitted on the "fit" runs (efficiencyFor): 8.4 % over the 29
    // hold-out runs (Narayanan SC21, Korthikanti 2022, Llama 3), none of them called out of memory
    // but the three Llama 3 405B runs (since their one fp32 reduce per step, issue 22);
    // on the fit runs 13.2 % (16.2 % before issue 22's collectives), with 3 trained runs called out
    // of memory (framework-specific recompute or memory policies the records do not carry: see
    // README). None may grow.
    void holdOutErrorStaysWithinTarget()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        std::vector<ReferenceComparison> holdout;
        int trainedButOom = 0;
        int fitTrainedButOom = 0;
        for (const ReferenceComparison& c : compareAll(runs)) {
            if (c.run->fit) {
                if (c.predicted_oom && c.run->trained)
                    ++fitTrainedButOom;
                continue;
            }
            // The Llama 3 405B records' unsharded fp32 gradients (issue 22, their notes) and Megatron's
            // warm-up: their micro-batch group N (microbatch_group_size 16) is the only, or the
            // smallest, N in Megatron-Core's range and does not lower the peak; the stage outputs
            // Meta frees are freed in the ledger; Meta's own warm-up counts are not published or
            // modelled (docs/memory-model.md, "Micro-batch group N"; issue 23 open).
            if (c.predicted_oom && c.run->trained && c.run->id.rfind("llama3-2024-405b-", 0) != 0)
                ++trainedButOom;
            if (c.run->measured_time) // the 31 timed hold-out runs; memory-only records have no time
                holdout.push_back(c);
        }
        // 29 + the GB200 405B run (session 23) + the GB200 70B one (session 24) + the three timed
        // points of the SC21 paper's Figure 17 (session 26) + torchtitan's eight timed runs on 64
        // A100 of April 2024 (session 27) + four Blackwell MoE rows of Megatron-Bridge's 26.04.01
        // table, gpt-oss-120b and Qwen3-30B-A3B on B200 and GB200 (session 28) + Trainy's two
        // torchtitan runs of Llama 3.1 8B on 32 and 64 H200 (session 29)
        QCOMPARE(int(holdout.size()), 48);
        const double mae = meanAbsoluteError(holdout);
        QVERIFY2(mae <= 0.10, qPrintable(QString("hold-out MAE %1").arg(mae)));
        QVERIFY2(trainedButOom == 0, qPrintable(QString("%1 trained runs predicted OOM").arg(trainedButOom)));
        // None since Nemotron-4 340B carries its NeMo config's bf16 gradients and optimizer states.
        QVERIFY2(fitTrainedButOom == 0, qPrintable(QString("%1 trained fit runs predicted OOM").arg(fitTrainedButOom)));
    }

    // The other way round (issue 23): a run that went out of memory ("trained": false) called
    // fitting. Of the three such records, SC21's 145B model without recompute at 16 sequences in
    // flight (Figure 17) is predicted at 68 GiB of 80 on the device and is still called fitting:
    // 2021 Megatron-LM's memory without recompute is not understood (docs/memory-model.md, "Runs
    // that went out of memory"); torchtitan's Llama 2 70B at local batch 2 with selective
    // checkpointing on 64 A100 (April 2024) is called out of memory both ways. The check may not
    // accept more of them.
    void outOfMemoryRunsCalledFitting()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns); // the comparisons point into it
        std::vector<MemoryOutcomeRow> rows;
        for (const ReferenceComparison& c : compareAll(runs))
            rows.push_back(memoryOutcomeRow(c));
        const MemoryOutcomes outcomes = memoryOutcomes(rows);
        QCOMPARE(outcomes.out_of_memory, 3);
        QVERIFY2(outcomes.oom_called_fitting.size() <= 1, qPrintable(QString::fromStdString(memoryOutcomesText(outcomes))));
    }

    // A record's data-parallel traffic, as its framework issues it (dp_traffic.h: per-layer gathers
    // and per-backward reduce-scatters under FSDP, one reduction per step otherwise), must fit in
    // its measured step: a layout that needs more time on the wire than the whole step cannot be
    // what ran. The Megatron MoE zoo's FSDP row as its table's TP column said (TP 2, DP 128, GA 4)
    // needed 20.8 s of expert-group traffic for a 17.6 s step; its launch line runs TP 1, GA 2
    // (the record's notes, docs/moe.md "The FSDP row's layout"). The other rows are the records
    // with the most traffic per step.
    void dataParallelTrafficFitsInTheStep_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("MoE zoo FSDP, EP 8") << "moezoo-qwen3-235b-256-ep8-fsdp";
        QTest::newRow("Megatron-LM 32B on 384") << "megatronlm2024-32b-384";
        QTest::newRow("NeMo Mixtral 8x7B on B200") << "nemo2502-mixtral-8x7b-64-b200";
    }
    void dataParallelTrafficFitsInTheStep()
    {
        QFETCH(QString, id);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QVERIFY(run.measured_time);
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        double trafficMs = 0;
        for (const StageEstimate& stage : c.estimate.stages)
            trafficMs = std::max(trafficMs, stage.dp_comm_ms);
        QVERIFY(trafficMs > 0);
        QVERIFY2(trafficMs < run.measured_iteration_s * 1e3,
            qPrintable(QString("%1 ms of DP traffic in a %2 ms step").arg(trafficMs).arg(run.measured_iteration_s * 1e3)));
    }

    // Issue 22: the Llama 3 405B records give their framework (not inferred from the source): its
    // data-parallel rule (docs/collectives.md, "Gradient reduction per framework") is Megatron's
    // distributed optimizer, FP32 gradients accumulated unsharded and reduce-scattered once per
    // step, the reading of the paper's FSDP the notes explain (before 2026-11-28: Megatron-FSDP's
    // reduce per micro-batch into an fp32 shard); all three carry the paper's interleaved schedule
    // (V = 8). Their FSDP "shards optimizer states and gradients" (Dubey et al. 2024 section 3.3.2):
    // the unsharded fp32 gradients live per step (gradient_buffer "step", docs/memory-model.md,
    // "Gradient buffer lifetime"), after the all-forwards-first activation peak at M = PP, so the
    // two 16,384-GPU runs fit in 80 GiB; the 8,192-GPU run (M = 32, peak in the steady phase with
    // every gradient) is still predicted out of memory, as its notes and that section say.
    void llama3RecordsGiveTheirFramework_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<bool>("predictedOom");
        QTest::newRow("16384") << "llama3-2024-405b-16384.json" << 8 << false;
        QTest::newRow("16384 cp16") << "llama3-2024-405b-16384-cp16.json" << 8 << false;
        QTest::newRow("8192") << "llama3-2024-405b-8192.json" << 8 << true;
    }
    void llama3RecordsGiveTheirFramework()
    {
        QFETCH(QString, file);
        QFETCH(int, vpp);
        QFETCH(bool, predictedOom);
        const ReferenceRun run = readReferenceRun(kRuns / file.toStdString());
        QCOMPARE(QString::fromUtf8(frameworkName(run.strategy.framework)), QString("megatron-core"));
        QCOMPARE(run.strategy.gradient_buffer, megatron::GradientBuffer::Step);
        QVERIFY(!run.framework_inferred);
        QCOMPARE(run.strategy.zero, 1);
        QCOMPARE(run.strategy.vpp, vpp);
        QVERIFY(run.trained);
        const megatron::GradientReduction r = megatron::gradientReduction(run.strategy.framework, run.strategy.zero, run.strategy.pp);
        QVERIFY(!r.every_microbatch);
        QVERIFY(r.full_gradients);
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        QVERIFY2(c.predicted_oom == predictedOom,
            qPrintable(QString("device peak %1 GiB").arg(c.estimate.device_peak_mb / 1073.741824)));
    }

    // NeMo's long-sequence B200 table (docs/kernels.md §6): its current '# of GPUs' column repeats the
    // sequence length in K (8-1024) while TP x PP x DP x CP is a quarter of it; the records take the
    // product, which the table's first version (NVIDIA/NeMo 14d427f5) lists. A run on fewer GPUs than
    // a node is one node of that many (gpus_per_node 2 and 4).
    void longSequenceB200GpuCount_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("seqLength");
        QTest::newRow("8K on 2") << "nemo-longseq-llama3-8b-b200-2" << 2 << 2 << 8192;
        QTest::newRow("16K on 4") << "nemo-longseq-llama3-8b-b200-4" << 4 << 4 << 16384;
        QTest::newRow("32K on 8") << "nemo-longseq-llama3-8b-b200-8" << 8 << 8 << 32768;
        QTest::newRow("1M on 256") << "nemo-longseq-llama3-8b-b200-256" << 256 << 8 << 1048576;
    }
    void longSequenceB200GpuCount()
    {
        QFETCH(QString, id);
        QFETCH(int, gpus);
        QFETCH(int, gpusPerNode);
        QFETCH(int, seqLength);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        const megatron::ParallelStrategy& s = run.strategy;
        QCOMPARE(run.cluster.worldSize(), gpus);
        QCOMPARE(s.tp * s.pp * s.dp * s.cp, gpus);
        QCOMPARE(run.cluster.gpus_per_node, gpusPerNode);
        QCOMPARE(int(run.model.seq_length), seqLength);
        QVERIFY(run.trained);
        QVERIFY(!compareWithRun(run, efficiencyFor(run.cluster)).predicted_oom);
    }

    // Issue 22: llm-foundry's published runs used MPT's Triton flash attention (attn_impl
    // "triton", docs/kernels.md §6), which reaches about half the rate of the flash attention the
    // presets fit on H100. Each record says so and is costed with that kernel: its attention is
    // the kernel's measured rate whatever the preset's Efficiency::attention, so its prediction
    // does not move with it (before the records carried the kernel, every row failed here).
    void llmFoundryRunsCarryTheirAttentionKernel_data()
    {
        QTest::addColumn<QString>("id");
        for (const ReferenceRun& run : readReferenceRuns(kRuns)) {
            if (run.id.rfind("llmfoundry-", 0) == 0)
                QTest::newRow(run.id.c_str()) << QString::fromStdString(run.id);
        }
    }
    void llmFoundryRunsCarryTheirAttentionKernel()
    {
        QFETCH(QString, id);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QCOMPARE(run.attention_kernel, AttentionKernel::MptTriton);
        Efficiency fast = efficiencyFor(run.cluster);
        fast.attention = 0.9;
        Efficiency slow = fast;
        slow.attention = 0.1;
        const ReferenceComparison a = compareWithRun(run, fast);
        const ReferenceComparison b = compareWithRun(run, slow);
        QCOMPARE(a.predicted_iteration_s, b.predicted_iteration_s);
        // Its kernel is slower than the presets' flash attention (H100 0.177, A100 0.311).
        Efficiency kernel = fast;
        kernel.attention = *attentionKernelEfficiency(AttentionKernel::MptTriton, presetFamily(run.cluster.gpu.name));
        ReferenceRun asFlash = run;
        asFlash.attention_kernel = AttentionKernel::Flash2;
        asFlash.strategy.attention_kernel = AttentionKernel::Flash2;
        QCOMPARE(compareWithRun(asFlash, kernel).predicted_iteration_s, a.predicted_iteration_s);
        QVERIFY(compareWithRun(asFlash, fast).predicted_iteration_s < a.predicted_iteration_s);
    }

    // Why a run's team chose its layout (issue 22's "expert-tuned" runs; search_claims.h): the
    // records that say so are read, the others run for speed, and each says why in its notes.
    void layoutPurposeOfTheBundledRecords_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("purpose");
        QTest::newRow("torchtitan Table 5") << "torchtitan2412-llama31-405b-512-1f1b" << "demonstration";
        QTest::newRow("torchtitan Table 1") << "torchtitan2412-llama31-8b-8-fsdp" << "demonstration";
        QTest::newRow("Korthikanti's baseline") << "korthikanti2022-530b-2240-full-recompute" << "ablation";
        QTest::newRow("Korthikanti's own") << "korthikanti2022-530b-2240-selective-sp" << "throughput";
        QTest::newRow("torchtitan vanilla TP") << "torchtitan2506-llama3-70b-256-tp8-bf16" << "ablation";
        QTest::newRow("Llama 3") << "llama3-2024-405b-16384" << "throughput";
    }
    void layoutPurposeOfTheBundledRecords()
    {
        QFETCH(QString, id);
        QFETCH(QString, purpose);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QCOMPARE(QString::fromUtf8(layoutPurposeName(run.layout_purpose).data()), purpose);
        QCOMPARE(parseLayoutPurpose(purpose.toStdString()), std::optional<LayoutPurpose>(run.layout_purpose));
    }

    void badRecordsNameTheKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("keyPath");
        const QString model = "'model': {'preset': 'llama2-7b'}, ";
        const QString cluster = "'cluster': {'gpu': 'a100-80gb', 'num_nodes': 1, 'gpus_per_node': 8}, ";
        QTest::newRow("use") << "{'id': 'x', 'use': 'train'}"
                             << "/use";
        QTest::newRow("gpu") << "{'id': 'x', 'use': 'fit', " + model
                + "'cluster': {'gpu': 'tpu', 'num_nodes': 1, 'gpus_per_node': 8}}"
                             << "/cluster/gpu";
        QTest::newRow("convention") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'tflops_per_gpu': 100, "
                  "'flops_convention': 'mine'}}"
                                    << "/measured/flops_convention";
        QTest::newRow("recompute") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8, 'recompute': 'some'}}"
                                   << "/strategy/recompute";
        QTest::newRow("framework") << "{'id': 'x', 'use': 'fit', 'framework': 'jax', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1}}"
                                   << "/framework";
        // A record without a time must publish memory, and cannot be fitted (issue 23).
        QTest::newRow("no time, no memory") << "{'id': 'x', 'use': 'holdout', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'trained': true}}"
                                            << "/measured";
        QTest::newRow("memory-only fit") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'peak_memory_gb': 60, "
                  "'peak_memory_kind': 'allocated'}}"
                                         << "/use";
        // A run that went out of memory ("trained": false) measured no time, and is never fitted.
        QTest::newRow("out of memory with a time") << "{'id': 'x', 'use': 'holdout', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'trained': false, "
                  "'tokens_per_s_per_gpu': 1000}}"
                                                   << "/measured/tokens_per_s_per_gpu";
        QTest::newRow("out of memory fit") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'trained': false}}"
                                           << "/use";
        QTest::newRow("memory-only kind") << "{'id': 'x', 'use': 'holdout', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'peak_memory_gb': 60, "
                  "'peak_memory_kind': 'nvidia-smi'}}"
                                          << "/measured/peak_memory_kind";
        QTest::newRow("memory stage beyond the pipeline") << "{'id': 'x', 'use': 'holdout', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'peak_memory_gb': 60, "
                  "'peak_memory_stage': 1}}"
                                                          << "/measured/peak_memory_stage";
        QTest::newRow("memory stage without memory") << "{'id': 'x', 'use': 'holdout', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1, "
                  "'peak_memory_stage': 0}}"
                                                     << "/measured/peak_memory_stage";
        QTest::newRow("peak memory kind") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1, "
                  "'peak_memory_gb': 60, 'peak_memory_kind': 'smi'}}"
                                          << "/measured/peak_memory_kind";
        QTest::newRow("attention kernel") << "{'id': 'x', 'use': 'fit', 'attention_kernel': 'xformers', " + model
                + cluster + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1}}"
                                          << "/attention_kernel";
        QTest::newRow("layout purpose") << "{'id': 'x', 'use': 'fit', 'layout_purpose': 'tuned', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1}}"
                                        << "/layout_purpose";
        // MPT's Triton kernel is measured on A100 and H100 only (docs/kernels.md §6).
        QTest::newRow("attention kernel not measured on the GPU") << "{'id': 'x', 'use': 'fit', "
                "'attention_kernel': 'mpt-triton', "
                + model + "'cluster': {'gpu': 'b200-192gb', 'num_nodes': 1, 'gpus_per_node': 8}, "
                  "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1}}"
                                                                  << "/attention_kernel";
    }
    void badRecordsNameTheKey()
    {
        QFETCH(QString, json);
        QFETCH(QString, keyPath);
        QTemporaryDir dir;
        const QString path = dir.filePath("run.json");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(json.replace('\'', '"').toUtf8());
        file.close();
        try {
            readReferenceRun(path.toStdString());
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
        }
    }
};

QTEST_GUILESS_MAIN(TestReferenceRuns)
#include "tst_reference_runs.moc"
