// SPDX-License-Identifier: GPL-3.0-or-later
// The memory the published runs of resources/reference-runs report against the stratex ledger
// (issue 23): which number each record publishes (allocated, reserved, device), the framework
// semantics that decide it, and each record's error, none fitted to memory. The time side is
// tst_reference_runs.
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

class TestReferenceMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
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

    // Records whose recipe reduces the gradients in bf16 with fp32 optimizer states: Megatron-Bridge's
    // gpt-oss perf script (set_gpt_oss_common_configs: ddp.grad_reduce_in_fp32 = False, r0.4.1).
    void mainGradientDtypeOfARecord_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("grads");
        QTest::newRow("gpt-oss-120b") << "mbridge260401-gpt-oss-120b-64.json" << "bf16";
    }
    void mainGradientDtypeOfARecord()
    {
        QFETCH(QString, file);
        QFETCH(QString, grads);
        const ReferenceRun run = readReferenceRun(kRuns / file.toStdString());
        QCOMPARE(QString::fromUtf8(stateDtypeName(run.strategy.main_grads_dtype)), grads);
        QCOMPARE(QString::fromUtf8(stateDtypeName(run.strategy.optimizer_state_dtype)), QString("fp32"));
    }

    // Issue 23: the torchtitan records' memory error under their framework, against the reserved
    // peak torchtitan logs. Before the framework semantics, the ledger and the device model the
    // mean absolute error over the 17 records was 37.3 % (the peak compared as one number); 26.3 %
    // before torchtitan's own checkpointing policy, float8 weights and fp32 loss (docs/memory-model.md);
    // 18.4 % before the 405B records' micro-batch of 4 (torchtitan's default 8 micro-batches over
    // the local batch of 32), loss_parallel's buffers under TP and the output layer's gathered
    // input; 16.0 % before FSDP2's root group kept gathered, the all-gather pool of its copy-in
    // stream and the multi-node launcher's allocator without expandable segments; 10.5 % before
    // torch.distributed.pipelining's stage buffers (per-micro-batch receive buffers, the last
    // stage's output_chunks) and the ring attention's gathered K, V and fp32 accumulators under CP;
    // 7.0 % before the churn of the unsharded weights and fp32 gradients FSDP2 frees every step
    // under PP; now 6.2 %. It may not grow. 18 records since issue 23 added the Llama 3 8B log of
    // torchtitan#1287 (-2.6 %); 20 since session 29 added the two Trainy H200 runs of June 2025,
    // which compile their loss (+6.5 % and +4.8 %; +43 % with the loss's eager fp32 buffers).
    void torchtitanMemoryErrorBounded()
    {
        const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
        const std::vector<ReferenceComparison> comparisons = compareAll(runs);
        int records = 0;
        for (const MemoryErrorSummary& s : memoryErrorsByFramework(comparisons)) {
            if (s.framework != Framework::Torchtitan)
                continue;
            records = s.records;
            QVERIFY2(s.mean_absolute_error <= 0.063,
                qPrintable(QString("torchtitan memory MAE %1").arg(s.mean_absolute_error)));
        }
        QCOMPARE(records, 20);
    }

    // Issue 23: each torchtitan memory record within 10 % of the reserved peak torchtitan logs
    // (docs/memory-model.md, "The torchtitan records, one by one"). Before the FSDP2 group, copy-in
    // pool and launcher mechanisms, 70B 2D (-14.9 %), 8B on 128 GPUs (-13.8 %), 8B FSDP (-12.9 %)
    // and the 8B CP records (-11.4 to -12.1 %) failed this; before the pipelining stage buffers,
    // the 405B interleaved record (-11.7 %), and before them, the ring attention's buffers and the
    // step churn of FSDP2's unsharded state under PP, the 405B CP 2 and CP 4 records (-19.3, -20.6 %).
    // The 405B CP 1 and CP 8 records are within 10 % today (-8.8, -6.3 %; -18.7 / -27.9 % before
    // the pipelining stage buffers). The 405B 1F1B record is not (predicted low, -16.7 %: what its
    // stage holds beyond the ledger is not found; -25.8 % before the stage buffers): its row pins
    // today's error, which may not grow.
    void torchtitanMemoryRecordWithin_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("bound");
        for (const char* id : { "torchtitan2412-llama31-70b-256-2d-asynctp", "torchtitan2412-llama31-70b-256-2d",
                 "torchtitan2412-llama31-8b-128-fsdp-compile-fp8", "torchtitan2412-llama31-8b-128-fsdp",
                 "torchtitan2412-llama31-8b-8-cp1-32k", "torchtitan2412-llama31-8b-8-cp2-64k",
                 "torchtitan2412-llama31-8b-8-cp4-128k", "torchtitan2412-llama31-8b-8-cp8-256k",
                 "torchtitan2412-llama31-8b-8-fsdp-compile-fp8", "torchtitan2412-llama31-8b-8-fsdp-compile",
                 "torchtitan2412-llama31-8b-8-fsdp", "torchtitan2412-llama31-405b-512-interleaved",
                 "torchtitan2412-llama31-405b-512-cp2-64k", "torchtitan2412-llama31-405b-512-cp4-128k",
                 "torchtitan2412-llama31-405b-512-cp1-32k", "torchtitan2412-llama31-405b-512-cp8-256k",
                 "torchtitanpr1287-llama3-8b-8-fsdp" })
            QTest::newRow(id) << QString(id) << 0.10;
        QTest::newRow("405b 1f1b (known gap)") << "torchtitan2412-llama31-405b-512-1f1b" << 0.170;
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

    // Issue 23: a record that publishes peak memory and no time is read, compared on memory, and
    // kept out of every throughput error (it has no time; a throughput error of 0 would pull the
    // mean down).
    void memoryOnlyRecord_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("kind");
        QTest::newRow("Megatron-Bridge Llama 3.2 1B") << "mbridge-byoc-llama3.2-1b-8" << "megatron-bridge"
                                                      << "allocated";
        QTest::newRow("Megatron-LM CI 7B TP 4") << "megatronlm-ci-gpt3-7b-tp4-pp1-8-h100" << "megatron-core"
                                                << "allocated";
        QTest::newRow("Megatron-LM CI toy CP 2") << "megatronlm-ci-gpt3-toy-tp2-pp2-cp2-8-h100" << "megatron-core"
                                                 << "allocated";
        QTest::newRow("DeepSpeed ZeRO-3 6.9B") << "dsexamples-bf16mw-6.9b-4-h100-zero3-baseline" << "deepspeed"
                                               << "allocated";
    }
    void memoryOnlyRecord()
    {
        QFETCH(QString, id);
        QFETCH(QString, framework);
        QFETCH(QString, kind);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QVERIFY(!run.measured_time);
        QVERIFY(!run.fit);
        QCOMPARE(run.measured_iteration_s, 0.0);
        QCOMPARE(QString::fromUtf8(frameworkName(run.strategy.framework)), framework);
        QCOMPARE(QString::fromUtf8(peakMemoryKindName(run.peak_memory_kind)), kind);
        QVERIFY(!run.peak_memory_kind_inferred);
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        QVERIFY(c.estimate.problems.empty());
        QCOMPARE(c.throughput_error, 0.0);
        QVERIFY(c.memory_error.has_value());
        QCOMPARE(*c.predicted_memory_gib, predictedPeakMemoryGib(c.estimate, run.peak_memory_kind));
        // Beside a timed run, the mean throughput error is the timed run's alone.
        const ReferenceRun timed = readReferenceRun(kRuns / "nemo2407-llama2-7b-8.json");
        const ReferenceComparison t = compareWithRun(timed, efficiencyFor(timed.cluster));
        QCOMPARE(meanAbsoluteError({ c, t }), std::abs(t.throughput_error));
        QCOMPARE(int(memoryErrors({ c, t }).size()), 1);
    }

    // Issue 23: the memory records outside torchtitan, against the allocated peak Stratex predicts
    // for the rank that published it (Megatron's TensorBoard memory scalars are the last rank's:
    // peak_memory_stage). On 2026-11-28: Megatron-LM CI 7B -0.8 % to -3.5 %, its 12-layer toy
    // model -1.8 % to -9.0 %, Megatron-Bridge's Llama 3.2 1B -10.0 % (README, "Memory accuracy").
    // None may grow past its bound.
    void memoryRecordWithin_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("bound");
        QTest::newRow("CI 7B TP 4, H100") << "megatronlm-ci-gpt3-7b-tp4-pp1-8-h100" << 0.05;
        QTest::newRow("CI 7B TP 4, A100") << "megatronlm-ci-gpt3-7b-tp4-pp1-8-a100" << 0.05;
        QTest::newRow("CI 7B PP 4 VP 8, H100") << "megatronlm-ci-gpt3-7b-tp1-pp4-vp8-8-h100" << 0.05;
        QTest::newRow("CI 7B PP 4 VP 8, A100") << "megatronlm-ci-gpt3-7b-tp1-pp4-vp8-8-a100" << 0.05;
        QTest::newRow("CI toy TP 1, unfused attention") << "megatronlm-ci-gpt3-toy-tp1-pp1-unfused-8-h100" << 0.05;
        QTest::newRow("CI toy TP 4, unfused attention") << "megatronlm-ci-gpt3-toy-tp4-pp1-unfused-8-h100" << 0.10;
        QTest::newRow("CI toy TP 2 PP 2 CP 2") << "megatronlm-ci-gpt3-toy-tp2-pp2-cp2-8-h100" << 0.12;
        // Issue 23, more CI golden values (2026-11-28: +0.9, -2.8, -1.7, -1.3, -5.1 %).
        QTest::newRow("CI toy full recompute") << "megatronlm-ci-gpt3-toy-tp1-pp1-full-recompute-8-h100" << 0.05;
        QTest::newRow("CI toy PP 4, local layers") << "megatronlm-ci-gpt3-toy-tp1-pp4-local-8-h100" << 0.05;
        QTest::newRow("CI toy PP 4, uneven stages") << "megatronlm-ci-gpt3-toy-tp1-pp4-uneven-8-h100" << 0.05;
        QTest::newRow("CI toy PP 4 VP 3") << "megatronlm-ci-gpt3-toy-tp1-pp4-vp3-8-h100" << 0.05;
        QTest::newRow("CI toy TP 2 PP 2") << "megatronlm-ci-gpt3-toy-tp2-pp2-8-h100" << 0.08;
        // The fused loss (2026-11-28: -26.2 % and -4.8 % without its second fp32 logits copy; -3.8 %
        // and -0.6 % with it).
        QTest::newRow("CI toy TP 2 PP 2, fused loss") << "megatronlm-ci-gpt3-toy-tp2-pp2-cefusion-8-h100" << 0.05;
        QTest::newRow("Megatron-Bridge Llama 3.2 1B") << "mbridge-byoc-llama3.2-1b-8" << 0.02;
        // ZeRO-3's optimizer step (a bf16 and an fp32 copy of a 1e9-element sub-group's gradients,
        // 5.6 GiB) is its peak: -11.8 % before the step phase, +2.3 % with it (docs/memory-model.md,
        // "DeepSpeed").
        QTest::newRow("DeepSpeed ZeRO-3 6.9B") << "dsexamples-bf16mw-6.9b-4-h100-zero3-baseline" << 0.04;
    }
    void memoryRecordWithin()
    {
        QFETCH(QString, id);
        QFETCH(double, bound);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
        QVERIFY(c.memory_error.has_value());
        QCOMPARE(*c.predicted_memory_gib, predictedPeakMemoryGib(c.estimate, run.peak_memory_kind, run.peak_memory_stage));
        QVERIFY2(std::abs(*c.memory_error) <= bound, qPrintable(QString("memory error %1").arg(*c.memory_error)));
    }

    // Issue 23: Megatron's --cross-entropy-loss-fusion. Two CI tests differ only by it (and the
    // deterministic mode), and their measured peaks differ by one fp32 copy of the TP-sharded logits
    // (micro-batch x sequence x padded vocabulary / TP x 4 bytes): the fused loss's torch.compile'd
    // functions write new buffers where the unfused one works in place (the fused record's notes,
    // docs/memory-model.md, "Fused cross-entropy loss"). The model reproduces the gap: the fused
    // record predicts one fp32 copy of its (unpadded) local logits more than the same record with
    // the fusion off, within 2 % of the measured difference, and both records within 8 %.
    void crossEntropyFusionKeepsOneMoreFp32Logits()
    {
        const ReferenceRun fused = readReferenceRun(kRuns / "megatronlm-ci-gpt3-toy-tp2-pp2-cefusion-8-h100.json");
        const ReferenceRun plain = readReferenceRun(kRuns / "megatronlm-ci-gpt3-toy-tp2-pp2-8-h100.json");
        QVERIFY(fused.strategy.cross_entropy_loss_fusion);
        QVERIFY(!plain.strategy.cross_entropy_loss_fusion);
        ReferenceRun unfused = fused;
        unfused.strategy.cross_entropy_loss_fusion = false;
        const ReferenceComparison f = compareWithRun(fused, efficiencyFor(fused.cluster));
        const ReferenceComparison u = compareWithRun(unfused, efficiencyFor(unfused.cluster));
        const ReferenceComparison p = compareWithRun(plain, efficiencyFor(plain.cluster));
        QVERIFY(f.predicted_memory_gib && u.predicted_memory_gib && p.predicted_memory_gib);
        QVERIFY(std::abs(*u.predicted_memory_gib - *p.predicted_memory_gib) < 1e-9);
        const double predictedCopyGib = double(fused.strategy.micro_batch_size) * fused.model.seq_length
            * (double(fused.model.vocab_size) / fused.strategy.tp) * 4.0 / double(1 << 30);
        QVERIFY2(std::abs((*f.predicted_memory_gib - *u.predicted_memory_gib) / predictedCopyGib - 1.0) < 1e-9,
            qPrintable(QString("predicted difference %1 GiB").arg(*f.predicted_memory_gib - *u.predicted_memory_gib)));
        // The unfused run's peak over steps 2-50 (its notes; the record keeps the larger one after
        // the resume, 0.8 MB more).
        const double plainSteps2to50Gib = 1427384832.0 / double(1 << 30);
        const double measured = *fused.peak_memory_gib - plainSteps2to50Gib;
        QVERIFY2(std::abs(measured / predictedCopyGib - 1.0) < 0.02,
            qPrintable(QString("measured difference %1 GiB, predicted %2 GiB").arg(measured).arg(predictedCopyGib)));
        QVERIFY2(std::abs(*f.memory_error) < 0.08, qPrintable(QString("fused %1").arg(*f.memory_error))); // -3.8 %
        QVERIFY(std::abs(*p.memory_error) < 0.08); // -5.1 %
    }

    // A record from one rank's log names its pipeline stage; the prediction is that stage's, not
    // the worst stage's.
    void memoryOfTheStageThatPublished_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("stage");
        QTest::newRow("PP 4, last rank") << "megatronlm-ci-gpt3-7b-tp1-pp4-vp8-8-h100" << 3;
        QTest::newRow("PP 2, last rank") << "megatronlm-ci-gpt3-toy-tp2-pp2-cp2-8-h100" << 1;
        QTest::newRow("PP 4 uneven, last rank") << "megatronlm-ci-gpt3-toy-tp1-pp4-uneven-8-h100" << 3;
    }
    void memoryOfTheStageThatPublished()
    {
        QFETCH(QString, id);
        QFETCH(int, stage);
        ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QCOMPARE(run.peak_memory_stage, std::optional<int>(stage));
        // The published stage, then the first stage instead (whose peak differs: the last holds the
        // output layer and the logits), each compared with that stage's predicted allocated peak.
        std::vector<double> predicted;
        for (const int published : { stage, 0 }) {
            run.peak_memory_stage = published;
            const ReferenceComparison c = compareWithRun(run, efficiencyFor(run.cluster));
            double stageMb = 0;
            for (const StageEstimate& s : c.estimate.stages) {
                if (s.stage == published)
                    stageMb = std::max(stageMb, s.memory.allocatedMb());
            }
            QVERIFY(stageMb > 0);
            QCOMPARE(*c.predicted_memory_gib, mbToGib(stageMb));
            predicted.push_back(*c.predicted_memory_gib);
        }
        QVERIFY(predicted[0] != predicted[1]);
    }

    // The memory summaries of `reference` and `--cross-validate` (issue 23): per framework, and
    // per framework and kind of number, with the mean absolute, signed mean and largest error.
    void memorySummaries_data()
    {
        QTest::addColumn<QString>("errors"); // "framework kind error; ..."
        QTest::addColumn<QString>("byFramework");
        QTest::addColumn<QString>("byKind");
        QTest::newRow("none") << "" << "" << "";
        QTest::newRow("one framework, one kind")
            << "torchtitan reserved -0.1; torchtitan reserved 0.3" << "torchtitan 2 20.0 10.0 30.0"
            << "torchtitan/reserved 2 20.0 10.0 30.0";
        QTest::newRow("kinds split, frameworks in enum order")
            << "deepspeed device 0.2; megatron-core device -0.2; megatron-core allocated 0.05; megatron-bridge allocated -0.1"
            << "megatron-core 2 12.5 -7.5 20.0; megatron-bridge 1 10.0 -10.0 10.0; deepspeed 1 20.0 20.0 20.0"
            << "megatron-core/allocated 1 5.0 5.0 5.0; megatron-core/device 1 20.0 -20.0 20.0; "
               "megatron-bridge/allocated 1 10.0 -10.0 10.0; deepspeed/device 1 20.0 20.0 20.0";
    }
    void memorySummaries()
    {
        QFETCH(QString, errors);
        QFETCH(QString, byFramework);
        QFETCH(QString, byKind);
        std::vector<MemoryError> list;
        for (const QString& item : errors.split(';', Qt::SkipEmptyParts)) {
            const QStringList parts = item.trimmed().split(' ');
            QCOMPARE(parts.size(), 3);
            list.push_back({ *parseFramework(parts[0].toStdString()), *parsePeakMemoryKind(parts[1].toStdString()),
                parts[2].toDouble() });
        }
        auto render = [](const std::vector<MemoryErrorSummary>& summaries) {
            QStringList out;
            for (const MemoryErrorSummary& s : summaries)
                out << QString("%1%2 %3 %4 %5 %6")
                           .arg(QString::fromUtf8(frameworkName(s.framework)))
                           .arg(s.kind ? "/" + QString::fromUtf8(peakMemoryKindName(*s.kind)) : QString())
                           .arg(s.records)
                           .arg(s.mean_absolute_error * 100, 0, 'f', 1)
                           .arg(s.mean_error * 100, 0, 'f', 1)
                           .arg(s.max_absolute_error * 100, 0, 'f', 1);
            return out.join("; ");
        };
        QCOMPARE(render(memoryErrorsByFramework(list)), byFramework);
        QCOMPARE(render(memoryErrorsByFrameworkAndKind(list)), byKind);
    }
};

QTEST_GUILESS_MAIN(TestReferenceMemory)
#include "tst_reference_memory.moc"
