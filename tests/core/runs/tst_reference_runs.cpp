// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex cost model against the published runs of resources/reference-runs: the error on
// the hold-out papers (never fitted on) must not grow, and every record must be costable.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/hardware/attention_kernels.h"
#include "core/hardware/hardware_model.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

std::vector<ReferenceComparison> compareAll(const std::vector<ReferenceRun>& runs)
{
    std::vector<ReferenceComparison> comparisons;
    for (const ReferenceRun& run : runs)
        comparisons.push_back(compareWithRun(run, efficiencyFor(run.cluster)));
    return comparisons;
}

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
            QVERIFY(c.run->measured_iteration_s > 0);
        }
    }

    // Issue 9's targets: 10 % on runs not used for fitting, no run that trained predicted out of
    // memory. With the presets fitted on the "fit" runs (efficiencyFor): 8.4 % over the 29
    // hold-out runs (Narayanan SC21, Korthikanti 2022, Llama 3), none of them called out of memory;
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
            holdout.push_back(c);
            if (c.predicted_oom && c.run->trained)
                ++trainedButOom;
        }
        QCOMPARE(int(holdout.size()), 29);
        const double mae = meanAbsoluteError(holdout);
        QVERIFY2(mae <= 0.10, qPrintable(QString("hold-out MAE %1").arg(mae)));
        QVERIFY2(trainedButOom == 0, qPrintable(QString("%1 trained runs predicted OOM").arg(trainedButOom)));
        // None since Nemotron-4 340B carries its NeMo config's bf16 gradients and optimizer states.
        QVERIFY2(fitTrainedButOom == 0, qPrintable(QString("%1 trained fit runs predicted OOM").arg(fitTrainedButOom)));
    }

    // A record says which memory number it publishes; without the keys, torchtitan's records are
    // torchtitan runs (inferred from the source) whose log prints max_memory_reserved, and the
    // prediction compared is the same kind.
    void memoryRecordsSayWhichNumber_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("kind");
        QTest::newRow("torchtitan fsdp") << "torchtitan2412-llama31-8b-8-fsdp.json"
                                         << "torchtitan"
                                         << "reserved";
        QTest::newRow("torchtitan pp") << "torchtitan2412-llama31-405b-512-1f1b.json"
                                       << "torchtitan"
                                       << "reserved";
    }
    void memoryRecordsSayWhichNumber()
    {
        QFETCH(QString, file);
        QFETCH(QString, framework);
        QFETCH(QString, kind);
        const ReferenceRun run = readReferenceRun(kRuns / file.toStdString());
        QCOMPARE(QString::fromUtf8(frameworkName(run.strategy.framework)), framework);
        QVERIFY(run.framework_inferred);
        QCOMPARE(QString::fromUtf8(peakMemoryKindName(run.peak_memory_kind)), kind);
        QVERIFY(run.peak_memory_kind_inferred);
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        QVERIFY(c.memory_error.has_value());
        QCOMPARE(*c.predicted_memory_gib, predictedPeakMemoryGib(c.estimate, run.peak_memory_kind));
        QVERIFY(predictedPeakMemoryGib(c.estimate, PeakMemoryKind::Allocated)
            < predictedPeakMemoryGib(c.estimate, PeakMemoryKind::Device));
    }

    // Issue 23: Nemotron-4 340B trained with NeMo 24.07's bf16 gradients and bf16 optimizer
    // states (its launcher config, the record's notes); with those dtypes it fits (96.1 GB on the
    // device with fp32 ones, over the H100's 80 GiB).
    void stateDtypesOfARecord_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("dtype");
        QTest::newRow("nemotron-4 340b") << "nemo2407-nemotron-340b-128.json" << "bf16";
    }
    void stateDtypesOfARecord()
    {
        QFETCH(QString, file);
        QFETCH(QString, dtype);
        const ReferenceRun run = readReferenceRun(kRuns / file.toStdString());
        QCOMPARE(QString::fromUtf8(stateDtypeName(run.strategy.main_grads_dtype)), dtype);
        QCOMPARE(QString::fromUtf8(stateDtypeName(run.strategy.optimizer_state_dtype)), dtype);
        QVERIFY(run.trained);
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        QVERIFY2(!c.predicted_oom, qPrintable(QString("device peak %1 GiB").arg(c.estimate.device_peak_mb / 1073.741824)));
    }

    // Issue 23: the torchtitan records' memory error under their framework, against the reserved
    // peak torchtitan logs. Before the framework semantics, the ledger and the device model the
    // mean absolute error over the 17 records was 37.3 % (the peak compared as one number); 26.3 %
    // before torchtitan's own checkpointing policy, float8 weights and fp32 loss (docs/memory-model.md);
    // 18.4 % before the 405B records' micro-batch of 4 (torchtitan's default 8 micro-batches over
    // the local batch of 32), loss_parallel's buffers under TP and the output layer's gathered
    // input; 16.0 % before FSDP2's root group kept gathered, the all-gather pool of its copy-in
    // stream and the multi-node launcher's allocator without expandable segments; now 11.0 %.
    // It may not grow.
    void torchtitanMemoryErrorBounded()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        const std::vector<ReferenceComparison> comparisons = compareAll(runs);
        int records = 0;
        for (const MemoryErrorSummary& s : memoryErrorsByFramework(comparisons)) {
            if (s.framework != Framework::Torchtitan)
                continue;
            records = s.records;
            QVERIFY2(s.mean_absolute_error <= 0.111,
                qPrintable(QString("torchtitan memory MAE %1").arg(s.mean_absolute_error)));
        }
        QCOMPARE(records, 17);
    }

    // Issue 23: each torchtitan memory record within 10 % of the reserved peak torchtitan logs
    // (docs/memory-model.md, "The torchtitan records, one by one"). Before the FSDP2 group, copy-in
    // pool and launcher mechanisms, 70B 2D (-14.9 %), 8B on 128 GPUs (-13.8 %), 8B FSDP (-12.9 %)
    // and the 8B CP records (-11.4 to -12.1 %) failed this. The 405B pipeline records are not
    // within 10 % yet (predicted low: what their stage holds beyond the ledger is not found): their
    // rows pin today's error, which may not grow.
    void torchtitanMemoryRecordWithin_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("bound");
        for (const char* id : { "torchtitan2412-llama31-70b-256-2d-asynctp", "torchtitan2412-llama31-70b-256-2d",
                 "torchtitan2412-llama31-8b-128-fsdp-compile-fp8", "torchtitan2412-llama31-8b-128-fsdp",
                 "torchtitan2412-llama31-8b-8-cp1-32k", "torchtitan2412-llama31-8b-8-cp2-64k",
                 "torchtitan2412-llama31-8b-8-cp4-128k", "torchtitan2412-llama31-8b-8-cp8-256k",
                 "torchtitan2412-llama31-8b-8-fsdp-compile-fp8", "torchtitan2412-llama31-8b-8-fsdp-compile",
                 "torchtitan2412-llama31-8b-8-fsdp" })
            QTest::newRow(id) << QString(id) << 0.10;
        QTest::newRow("405b 1f1b (known gap)") << "torchtitan2412-llama31-405b-512-1f1b" << 0.272;
        QTest::newRow("405b cp1 (known gap)") << "torchtitan2412-llama31-405b-512-cp1-32k" << 0.202;
        QTest::newRow("405b cp2 (known gap)") << "torchtitan2412-llama31-405b-512-cp2-64k" << 0.209;
        QTest::newRow("405b cp4 (known gap)") << "torchtitan2412-llama31-405b-512-cp4-128k" << 0.221;
        QTest::newRow("405b cp8 (known gap)") << "torchtitan2412-llama31-405b-512-cp8-256k" << 0.293;
        QTest::newRow("405b interleaved (known gap)") << "torchtitan2412-llama31-405b-512-interleaved" << 0.133;
    }
    void torchtitanMemoryRecordWithin()
    {
        QFETCH(QString, id);
        QFETCH(double, bound);
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        const auto run = std::find_if(runs.begin(), runs.end(), [&](const ReferenceRun& r) { return r.id == id.toStdString(); });
        QVERIFY2(run != runs.end(), qPrintable(id));
        QCOMPARE(run->strategy.framework, Framework::Torchtitan);
        const ReferenceComparison c = compareWithRun(*run, efficiencyFor(run->cluster));
        QVERIFY(c.memory_error.has_value());
        QVERIFY2(std::abs(*c.memory_error) <= bound, qPrintable(QString("memory error %1").arg(*c.memory_error)));
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
        asFlash.attention_kernel = AttentionKernel::Flash;
        QCOMPARE(compareWithRun(asFlash, kernel).predicted_iteration_s, a.predicted_iteration_s);
        QVERIFY(compareWithRun(asFlash, fast).predicted_iteration_s < a.predicted_iteration_s);
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
        QTest::newRow("peak memory kind") << "{'id': 'x', 'use': 'fit', " + model + cluster
                + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1, "
                  "'peak_memory_gb': 60, 'peak_memory_kind': 'smi'}}"
                                          << "/measured/peak_memory_kind";
        QTest::newRow("attention kernel") << "{'id': 'x', 'use': 'fit', 'attention_kernel': 'xformers', " + model
                + cluster + "'strategy': {'dp': 8, 'global_batch_size': 8}, 'measured': {'iteration_time_s': 1}}"
                                          << "/attention_kernel";
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
