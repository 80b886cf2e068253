// SPDX-License-Identifier: GPL-3.0-or-later
// A layer's time (core/megatron/layer_cost.*): the attention width in its GEMMs and not in its TP
// traffic, TP communication overlap's exposed last chunk, flash attention's backward against
// published kernel speeds, the per-head QK norms' passes.
#include <cmath>

#include <QtTest>

#include "core/hardware/kernel_shapes.h"
#include "core/megatron/attention_kernel_choice.h"
#include "core/megatron/elementwise_passes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_presets.h"

#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::gpt175b;
using test::gpus;
using test::a100s;

} // namespace

class TestLayerTime : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The wider attention costs its GEMMs and flash attention (a layer's forward grows), while the
    // TP collectives stay hidden-wide (linear_proj's row-parallel output is s x h).
    void attentionWidthCostsTimeNotTpTraffic_data()
    {
        QTest::addColumn<int>("tp");
        QTest::newRow("tp1") << 1;
        QTest::newRow("tp8 sp") << 8;
    }
    void attentionWidthCostsTimeNotTpTraffic()
    {
        QFETCH(int, tp);
        model::ModelDescription narrow = gpt175b();
        model::ModelDescription wide = narrow;
        wide.head_dim = 256; // 96 x 256 = 2h
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        const LayerCost a = layerCost(narrow, s, a100s(1), false, false);
        const LayerCost b = layerCost(wide, s, a100s(1), false, false);
        QVERIFY2(b.forward_compute_s > 1.1 * a.forward_compute_s,
            qPrintable(QString("%1 s against %2 s").arg(b.forward_compute_s).arg(a.forward_compute_s)));
        QCOMPARE(b.tp_forward_comm_s, a.tp_forward_comm_s);
        QCOMPARE(b.tp_backward_comm_s, a.tp_backward_comm_s);
    }

    // --qk-layernorm (model.qk_norm, qk_norm_memory.h): the per-head norms on Q and K cost their
    // memory-bound passes and kernels as the layer's other norms run: fused (Megatron-Core's TENorm,
    // one kernel each) or eager (torchtitan's composite RMSNorm, eight kernels and 18 passes); the
    // backward twice the forward's. Llama 3 8B at 8K tokens, far from host-bound.
    void qkNormCostsItsPasses_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<int>("tp");
        QTest::newRow("megatron-core, tp1") << int(Framework::MegatronCore) << 1;
        QTest::newRow("megatron-core, tp4 sp") << int(Framework::MegatronCore) << 4;
        QTest::newRow("torchtitan eager, tp1") << int(Framework::Torchtitan) << 1;
    }
    void qkNormCostsItsPasses()
    {
        QFETCH(int, framework);
        QFETCH(int, tp);
        model::ModelDescription plain = model::modelPreset("llama3-8b");
        model::ModelDescription normed = plain;
        normed.qk_norm = true;
        ParallelStrategy s;
        s.framework = Framework(framework);
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        s.micro_batch_size = 1;
        const HardwareModel hw = a100s(1);
        const LayerCost a = layerCost(plain, s, hw, false, false);
        const LayerCost b = layerCost(normed, s, hw, false, false);
        const ElementwisePasses passes = elementwisePasses(plain, elementwiseForm(s.framework, s.compile, false), true);
        const double bytes
            = passes.norm * 2.0 * plain.seq_length * (plain.attentionWidth() + plain.kvHiddenSize()) / tp;
        const double forward = hw.memoryBoundS(bytes) + hw.kernelOverheadS(2 * passes.norm_kernels);
        QVERIFY(std::abs(b.forward_compute_s - a.forward_compute_s - forward) < 1e-9);
        const double backward = hw.memoryBoundS(2 * bytes) + hw.kernelOverheadS(4 * passes.norm_kernels);
        QVERIFY(std::abs(b.backward_compute_s - a.backward_compute_s - backward) < 1e-9);
        QCOMPARE(passes.norm_kernels, framework == int(Framework::Torchtitan) ? 8 : 1);
    }

    // TP communication overlap (docs/collectives.md, "TP communication overlap"): split into tp
    // chunks and pipelined with the GEMMs, a pass exposes what the GEMM chunks cannot cover and at
    // least the reduce-scatters' last chunk (C / 2tp of its traffic C). Llama 3 70B's GEMMs at
    // seq 8192 are far longer than its TP traffic over NVLink, so exactly that last chunk is left;
    // without sequence parallelism (all-reduces) nothing is pipelined.
    void tpOverlapLeavesTheLastChunk_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::newRow("tp 2") << 2 << true;
        QTest::newRow("tp 4") << 4 << true;
        QTest::newRow("tp 8") << 8 << true;
        QTest::newRow("tp 8 without sp") << 8 << false;
    }
    void tpOverlapLeavesTheLastChunk()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        const model::ModelDescription model = model::modelPreset("llama3-70b");
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = sp;
        // The plain backward with its collectives exposed (not Megatron's asynchronous backward,
        // tst_tp_async_backward): the traffic the overlap is measured against.
        s.tp_async_backward = false;
        const HardwareModel hw = gpus("h100-80gb", 1);
        const LayerCost plain = layerCost(model, s, hw, false, false);
        s.tp_comm_overlap = true;
        const LayerCost overlapped = layerCost(model, s, hw, false, false);
        const double traffic = plain.tp_forward_comm_s;
        QVERIFY(traffic > 0);
        QCOMPARE(plain.tp_backward_comm_s, traffic);
        const double expected = sp ? traffic / (2.0 * tp) : traffic;
        QVERIFY2(std::abs(overlapped.tp_forward_comm_s - expected) <= 1e-12 + 1e-9 * expected,
            qPrintable(QString("%1 s exposed, expected %2 s").arg(overlapped.tp_forward_comm_s).arg(expected)));
        QVERIFY(std::abs(overlapped.tp_backward_comm_s - expected) <= 1e-12 + 1e-9 * expected);
        // The GEMMs run in pieces beside the chunks: slower, never faster (tst_tp_overlap_splits).
        QVERIFY(overlapped.forward_compute_s >= plain.forward_compute_s);
        QCOMPARE(plain.forward_comm_s - overlapped.forward_comm_s, traffic - overlapped.tp_forward_comm_s);
    }

    // Flash attention's backward takes 2.5x the forward's FLOPs at 0.86-0.87 of its speed:
    // FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608), forward and backward TFLOP/s at head
    // dim 128 on H100 SXM5 (docs/kernels.md §4). The layer's backward attention over its forward
    // attention must be 2.5 x forward/backward speed of every kernel there within 2 %.
    void flashBackwardFollowsPublishedSpeeds_data()
    {
        QTest::addColumn<double>("forwardTflops");
        QTest::addColumn<double>("backwardTflops");
        QTest::newRow("FlashAttention-2 8K") << 370.0 << 318.0;
        QTest::newRow("FlashAttention-2 16K") << 370.0 << 322.0;
        QTest::newRow("cuDNN 8K") << 600.0 << 518.0;
        QTest::newRow("cuDNN 16K") << 595.0 << 516.0;
        QTest::newRow("FlashAttention-3 8K") << 646.0 << 559.0;
        QTest::newRow("FlashAttention-3 16K") << 648.0 << 561.0;
    }
    void flashBackwardFollowsPublishedSpeeds()
    {
        QFETCH(double, forwardTflops);
        QFETCH(double, backwardTflops);
        model::ModelDescription model = model::modelPreset("llama2-7b");
        model.seq_length = 16384;
        ParallelStrategy s; // tp 1, cp 1, micro-batch 1
        const HardwareModel hw = gpus("h100-80gb", 1);
        const LayerCost cost = layerCost(model, s, hw, false, false);
        // forward = G + A + M + K, backward = 2G + R A + 2M + 2K: R = 2 + (backward - 2 forward) / A.
        const double s2 = double(model.seq_length);
        const double attention
            = flashAttentionS(hw, 4.0 * s2 * s2 * model.attentionWidth() * 0.5, model.num_heads, s2, s2)
            * attentionKernelTimeFactor(s, hw, model.headDim(), s2); // the plan's kernel (docs/kernels.md §6)
        const double ratio = 2 + (cost.backward_compute_s - 2 * cost.forward_compute_s) / attention;
        const double published = 2.5 * forwardTflops / backwardTflops;
        QVERIFY2(std::abs(ratio / published - 1) < 0.02,
            qPrintable(QString("backward/forward %1, published %2").arg(ratio).arg(published)));
    }
};

QTEST_GUILESS_MAIN(TestLayerTime)
#include "tst_layer_time.moc"
