// SPDX-License-Identifier: GPL-3.0-or-later
// What a dense MLP keeps for backward by its activation function (mlp_activation_memory.h;
// docs/memory-model.md, "The MLP's activation function"): ReLU keeps its output, which is fc2's
// saved input, where GeLU keeps its input besides; the layer's activation bytes differ by that.
#include <QtTest>

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/mlp_activation_memory.h"
#include "core/model/model_presets.h"

using namespace stratex;
using model::MlpActivation;
using model::MlpKind;

class TstMlpActivationMemory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void keptWidths_data()
    {
        QTest::addColumn<int>("mlp");
        QTest::addColumn<int>("activation");
        QTest::addColumn<double>("gemmInputShare"); // 1: 16-bit fc2 input, 0.5: TE's FP8 cast
        QTest::addColumn<double>("widths");
        QTest::newRow("SwiGLU") << int(MlpKind::Gated) << int(MlpActivation::Gelu) << 1.0 << 3.0;
        QTest::newRow("SwiGLU fp8") << int(MlpKind::Gated) << int(MlpActivation::Gelu) << 0.5 << 2.5;
        QTest::newRow("GeLU") << int(MlpKind::Plain) << int(MlpActivation::Gelu) << 1.0 << 2.0;
        QTest::newRow("GeLU fp8") << int(MlpKind::Plain) << int(MlpActivation::Gelu) << 0.5 << 1.5;
        QTest::newRow("ReLU: one tensor") << int(MlpKind::Plain) << int(MlpActivation::Relu) << 1.0 << 1.0;
        QTest::newRow("ReLU fp8: and fc2's cast") << int(MlpKind::Plain) << int(MlpActivation::Relu) << 0.5 << 1.5;
    }
    void keptWidths()
    {
        QFETCH(int, mlp);
        QFETCH(int, activation);
        QFETCH(double, gemmInputShare);
        QFETCH(double, widths);
        model::ModelDescription m = model::modelPreset("gpt3-13b");
        m.mlp = MlpKind(mlp);
        m.activation = MlpActivation(activation);
        QCOMPARE(megatron::mlpKeptWidths(m, gemmInputShare), widths);
    }

    // OPT-1.3B's layer as dschat-opt-1.3b-16-v100-zero2 runs it (micro-batch 8 x 512 tokens, fp16,
    // tp 1): ReLU keeps 2 bytes x 8 x 512 x 8192 = 67.1 MB less than GeLU; the times are the same.
    void layerKeepsOneTensorLess_data()
    {
        QTest::addColumn<int>("tp");
        QTest::newRow("tp1") << 1;
        QTest::newRow("tp2") << 2;
    }
    void layerKeepsOneTensorLess()
    {
        QFETCH(int, tp);
        model::ModelDescription opt = model::modelPreset("gpt3-13b");
        opt.num_layers = 24;
        opt.hidden_size = 2048;
        opt.ffn_hidden_size = 8192;
        opt.num_heads = opt.num_kv_heads = 32;
        opt.seq_length = 512;
        hardware::ClusterDescription cluster { hardware::gpuPreset("v100-32gb"), 1, 16 };
        const hardware::HardwareModel hw(cluster, hardware::efficiencyFor(cluster));
        megatron::ParallelStrategy s;
        s.tp = tp;
        s.dp = 16 / tp;
        s.micro_batch_size = 8;
        s.global_batch_size = 128;
        s.precision = megatron::Precision::Fp16;
        s.flash_attention = false;
        const megatron::LayerCost gelu = megatron::layerCost(opt, s, hw, false, false);
        opt.activation = MlpActivation::Relu;
        const megatron::LayerCost relu = megatron::layerCost(opt, s, hw, false, false);
        QCOMPARE(gelu.activation_bytes - relu.activation_bytes, 2.0 * 8 * 512 * 8192 / tp);
        QCOMPARE(relu.forward_compute_s, gelu.forward_compute_s);
        QCOMPARE(relu.backward_compute_s, gelu.backward_compute_s);
    }
};

QTEST_APPLESS_MAIN(TstMlpActivationMemory)
#include "tst_mlp_activation_memory.moc"
