// SPDX-License-Identifier: GPL-3.0-or-later
// The full gradient buffer's lifetime under ZeRO 1 (strategy key gradient_buffer;
// docs/memory-model.md, "Gradient buffer lifetime"): Megatron-Core's DDP keeps it for the run
// (persistent); an FSDP that shards its gradients while accumulating FP32 gradients over the
// micro-batches (Llama 3, Dubey et al. 2024 section 3.3.2) makes each chunk's at its first backward
// of a step and frees it after the reduce-scatter at its last (step).
#include <QtTest>

#include "core/megatron/estimate.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/strategy_json.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using stratex::test::h100s;

namespace {

// llama2-7b on 8 H100s, TP 1, PP 4, DP 2, distributed optimizer, no recompute, micro-batch 1.
ParallelStrategy base(int vpp, int microbatches)
{
    ParallelStrategy s;
    s.pp = 4;
    s.vpp = vpp;
    s.schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
    s.dp = 2;
    s.zero = 1;
    s.global_batch_size = microbatches * s.dp;
    return s;
}

} // namespace

class TestGradientBuffer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Bytes per parameter of a chunk allocated at its first backward, and the change at its last
    // (the full buffer freed, the shard over d = 8 kept), by framework, ZeRO stage and dtype.
    void chunkLifetimeBytes_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("buffer");
        QTest::addColumn<QString>("gradsDtype");
        QTest::addColumn<double>("first");
        QTest::addColumn<double>("last");
        QTest::newRow("megatron-core persistent") << "megatron-core" << 1 << "persistent" << "fp32" << 0.0 << 0.0;
        QTest::newRow("megatron-core step fp32") << "megatron-core" << 1 << "step" << "fp32" << 4.0 << 4.0 / 8 - 4.0;
        QTest::newRow("megatron-core step bf16") << "megatron-core" << 1 << "step" << "bf16" << 2.0 << 2.0 / 8 - 2.0;
        QTest::newRow("megatron-bridge step") << "megatron-bridge" << 1 << "step" << "fp32" << 4.0 << 4.0 / 8 - 4.0;
        // torchtitan's FSDP2 under PP frees them every step already (firstBackwardGradientBytes).
        QTest::newRow("torchtitan fsdp2 pp") << "torchtitan" << 2 << "persistent" << "fp32" << 4.0 << 4.0 / 8 - 4.0;
    }
    void chunkLifetimeBytes()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(QString, buffer);
        QFETCH(QString, gradsDtype);
        QFETCH(double, first);
        QFETCH(double, last);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.zero = zero;
        s.pp = 4;
        s.dp = 8;
        s.gradient_buffer = *parseGradientBuffer(buffer.toStdString());
        s.main_grads_dtype = *parseStateDtype(gradsDtype.toStdString());
        const double params = 1e9;
        QCOMPARE(firstBackwardGradientBytes(s, params), first * params);
        QCOMPARE(lastBackwardGradientBytes(s, params, params / 8), last * params);
    }

    // The ledger's allocated peak with the buffer made per step, against persistent, on the same
    // plan: where every forward of a stage runs before its first backward (interleaved at M = PP,
    // Megatron's all-warm-up case) the peak drops by nearly the stage's fp32 gradients (all but the
    // chunk whose backward runs at the peak); where the peak is in the steady 1F1B phase, after
    // every chunk's first backward, it does not drop.
    void allocatedPeakDrop_data()
    {
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<double>("minDropShare"); // of the worst stage's full fp32 gradients
        QTest::addColumn<double>("maxDropShare");
        QTest::newRow("interleaved M = PP: all forwards first") << 2 << 4 << 0.6 << 1.0;
        QTest::newRow("1f1b M = 2 PP: peak in steady state") << 1 << 8 << 0.0 << 0.0;
    }
    void allocatedPeakDrop()
    {
        QFETCH(int, vpp);
        QFETCH(int, microbatches);
        QFETCH(double, minDropShare);
        QFETCH(double, maxDropShare);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const hardware::HardwareModel hw = h100s(1);
        ParallelStrategy s = base(vpp, microbatches);
        QVERIFY(strategyProblems(s, model, 8).empty());
        const Estimate persistent = estimate(model, s, hw);
        s.gradient_buffer = GradientBuffer::Step;
        QVERIFY(strategyProblems(s, model, 8).empty());
        const Estimate step = estimate(model, s, hw);
        // The stage with the most parameters: its full fp32 buffer, 4 bytes per parameter.
        double fullGradientsMb = 0;
        for (const StageEstimate& stage : persistent.stages)
            fullGradientsMb = std::max(fullGradientsMb, stage.memory.gradients_mb);
        QVERIFY(fullGradientsMb > 0);
        const double drop = persistent.allocated_peak_mb - step.allocated_peak_mb;
        const QString detail = QString("drop %1 MB of %2 MB").arg(drop).arg(fullGradientsMb);
        QVERIFY2(drop >= minDropShare * fullGradientsMb - 1e-6, qPrintable(detail));
        QVERIFY2(drop <= maxDropShare * fullGradientsMb + 1e-6, qPrintable(detail));
        // Time is not the buffer's business.
        QCOMPARE(step.iteration_ms, persistent.iteration_ms);
    }

    // The key in strategy JSON: written only when not the default, read back; refused where there
    // is no ZeRO-1 full buffer of Megatron-Core's to free (the error names the key and what it found).
    void jsonKey_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("errorPart");
        const QString head = R"({"tp":1,"pp":4,"dp":2,"global_batch_size":8,)";
        QTest::newRow("step, zero 1") << head + R"("zero":1,"gradient_buffer":"step"})" << true << "";
        QTest::newRow("persistent") << head + R"("zero":1,"gradient_buffer":"persistent"})" << true << "";
        QTest::newRow("unknown value") << head + R"("zero":1,"gradient_buffer":"lazy"})" << false << "gradient_buffer";
        QTest::newRow("step, zero 2") << head + R"("zero":2,"gradient_buffer":"step"})" << false << "found zero 2";
        QTest::newRow("step, torchtitan")
            << head + R"("zero":1,"framework":"torchtitan","gradient_buffer":"step"})" << false << "torchtitan";
    }
    void jsonKey()
    {
        QFETCH(QString, json);
        QFETCH(bool, accepted);
        QFETCH(QString, errorPart);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        try {
            const JsonDocument doc = JsonDocument::parse(json.toStdString(), "plan.json");
            const ParallelStrategy s = readStrategy(doc.root(), model, 8);
            QVERIFY2(accepted, "accepted a gradient_buffer it should refuse");
            const JsonDocument again = JsonDocument::parse(toJson(s).dump(), "again.json");
            QCOMPARE(readStrategy(again.root(), model, 8).gradient_buffer, s.gradient_buffer);
            QCOMPARE(again.root().find("gradient_buffer").has_value(), s.gradient_buffer != GradientBuffer::Persistent);
        } catch (const std::exception& e) {
            QVERIFY2(!accepted, e.what());
            QVERIFY2(QString(e.what()).contains(errorPart), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestGradientBuffer)
#include "tst_gradient_buffer.moc"
