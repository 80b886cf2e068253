// SPDX-License-Identifier: GPL-3.0-or-later
// The memory ledger over the simulated schedule (docs/memory-model.md): the plan's per-stage peak
// is the Timeline page's memory curve, and what each stage holds in flight is what the schedule's
// ops leave alive.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <QtTest>
#include "core/hardware/device_memory.h"
#include "core/megatron/estimate.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/megatron/torchtitan_activations.h"
#include "core/model/model_presets.h"
#include "core/sim/simulator.h"
#include "support/h100_cluster.h"
#include "memory_test_util.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;
using stratex::test::h100s;
using stratex::test::agree;
using stratex::test::curveMaxMb;

class TestMemoryLedger : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The plan's per-stage allocated peak is the maximum of the Timeline page's memory curve for
    // that stage: both come from the same ops in the same order. A perturbed curve (one
    // micro-batch's saved activations grown on the Timeline side only) must disagree.
    void ledgerIsTheTimelineCurve_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("gbs");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("perturbed");
        QTest::addColumn<QString>("framework");
        QTest::newRow("1F1B") << 4 << 1 << 16 << "1f1b" << false << "megatron-core";
        QTest::newRow("interleaved") << 4 << 2 << 16 << "interleaved" << false << "megatron-core";
        QTest::newRow("fewer micro-batches than stages") << 4 << 1 << 4 << "1f1b" << false << "megatron-core";
        QTest::newRow("ZB-H1") << 4 << 1 << 16 << "zb-h1" << false << "megatron-core";
        QTest::newRow("one stage") << 1 << 1 << 8 << "1f1b" << false << "megatron-core";
        // torchtitan's FSDP2 under PP: the step's gradients join at a chunk's first backward and
        // change at its last (firstBackwardGradientBytes): the curve and the table still agree.
        QTest::newRow("torchtitan 1F1B") << 4 << 1 << 16 << "1f1b" << false << "torchtitan";
        QTest::newRow("torchtitan interleaved") << 4 << 2 << 16 << "interleaved" << false << "torchtitan";
        QTest::newRow("torchtitan fewer micro-batches") << 4 << 1 << 2 << "1f1b" << false << "torchtitan";
        QTest::newRow("1F1B, curve perturbed") << 4 << 1 << 16 << "1f1b" << true << "megatron-core";
        QTest::newRow("interleaved, curve perturbed") << 4 << 2 << 16 << "interleaved" << true << "megatron-core";
        QTest::newRow("fewer micro-batches, curve perturbed") << 4 << 1 << 4 << "1f1b" << true << "megatron-core";
        QTest::newRow("torchtitan interleaved, curve perturbed") << 4 << 2 << 16 << "interleaved" << true << "torchtitan";
    }
    void ledgerIsTheTimelineCurve()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, gbs);
        QFETCH(QString, schedule);
        QFETCH(bool, perturbed);
        QFETCH(QString, framework);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.dp = std::max(1, 8 / (s.tp * s.pp));
        s.zero = s.framework == Framework::Torchtitan ? 2 : 1; // torchtitan has no ZeRO-1 (docs/frameworks.md)
        s.sequence_parallel = true;
        s.micro_batch_size = 1;
        s.global_batch_size = gbs * s.dp; // gbs micro-batches per pipeline
        s.schedule = *parsePipelineSchedule(schedule.toStdString());
        const Estimate e = estimate(model, s, hw);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QCOMPARE(int(e.stages.size()), pp);

        PipelineSimulation pipeline = pipelineSimulation(model, s, hw);
        if (perturbed)
            pipeline.input.microbatches.back().layers.front().stored_mb += 100;
        const sim::Timeline timeline = sim::simulate(pipeline.input, pipeline.schedule).timeline;
        QCOMPARE(int(timeline.devices.size()), pp);
        bool all = true;
        for (int i = 0; i < pp; ++i) {
            QVERIFY(e.stages[std::size_t(i)].memory_from_ledger);
            const double ledger = e.stages[std::size_t(i)].memory.allocatedMb();
            const double curve = curveMaxMb(timeline.devices[std::size_t(i)]);
            all = all && agree(ledger, curve);
            if (!perturbed)
                QVERIFY2(agree(ledger, curve), qPrintable(QString("stage %1: ledger %2 MB, curve %3 MB").arg(i).arg(ledger).arg(curve)));
        }
        QCOMPARE(all, !perturbed);
    }

    // With fewer micro-batches than stages, stage 0 holds only the micro-batches there are, not
    // pp of them: the ledger sees it, the peak is m x activations + transient.
    void fewerMicrobatchesHoldFewer()
    {
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = 4;
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 2;
        const Estimate two = estimate(model, s, hw);
        s.global_batch_size = 8;
        const Estimate eight = estimate(model, s, hw);
        QVERIFY(two.problems.empty() && eight.problems.empty());
        QCOMPARE(two.stages.front().inflight_microbatches_x100, 200);
        QCOMPARE(eight.stages.front().inflight_microbatches_x100, 400);
        QVERIFY(two.stages.front().memory.activations_mb < eight.stages.front().memory.activations_mb);
    }

    // A chunk's output, the activation it sends to the next stage (tokens x h in 16 bit, over TP
    // under SP), is not among its layers' saved activations (they count each layer's input).
    // Megatron-LM and Megatron-Bridge free its data once sent (deallocate_output_tensor); PyTorch's
    // pipelining, under torchtitan, keeps it in fwd_cache until the chunk's backward: one more
    // tensor per (micro-batch, chunk) in flight on every chunk but the model's last
    // (docs/memory-model.md, "Pipeline stage outputs"). Compared with Megatron-Core on stage 0,
    // whose layers save the same tensors under both frameworks without recompute. Under
    // torchtitan stage 0 also keeps its stage objects' buffers (pipelineStageBuffers): the output
    // gradient receive buffers, one per micro-batch, and under interleaving its second chunk's
    // activation receive buffers, which its first layer's saved input aliases while in flight.
    void stageOutputsFreedOrHeld_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<bool>("simulate");
        QTest::addColumn<bool>("held");
        QTest::newRow("megatron-bridge 1F1B: freed after the send") << "megatron-bridge" << 4 << 1 << true << false;
        QTest::newRow("megatron-core interleaved: freed") << "megatron-core" << 4 << 2 << true << false;
        QTest::newRow("torchtitan 1F1B: held until the backward") << "torchtitan" << 4 << 1 << true << true;
        QTest::newRow("torchtitan interleaved: held per chunk") << "torchtitan" << 4 << 2 << true << true;
        QTest::newRow("torchtitan, first pass (not simulated)") << "torchtitan" << 4 << 1 << false << true;
        QTest::newRow("torchtitan, one stage: nothing sent") << "torchtitan" << 1 << 1 << true << false;
    }
    void stageOutputsFreedOrHeld()
    {
        QFETCH(QString, framework);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(bool, simulate);
        QFETCH(bool, held);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
        s.dp = 8 / (s.tp * s.pp);
        s.zero = 2; // the same for both frameworks: torchtitan has no ZeRO-1 (docs/frameworks.md)
        s.sequence_parallel = true;
        s.global_batch_size = 8 * s.dp; // 8 micro-batches per pipeline
        EstimateOptions options;
        options.simulate_pipeline = simulate;
        const Estimate megatron = estimate(model, s, hw, options);
        s.framework = *parseFramework(framework.toStdString());
        const Estimate e = estimate(model, s, hw, options);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QVERIFY(megatron.problems.empty());
        const StageEstimate& stage = e.stages.front();
        QCOMPARE(stage.memory_from_ledger, simulate);
        const double chunksInFlight = megatron.stages.front().inflight_microbatches_x100 / 100.0 * vpp;
        const double sendMb = 2.0 * model.seq_length * model.hidden_size / s.tp / 1e6;
        const double outputMb = 2.0 * model.seq_length * model.vocab_size / s.tp / 1e6;
        double buffersMb = 0;
        for (int j = 0; j < vpp; ++j) {
            const int chunk = j * pp; // rank 0's chunks
            buffersMb += pipelineStageBuffers(s, sendMb, outputMb, chunk == 0, chunk + 1 == pp * vpp).total();
        }
        QCOMPARE(buffersMb > 0, held);
        const double expectedMb = held ? chunksInFlight * sendMb + buffersMb : 0.0;
        const double foundMb = stage.memory.activations_mb - megatron.stages.front().memory.activations_mb;
        if (vpp > 1) {
            // The second chunk's saved inputs in flight are its receive buffers: at most one per
            // chunk in flight less than the held outputs and the buffers.
            QVERIFY2(foundMb <= expectedMb + 1e-6 && foundMb >= expectedMb - chunksInFlight * sendMb - 1e-6,
                qPrintable(QString("stage 0 holds %1 MB more, expected %2 MB less at most %3").arg(foundMb).arg(expectedMb).arg(chunksInFlight * sendMb)));
            return;
        }
        // The in-flight count is the same: the output is part of each micro-batch's share.
        QCOMPARE(stage.inflight_microbatches_x100, megatron.stages.front().inflight_microbatches_x100);
        QVERIFY2(std::abs(foundMb - expectedMb) <= 1e-6 * std::max(1.0, expectedMb),
            qPrintable(QString("stage 0 holds %1 MB more than Megatron-Core, expected %2 MB (%3 chunks of %4 MB)")
                    .arg(foundMb)
                    .arg(expectedMb)
                    .arg(chunksInFlight)
                    .arg(sendMb)));
    }
};

QTEST_GUILESS_MAIN(TestMemoryLedger)
#include "tst_memory_ledger.moc"
