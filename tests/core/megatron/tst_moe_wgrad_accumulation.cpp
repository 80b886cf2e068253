// SPDX-License-Identifier: GPL-3.0-or-later
// The experts' weight-gradient accumulation into main_grad (core/megatron/moe_kernels.*
// teGroupedWgradAccumulateExtraBytes, docs/moe.md "The experts' weight-gradient accumulation"):
// TE's GroupedLinear with fuse_wgrad_accumulation reads and writes each expert's main_grad in the
// wgrad GEMM (grouped_linear.py at TransformerEngine 71bbefbf), bytes per weight element by the
// main grads' dtype, and their cost in a Megatron MoE layer's backward.
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/moe_kernels.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

Q_DECLARE_METATYPE(stratex::megatron::Framework)
Q_DECLARE_METATYPE(stratex::megatron::StateDtype)

using namespace stratex;
using namespace stratex::megatron;

class TestMoeWgradAccumulation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // dgrad's 16-bit weight read (2 B) and the main_grad read and written, less the 2 x 2 B the
    // layer's 2x-forward convention already counts.
    void extraBytesPerWeight_data()
    {
        QTest::addColumn<double>("mainGradBytes");
        QTest::addColumn<bool>("fusion");
        QTest::addColumn<double>("bytesPerElement");
        QTest::newRow("fp32 main grads") << 4.0 << true << 6.0;
        QTest::newRow("bf16 main grads") << 2.0 << true << 2.0;
        QTest::newRow("no fusion") << 4.0 << false << 0.0;
    }
    void extraBytesPerWeight()
    {
        QFETCH(double, mainGradBytes);
        QFETCH(bool, fusion);
        QFETCH(double, bytesPerElement);
        const double elements = 16 * 3.0 * 1536 * 4096; // Qwen3-235B's 16 local experts (EP 8)
        QCOMPARE(teGroupedWgradAccumulateExtraBytes(elements, mainGradBytes, fusion), bytesPerElement * elements);
        QCOMPARE(teGroupedWgradAccumulateExtraBytes(0, mainGradBytes, fusion), 0.0);
    }

    // In a Qwen3-235B-like MoE layer (EP 8, 16 local experts of 1,536): the backward pays the
    // accumulation under Megatron-Core with the fusion, by the main grads' dtype; not without the
    // fusion, not in torchtitan; the forward never.
    void layerBackwardPaysIt_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("fusion");
        QTest::addColumn<StateDtype>("mainGrads");
        QTest::addColumn<double>("bytesPerElement");
        QTest::newRow("megatron fp32") << Framework::MegatronCore << true << StateDtype::Fp32 << 6.0;
        QTest::newRow("bridge bf16") << Framework::MegatronBridge << true << StateDtype::Bf16 << 2.0;
        QTest::newRow("megatron, fusion off") << Framework::MegatronCore << false << StateDtype::Fp32 << 0.0;
        QTest::newRow("torchtitan") << Framework::Torchtitan << true << StateDtype::Fp32 << 0.0;
    }
    void layerBackwardPaysIt()
    {
        QFETCH(Framework, framework);
        QFETCH(bool, fusion);
        QFETCH(StateDtype, mainGrads);
        QFETCH(double, bytesPerElement);
        model::ModelDescription m = model::modelPreset("mixtral-8x7b");
        m.moe->num_experts = 128;
        m.moe->top_k = 8;
        m.moe->expert_ffn_hidden_size = 1536;
        m.seq_length = 4096;
        ParallelStrategy s;
        s.framework = framework;
        s.ep = 8;
        s.dp = 8;
        s.global_batch_size = 64;
        s.gradient_accumulation_fusion = fusion;
        s.main_grads_dtype = mainGrads;
        const hardware::HardwareModel hw = test::h100s(1);
        const LayerCost with = layerCost(m, s, hw, true, false);
        // The same layer with the accumulation's bytes taken out: no main grads to accumulate into.
        ParallelStrategy off = s;
        off.gradient_accumulation_fusion = false;
        const LayerCost without = layerCost(m, off, hw, true, false);
        const double elements = 16 * 3.0 * 1536 * m.hidden_size;
        const double expected = hw.memoryBoundS(bytesPerElement * elements);
        QCOMPARE(with.forward_compute_s, without.forward_compute_s);
        // The backward's GPU time grows by the bytes' HBM time unless the host bounds it.
        const double grown = with.backwardS() - without.backwardS();
        QVERIFY2(std::abs(grown - expected) <= 1e-9 + 1e-6 * expected
                || (grown >= 0 && grown < expected && with.backward_compute_s >= without.backward_compute_s),
            qPrintable(QString("backward +%1 ms, expected %2 ms").arg(1e3 * grown).arg(1e3 * expected)));
        if (bytesPerElement > 0)
            QVERIFY(grown > 0);
    }
};

QTEST_GUILESS_MAIN(TestMoeWgradAccumulation)
#include "tst_moe_wgrad_accumulation.moc"
