// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel traffic per framework (core/megatron/dp_traffic.*): when each framework reduces the
// gradients and gathers the weights, and what that costs a stage per iteration.
#include <cmath>
#include <vector>

#include <QtTest>

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/estimate.h"
#include "core/megatron/framework.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_presets.h"
#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::gpus;

hardware::HardwareModel cluster(const QString& gpu, int nodes)
{
    hardware::ClusterDescription c;
    c.gpu = hardware::gpuPreset(gpu.toStdString());
    c.num_nodes = nodes;
    c.gpus_per_node = 8;
    return hardware::HardwareModel(c, hardware::efficiencyFor(c.gpu));
}


} // namespace

class TestDpTraffic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // When each framework reduces the data-parallel gradients and gathers the weights, and which
    // gradient buffers that leaves (gradientReduction(), docs/collectives.md "Gradient reduction
    // per framework"): Megatron's DDP and distributed optimizer once per iteration over the full
    // grad buffer, Megatron-FSDP and DeepSpeed ZeRO 2-3 in every backward into shards, torchtitan's
    // FSDP2 once under PP (pipelining's no-sync micro-batches, unsharded accumulation) and every
    // micro-batch without it (resharded after each backward, so gathered again).
    void gradientReductionFollowsTheFramework_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("pp");
        QTest::addColumn<bool>("everyMicrobatch");
        QTest::addColumn<bool>("gatherEveryMicrobatch");
        QTest::addColumn<bool>("fullGradients");
        QTest::addColumn<bool>("shardedGradients");
        QTest::newRow("megatron-core ddp") << "megatron-core" << 0 << 4 << false << false << true << false;
        QTest::newRow("megatron-core distributed optimizer") << "megatron-core" << 1 << 4 << false << false << true << false;
        QTest::newRow("megatron-fsdp optim_grads") << "megatron-core" << 2 << 4 << true << false << false << true;
        QTest::newRow("megatron-fsdp optim_grads_params") << "megatron-core" << 3 << 4 << true << false << false << true;
        QTest::newRow("nemo is megatron-core") << "nemo" << 2 << 1 << true << false << false << true;
        QTest::newRow("deepspeed zero 1") << "deepspeed" << 1 << 1 << false << false << true << false;
        QTest::newRow("deepspeed zero 2") << "deepspeed" << 2 << 1 << true << false << false << true;
        QTest::newRow("torchtitan fsdp under pp") << "torchtitan" << 2 << 4 << false << false << true << true;
        QTest::newRow("torchtitan fsdp reshard under pp") << "torchtitan" << 3 << 4 << false << false << true << true;
        QTest::newRow("torchtitan fsdp no pp") << "torchtitan" << 2 << 1 << true << true << false << true;
        QTest::newRow("torchtitan fsdp reshard no pp") << "torchtitan" << 3 << 1 << true << true << false << true;
        QTest::newRow("torchtitan ddp no pp") << "torchtitan" << 0 << 1 << true << false << true << false;
    }
    void gradientReductionFollowsTheFramework()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(int, pp);
        QFETCH(bool, everyMicrobatch);
        QFETCH(bool, gatherEveryMicrobatch);
        QFETCH(bool, fullGradients);
        QFETCH(bool, shardedGradients);
        const GradientReduction r = gradientReduction(*parseFramework(framework.toStdString()), zero, pp);
        QCOMPARE(r.every_microbatch, everyMicrobatch);
        QCOMPARE(r.gather_every_microbatch, gatherEveryMicrobatch);
        QCOMPARE(r.full_gradients, fullGradients);
        QCOMPARE(r.sharded_gradients, shardedGradients);
        QCOMPARE(r.reductions(16), everyMicrobatch ? 16 : 1);
    }

    // The same rules in the estimate: a stage's data-parallel traffic per iteration grows by the same
    // amount with every micro-batch where the framework reduces (and gathers) per micro-batch, and
    // not at all where it reduces once (before, every ZeRO 0-2 plan reduced once and every ZeRO 3
    // plan once per micro-batch, whatever the framework).
    void dpTrafficPerIterationFollowsTheFramework_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("pp");
        QTest::addColumn<bool>("perMicrobatch");
        QTest::newRow("megatron-core distributed optimizer") << "megatron-core" << 1 << 2 << false;
        QTest::newRow("megatron-fsdp optim_grads") << "megatron-core" << 2 << 2 << true;
        QTest::newRow("megatron-fsdp optim_grads_params") << "megatron-core" << 3 << 2 << true;
        QTest::newRow("deepspeed zero 1") << "deepspeed" << 1 << 1 << false;
        QTest::newRow("deepspeed zero 2") << "deepspeed" << 2 << 1 << true;
        QTest::newRow("torchtitan fsdp under pp") << "torchtitan" << 2 << 2 << false;
        QTest::newRow("torchtitan fsdp no pp") << "torchtitan" << 2 << 1 << true;
    }
    void dpTrafficPerIterationFollowsTheFramework()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(int, pp);
        QFETCH(bool, perMicrobatch);
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.tp = 2;
        s.pp = pp;
        s.sequence_parallel = true;
        s.dp = 16 / pp; // 32 GPUs = tp 2 x pp x dp
        s.zero = zero;
        const HardwareModel hw = gpus("h100-80gb", 4);
        std::vector<double> commMs;
        std::vector<double> iterationMs;
        for (int m : { 4, 8, 12 }) {
            s.global_batch_size = m * s.dp;
            const Estimate e = estimate(model, s, hw);
            QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
            commMs.push_back(e.stages.front().dp_comm_ms);
            iterationMs.push_back(e.iteration_ms);
        }
        const double firstStep = commMs[1] - commMs[0];
        const double secondStep = commMs[2] - commMs[1];
        if (perMicrobatch) {
            QVERIFY2(firstStep > 0.01 * commMs[0], qPrintable(QString("%1 -> %2 ms").arg(commMs[0]).arg(commMs[1])));
            QVERIFY2(std::abs(secondStep - firstStep) <= 1e-9 * commMs[2],
                qPrintable(QString("%1, %2 ms per 4 micro-batches").arg(firstStep).arg(secondStep)));
        } else {
            QCOMPARE(commMs[1], commMs[0]);
            QCOMPARE(commMs[2], commMs[0]);
        }
        QVERIFY(iterationMs[0] < iterationMs[1] && iterationMs[1] < iterationMs[2]);
    }

    // ZeRO 3 under PP gathers the layers for every micro-batch in both frameworks, but torchtitan's
    // pipelining reduce-scatters only in the last micro-batch's backward, where Megatron-FSDP
    // reduces in every one: per extra micro-batch, torchtitan's traffic grows by the gathers only.
    void zero3UnderPipeliningReducesOnce()
    {
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        auto growthMs = [&](Framework framework) {
            ParallelStrategy s;
            s.framework = framework;
            s.tp = 2;
            s.pp = 2;
            s.dp = 8;
            s.sequence_parallel = true;
            s.zero = 3;
            const HardwareModel hw = gpus("h100-80gb", 4);
            s.global_batch_size = 4 * s.dp;
            const double few = estimate(model, s, hw).stages.front().dp_comm_ms;
            s.global_batch_size = 8 * s.dp;
            return estimate(model, s, hw).stages.front().dp_comm_ms - few;
        };
        const double megatron = growthMs(Framework::MegatronCore);
        const double titan = growthMs(Framework::Torchtitan);
        QVERIFY2(titan > 0 && titan < megatron, qPrintable(QString("%1 vs %2 ms").arg(titan).arg(megatron)));
        // The reduce-scatters move 4-byte gradients, the gathers 2-byte weights: without the
        // reduces, at most about a third of Megatron-FSDP's growth is left (latency aside).
        QVERIFY2(titan < 0.5 * megatron, qPrintable(QString("%1 vs %2 ms").arg(titan).arg(megatron)));
    }

    // FSDP2 (torchtitan) copies every all-gather out into the unsharded parameters on the compute
    // stream: a read and a write of the gathered bytes per layer and gather; Megatron-FSDP's
    // parameters are views of its buffer, and FSDP1's (Composer) of its flat parameter: nothing.
    void fsdp2CopiesOutEachGather_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("copies");
        QTest::newRow("torchtitan, ZeRO 3") << Framework::Torchtitan << 3 << true;
        QTest::newRow("megatron-core, ZeRO 3 (Megatron-FSDP)") << Framework::MegatronCore << 3 << false;
        QTest::newRow("composer, ZeRO 3 (FSDP1)") << Framework::Composer << 3 << false;
        QTest::newRow("torchtitan, ZeRO 2") << Framework::Torchtitan << 2 << false;
    }
    void fsdp2CopiesOutEachGather()
    {
        QFETCH(Framework, framework);
        QFETCH(int, zero);
        QFETCH(bool, copies);
        ParallelStrategy s;
        s.framework = framework;
        s.dp = 16;
        s.zero = zero;
        const HardwareModel hw = gpus("h100-80gb", 2);
        const double params = 8e9;
        const int layers = 32;
        const DpTraffic t = dpTraffic(s, hw, { 16, 1 }, { 16, 1 }, params, 0, layers, 1.0);
        QCOMPARE(t.copy_out_s, copies ? hw.memoryBoundS(2 * 2 * params / layers) : 0.0);
        if (!copies)
            return;
        // Charged once per layer and gather on the stage's exposed time: two gathers per
        // micro-batch without pipelining (forward, and again for the backward).
        DpStageTiming timing;
        timing.layers = layers;
        timing.m = 3;
        timing.v = 1;
        timing.forward_s = 1.0;
        timing.backward_s = 2.0;
        const GradientReduction reduction = gradientReduction(s.framework, s.zero, s.pp);
        DpTraffic without = t;
        without.copy_out_s = 0;
        const double with = dpExposure(s, t, reduction, 0.9, timing).exposed_s;
        const double base = dpExposure(s, without, reduction, 0.9, timing).exposed_s;
        QVERIFY(std::abs(with - base - layers * 3 * 2 * t.copy_out_s) < 1e-12);
    }

    // NCCL's channels (one CTA each) for a ring, from its topology search (collectives.cpp,
    // ringCtas): 24 inside an NVSwitch node (6 rings, duplicated, doubled), 16 across nodes (one
    // ring per NIC, doubled); the compute keeps SMs - ctas: ctas / (SMs - ctas) more time.
    void ringCtasAndSlowdown_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("ctas");
        QTest::addColumn<double>("slowdown");
        QTest::newRow("h100 one node") << "h100-80gb" << 1 << 8 << 1 << 24 << 24.0 / 108;
        QTest::newRow("h100 tp2 pairs in a node") << "h100-80gb" << 1 << 4 << 2 << 24 << 24.0 / 108;
        QTest::newRow("h100 64 nodes") << "h100-80gb" << 64 << 512 << 1 << 16 << 16.0 / 116;
        QTest::newRow("h100 across nodes, one rank each") << "h100-80gb" << 16 << 16 << 8 << 16 << 16.0 / 116;
        QTest::newRow("a100 one node") << "a100-80gb" << 1 << 8 << 1 << 24 << 24.0 / 84;
        QTest::newRow("a100 16 nodes") << "a100-40gb" << 16 << 128 << 1 << 16 << 16.0 / 92;
        QTest::newRow("no group") << "h100-80gb" << 1 << 1 << 1 << 0 << 0.0;
    }
    void ringCtasAndSlowdown()
    {
        QFETCH(QString, gpu);
        QFETCH(int, nodes);
        QFETCH(int, size);
        QFETCH(int, stride);
        QFETCH(int, ctas);
        QFETCH(double, slowdown);
        const hardware::HardwareModel hw = cluster(gpu, nodes);
        const hardware::GroupShape group { size, stride };
        QCOMPARE(hw.collectives().ringCtas(group), ctas);
        QVERIFY2(std::abs(megatron::ncclComputeSlowdown(hw, group) - slowdown) < 1e-12,
            qPrintable(QString::number(megatron::ncclComputeSlowdown(hw, group))));
    }

    // The gradients are reduced in the grad buffer's dtype: Megatron-Core / Megatron-Bridge with bf16
    // main gradients (--grad-reduce-in-bf16) move 2 bytes a parameter, half of fp32's, through the
    // same reduce-scatter (equal bytes per bucket or layer, so the time halves only up to the
    // collectives' latency); the other frameworks reduce in fp32 whatever the setting.
    void gradientsReduceInTheBufferDtype_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("halves");
        QTest::newRow("megatron-core distributed optimizer") << "megatron-core" << 1 << true;
        QTest::newRow("megatron-bridge ddp") << "megatron-bridge" << 0 << true;
        QTest::newRow("megatron-fsdp") << "megatron-core" << 3 << true;
        QTest::newRow("torchtitan fsdp2") << "torchtitan" << 3 << false;
    }
    void gradientsReduceInTheBufferDtype()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(bool, halves);
        const hardware::HardwareModel hw = cluster("h100-80gb", 4);
        megatron::ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.dp = 32;
        s.zero = zero;
        s.overlap_grad_reduce = true;
        const hardware::GroupShape dp { 32, 1 };
        const double params = 8e9;
        const megatron::DpTraffic fp32 = megatron::dpTrafficTimes(s, hw, dp, dp, params, 0, 32, 1.0);
        s.main_grads_dtype = megatron::StateDtype::Bf16;
        const megatron::DpTraffic bf16 = megatron::dpTrafficTimes(s, hw, dp, dp, params, 0, 32, 1.0);
        const double before = zero == 3 ? fp32.reduce_s : fp32.grad_s;
        const double after = zero == 3 ? bf16.reduce_s : bf16.grad_s;
        QVERIFY(before > 0);
        if (halves) {
            QVERIFY2(after < 0.6 * before && after >= 0.5 * before, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
        } else {
            QCOMPARE(after, before);
        }
        QCOMPARE(bf16.gather_s, fp32.gather_s);
        QCOMPARE(bf16.gather_total_s, fp32.gather_total_s);
    }

    // The hidden traffic slows the compute it runs beside by compute_slowdown, for as long as the
    // two overlap: exposure grows by slowdown x min(hidden traffic, compute), and not at all when
    // nothing is hidden (no overlap) or the GPU's SMs are unknown (slowdown 0).
    void hiddenTrafficSlowsTheCompute_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("overlap");
        QTest::addColumn<double>("gatherMs"); // ZeRO 3: per layer; else all buckets
        QTest::addColumn<double>("reduceMs");
        QTest::addColumn<double>("slowdown");
        QTest::addColumn<double>("forwardMs"); // the stage's, per micro-batch
        QTest::addColumn<double>("backwardMs");
        QTest::addColumn<int>("microbatches");
        // FSDP, 32 layers, 1 ms gather and 2 ms reduce-scatter a layer under 10 / 20 ms of
        // compute a layer: 4 ms of 128 ms exposed (first gathers, last reduce-scatter), 124 hidden.
        QTest::newRow("zero3 hidden") << 3 << true << 1.0 << 2.0 << 16.0 / 116 << 320.0 << 640.0 << 1;
        QTest::newRow("zero3 no SM count") << 3 << true << 1.0 << 2.0 << 0.0 << 320.0 << 640.0 << 1;
        // Communication longer than the compute: only the compute's length is slowed.
        QTest::newRow("zero3 comm-bound") << 3 << true << 40.0 << 80.0 << 24.0 / 108 << 32.0 << 64.0 << 2;
        QTest::newRow("zero1 overlapped") << 1 << true << 30.0 << 60.0 << 24.0 / 108 << 300.0 << 600.0 << 8;
        QTest::newRow("zero1 not overlapped") << 1 << false << 30.0 << 60.0 << 24.0 / 108 << 300.0 << 600.0 << 8;
    }
    void hiddenTrafficSlowsTheCompute()
    {
        QFETCH(int, zero);
        QFETCH(bool, overlap);
        QFETCH(double, gatherMs);
        QFETCH(double, reduceMs);
        QFETCH(double, slowdown);
        QFETCH(double, forwardMs);
        QFETCH(double, backwardMs);
        QFETCH(int, microbatches);
        megatron::ParallelStrategy s;
        s.dp = 64;
        s.zero = zero;
        s.overlap_grad_reduce = overlap;
        megatron::DpTraffic dp;
        if (zero == 3) {
            dp.gather_s = gatherMs / 1e3;
            dp.reduce_s = reduceMs / 1e3;
        } else {
            dp.gather_total_s = gatherMs / 1e3;
            dp.grad_s = reduceMs / 1e3;
            dp.first_bucket_s = dp.gather_total_s / 4;
            dp.last_bucket_s = dp.grad_s / 4;
        }
        megatron::DpStageTiming t;
        t.m = microbatches;
        t.layers = 32;
        t.forward_s = forwardMs / 1e3;
        t.backward_s = backwardMs / 1e3;
        t.pipeline_s = microbatches * (t.forward_s + t.backward_s);
        const megatron::GradientReduction r = megatron::gradientReduction(s.framework, s.zero, s.pp);
        const megatron::DpExposure without = megatron::dpExposure(s, dp, r, 0.9, t);
        dp.compute_slowdown = slowdown;
        const megatron::DpExposure with = megatron::dpExposure(s, dp, r, 0.9, t);
        QCOMPARE(with.comm_s, without.comm_s);
        const double hidden = std::max(0.0, without.comm_s - without.exposed_s);
        const double compute = microbatches * (t.forward_s + t.backward_s);
        const double expected = without.exposed_s + slowdown * std::min(hidden, compute);
        QVERIFY2(std::abs(with.exposed_s - expected) < 1e-12,
            qPrintable(QString("exposed %1 ms, expected %2 ms").arg(with.exposed_s * 1e3).arg(expected * 1e3)));
        if (slowdown > 0 && hidden > 0)
            QVERIFY(with.exposed_s > without.exposed_s);
        else
            QCOMPARE(with.exposed_s, without.exposed_s);
    }
    // What of the gradient reduction the schedule hides (dpExposure, docs/collectives.md "What the
    // schedule hides"), derived by hand per row; no SM slowdown, dp_overlap 1. Megatron's DDP and
    // distributed optimizer reduce each model chunk once, from its last backward on, on a stream
    // only finalize_model_grads waits for: the last k chunks' traffic against their
    // (k - 1)·g + 1 + i chunk backwards (g = min(m, N), N the micro-batch group, p by default; i the
    // stage's flush), the worst k binding.
    // Megatron-FSDP (and FSDP2, DeepSpeed ZeRO 2) reduce in every chunk's backward and wait for it
    // at that backward's end: m·v times what one chunk backward does not hide, whatever the
    // pipeline's length.
    void reductionHidesUnderTheSchedule_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("stage");
        QTest::addColumn<int>("chunks");
        QTest::addColumn<double>("backwardMs"); // the stage's, per micro-batch, all chunks
        QTest::addColumn<double>("gradMs"); // all of the stage's buckets, one reduction
        QTest::addColumn<double>("lastBucketMs");
        QTest::addColumn<double>("pipelineMs");
        QTest::addColumn<double>("exposedMs");
        QTest::addColumn<double>("commMs");
        QTest::addColumn<int>("group"); // microbatch_group_size N, 0 for Megatron's default (p)
        // p 4, m 8. 1F1B, first stage: only the last backward hides it (30 - 20).
        QTest::newRow("ddp 1f1b first stage") << "megatron-core" << 1 << 0 << 1 << 20.0 << 30.0 << 7.5 << 330.0 << 10.0 << 30.0 << 0;
        // Last stage: 1 + 3 backwards (the flush) hide all but the last bucket.
        QTest::newRow("ddp 1f1b last stage") << "megatron-core" << 1 << 3 << 1 << 20.0 << 30.0 << 7.5 << 330.0 << 7.5 << 30.0 << 0;
        // Two chunks of 10 ms backward and 15 ms traffic: chunk 0's traffic has only its own last
        // backward (15 - 10); both chunks' 30 ms have 4 + 1 backwards (50 ms).
        QTest::newRow("ddp interleaved, the last chunk") << "megatron-core" << 1 << 0 << 2 << 20.0 << 30.0 << 3.75 << 330.0 << 5.0 << 30.0 << 0;
        // 120 ms: both chunks bind, 120 - 50.
        QTest::newRow("ddp interleaved, beyond the cooldown") << "megatron-core" << 1 << 0 << 2 << 20.0 << 120.0 << 15.0 << 330.0 << 70.0 << 120.0 << 0;
        // Micro-batch groups of N = 8: the last chunk's backwards come 8 + 1 chunk steps before the
        // end: 120 - 90 for both chunks, so chunk 1 alone binds, 60 - 10.
        QTest::newRow("ddp interleaved, beyond the cooldown, group 8") << "megatron-core" << 1 << 0 << 2 << 20.0 << 120.0 << 15.0 << 330.0 << 50.0 << 120.0 << 8;
        // Every backward hides its own 15 ms but its last bucket: 8 x 3.75.
        QTest::newRow("fsdp 1f1b hidden") << "megatron-core" << 2 << 3 << 1 << 20.0 << 15.0 << 3.75 << 330.0 << 30.0 << 120.0 << 0;
        // 30 ms against a 20 ms backward: 8 x 10, with or without idle slots in the pipeline.
        QTest::newRow("fsdp 1f1b longer than its backward") << "megatron-core" << 2 << 3 << 1 << 20.0 << 30.0 << 7.5 << 330.0 << 80.0 << 240.0 << 0;
        QTest::newRow("fsdp 1f1b, no bubble") << "megatron-core" << 2 << 3 << 1 << 20.0 << 30.0 << 7.5 << 240.0 << 80.0 << 240.0 << 0;
        // Two chunks: 16 chunk backwards of 10 ms, each with 15 ms: 16 x 5.
        QTest::newRow("fsdp interleaved") << "megatron-core" << 2 << 0 << 2 << 20.0 << 30.0 << 3.75 << 330.0 << 80.0 << 240.0 << 0;
        // torchtitan under PP reduces once, but each chunk's last backward waits for its own
        // reduce-scatters (FSDP2's root callback): 15 - 10 for each of the two chunks (5 before,
        // queued under the other chunk's backwards as Megatron's DDP).
        QTest::newRow("fsdp2 pipelining, chunks wait") << "torchtitan" << 2 << 0 << 2 << 20.0 << 30.0 << 3.75 << 330.0 << 10.0 << 30.0 << 0;
        // Last stage: the last chunk also under the 3-step flush (its last bucket left).
        QTest::newRow("fsdp2 pipelining, last stage") << "torchtitan" << 2 << 3 << 2 << 20.0 << 30.0 << 3.75 << 330.0 << 8.75 << 30.0 << 0;
    }
    void reductionHidesUnderTheSchedule()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(int, stage);
        QFETCH(int, chunks);
        QFETCH(double, backwardMs);
        QFETCH(double, gradMs);
        QFETCH(double, lastBucketMs);
        QFETCH(double, pipelineMs);
        QFETCH(double, exposedMs);
        QFETCH(double, commMs);
        QFETCH(int, group);
        megatron::ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.dp = 64;
        s.pp = 4;
        s.vpp = chunks;
        s.zero = zero;
        s.microbatch_group_size = group;
        s.overlap_grad_reduce = true;
        megatron::DpTraffic dp;
        dp.grad_s = gradMs / 1e3;
        dp.last_bucket_s = lastBucketMs / 1e3;
        megatron::DpStageTiming t;
        t.stage_index = stage;
        t.p = 4;
        t.v = chunks;
        t.m = 8;
        t.layers = 8;
        t.forward_s = backwardMs / 2e3;
        t.backward_s = backwardMs / 1e3;
        t.pipeline_s = pipelineMs / 1e3;
        const megatron::GradientReduction r = megatron::gradientReduction(s.framework, s.zero, s.pp);
        QCOMPARE(r.every_microbatch, zero == 2 && framework == "megatron-core");
        QCOMPARE(r.chunk_waits, framework == "torchtitan");
        const megatron::DpExposure e = megatron::dpExposure(s, dp, r, 1.0, t);
        QVERIFY2(std::abs(e.exposed_s * 1e3 - exposedMs) < 1e-9,
            qPrintable(QString("exposed %1 ms, expected %2 ms").arg(e.exposed_s * 1e3).arg(exposedMs)));
        QVERIFY2(std::abs(e.comm_s * 1e3 - commMs) < 1e-9, qPrintable(QString::number(e.comm_s * 1e3)));
    }
};

QTEST_GUILESS_MAIN(TestDpTraffic)
#include "tst_dp_traffic.moc"
