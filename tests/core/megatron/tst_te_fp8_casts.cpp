// SPDX-License-Identifier: GPL-3.0-or-later
// Transformer Engine's FP8 casts (core/hardware/fp8_gemm.*, core/megatron/te_fp8_casts.*,
// docs/kernels.md §8 "Which casts TE runs"): one tensor's cast by recipe, source and gather; a
// dense layer's casts as TE 1.8 / 2.9 run them; the layer's FP8 all-gathers under sequence
// parallelism; and that frameworks without TE keep the per-GEMM charge.
#include <QtTest>

#include "core/hardware/fp8_gemm.h"
#include "core/hardware/kernel_shapes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/te_fp8_casts.h"
#include "core/model/model_presets.h"

#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using hardware::Fp8CastSource;
using hardware::Fp8Scaling;

Q_DECLARE_METATYPE(stratex::hardware::Fp8Scaling)
Q_DECLARE_METATYPE(stratex::hardware::Fp8CastSource)
Q_DECLARE_METATYPE(stratex::megatron::Framework)

namespace {

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-15;
}

// Llama-3-8B-shaped (h 4096, 32 heads of 128, 8 KV heads, SwiGLU ffn 14,336) at 8,192 tokens.
model::ModelDescription llamaLayer()
{
    model::ModelDescription m = model::modelPreset("llama3.1-8b");
    m.seq_length = 8192;
    return m;
}

} // namespace

class TestTeFp8Casts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // One tensor's cast, in bytes an element and kernels, from TE's quantizers (fp8_gemm.h).
    void tensorCast_data()
    {
        QTest::addColumn<Fp8Scaling>("scaling");
        QTest::addColumn<Fp8CastSource>("source");
        QTest::addColumn<int>("gather");
        QTest::addColumn<double>("rowwiseBytes"); // per local element
        QTest::addColumn<int>("rowwiseKernels");
        QTest::addColumn<double>("columnwiseBytes"); // per gathered element
        QTest::addColumn<int>("columnwiseKernels");
        QTest::addColumn<bool>("amaxReduction");
        // Current scaling: amax, scale, cast-transpose (read 2 + 2, write 1 + 1).
        QTest::newRow("current standalone")
            << Fp8Scaling::Current << Fp8CastSource::Standalone << 1 << 6.0 << 3 << 0.0 << 0 << false;
        // The norm or activation recorded the amax: scale + cast-transpose (quantize_with_amax).
        QTest::newRow("current fused") << Fp8Scaling::Current << Fp8CastSource::FusedProducer << 1 << 4.0 << 2 << 0.0
                                       << 0 << false;
        // Gathered over TP 4: row-wise cast on the local part, amax all-reduced, the gathered tensor
        // transposed in the backward.
        QTest::newRow("current standalone gathered")
            << Fp8Scaling::Current << Fp8CastSource::Standalone << 4 << 5.0 << 3 << 2.0 << 1 << true;
        QTest::newRow("current fused gathered")
            << Fp8Scaling::Current << Fp8CastSource::FusedProducer << 4 << 3.0 << 2 << 2.0 << 1 << true;
        // Delayed scaling: one cast-transpose kernel; fused into its producer, only the transpose.
        QTest::newRow("delayed standalone")
            << Fp8Scaling::Delayed << Fp8CastSource::Standalone << 1 << 4.0 << 1 << 0.0 << 0 << false;
        QTest::newRow("delayed fused") << Fp8Scaling::Delayed << Fp8CastSource::FusedProducer << 1 << 0.0 << 0 << 2.0
                                       << 1 << false;
        QTest::newRow("delayed standalone gathered")
            << Fp8Scaling::Delayed << Fp8CastSource::Standalone << 8 << 3.0 << 1 << 2.0 << 1 << false;
    }
    void tensorCast()
    {
        QFETCH(Fp8Scaling, scaling);
        QFETCH(Fp8CastSource, source);
        QFETCH(int, gather);
        QFETCH(double, rowwiseBytes);
        QFETCH(int, rowwiseKernels);
        QFETCH(double, columnwiseBytes);
        QFETCH(int, columnwiseKernels);
        QFETCH(bool, amaxReduction);
        const hardware::HardwareModel hw = test::h100s(1);
        const double local = 4096.0 * 1024;
        const hardware::Fp8CastCost cost = hardware::teFp8CastS(hw, local, scaling, source, gather);
        const double amax = amaxReduction ? hw.allReduceS(4.0, hardware::GroupShape { gather, 1 }) : 0.0;
        QVERIFY2(
            close(cost.rowwise_s, hw.memoryBoundS(rowwiseBytes * local) + hw.kernelOverheadS(rowwiseKernels) + amax),
            qPrintable(QString::number(cost.rowwise_s)));
        QVERIFY(close(cost.columnwise_s,
            hw.memoryBoundS(columnwiseBytes * local * gather) + hw.kernelOverheadS(columnwiseKernels)));
    }

    // A dense layer's casts under the assumed recipe (current scaling), without SP: forward QKV and
    // fc1 fused into the norms, fc2 into the activation, linear_proj standalone; backward each output
    // gradient once (proj, fc2, QKV standalone, fc1 fused into dact). Hand-summed bytes and kernels.
    void denseLayer_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("forwardBytesPerToken");
        QTest::addColumn<int>("forwardKernels");
        QTest::addColumn<double>("backwardBytesPerToken");
        QTest::addColumn<int>("backwardKernels");
        // h 4096, q 4096, kv 1024, ffn 14336 gated. Forward: 4h + 6q/tp + 4h + 4 ffn/tp;
        // backward: 6h + 6h + 6 (q + 2kv)/tp + 4 x 2 ffn/tp.
        const double h = 4096, q = 4096, kv = 1024, f = 14336;
        QTest::newRow("tp1") << 1 << 4 * h + 6 * q + 4 * h + 4 * f << 9 << 6 * h + 6 * h + 6 * (q + 2 * kv) + 8 * f
                             << 11;
        QTest::newRow("tp2 no sp") << 2 << 4 * h + 3 * q + 4 * h + 2 * f << 9
                                   << 6 * h + 6 * h + 3 * (q + 2 * kv) + 4 * f << 11;
    }
    void denseLayer()
    {
        QFETCH(int, tp);
        QFETCH(double, forwardBytesPerToken);
        QFETCH(int, forwardKernels);
        QFETCH(double, backwardBytesPerToken);
        QFETCH(int, backwardKernels);
        QCOMPARE(hardware::kAssumedFp8Scaling, Fp8Scaling::Current);
        const hardware::HardwareModel hw = test::h100s(1);
        const double tokens = 8192;
        DenseLayerFp8Shape shape;
        shape.tokens = tokens;
        shape.hidden = 4096;
        shape.qkv_width = (4096.0 + 2 * 1024) / tp;
        shape.proj_input_width = 4096.0 / tp;
        shape.fc1_width = 2 * 14336.0 / tp;
        shape.fc2_input_width = 14336.0 / tp;
        shape.tp = tp;
        const DenseLayerFp8Casts casts = denseLayerFp8Casts(hw, shape);
        QVERIFY(close(
            casts.forwardS(), hw.memoryBoundS(forwardBytesPerToken * tokens) + hw.kernelOverheadS(forwardKernels)));
        QVERIFY(close(
            casts.backward_s, hw.memoryBoundS(backwardBytesPerToken * tokens) + hw.kernelOverheadS(backwardKernels)));
    }

    // The layer model: under FP8 the layer is its 16-bit self with the GEMMs swapped for FP8 ones;
    // Megatron's TE layers add TE's casts to the FP8 kernels, other frameworks keep
    // HardwareModel::gemmS's per-GEMM charge (a standalone cast of each GEMM's input, forward and
    // twice in the backward). TE's casts are a half to two thirds of that charge.
    void layerCasts_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("te");
        QTest::newRow("megatron-core tp1") << Framework::MegatronCore << 1 << true;
        QTest::newRow("megatron-bridge tp4 sp") << Framework::MegatronBridge << 4 << true;
        QTest::newRow("torchtitan tp1") << Framework::Torchtitan << 1 << false;
        QTest::newRow("torchtitan tp2 sp") << Framework::Torchtitan << 2 << false;
    }
    void layerCasts()
    {
        QFETCH(Framework, framework);
        QFETCH(int, tp);
        QFETCH(bool, te);
        const hardware::HardwareModel hw = test::h100s(1);
        const model::ModelDescription m = llamaLayer();
        ParallelStrategy s;
        s.framework = framework;
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        s.precision = Precision::Bf16;
        const LayerCost bf16 = layerCost(m, s, hw, false, false);
        s.precision = Precision::Fp8;
        const LayerCost fp8 = layerCost(m, s, hw, false, false);
        const double tokens = 8192, h = 4096, f = 14336.0 / tp, qkv = 6144.0 / tp, q = 4096.0 / tp;
        const auto gemms = [&](auto&& g) { return g(qkv, h) + g(h, q) + g(2 * f, h) + g(h, f); };
        const double bf16Gemms = gemms([&](double n, double k) { return hw.gemmS(tokens, n, k, false); });
        const double fp8Kernels
            = gemms([&](double n, double k) { return hardware::gemmKernelS(hw, tokens, n, k, true, 1); });
        const double fp8PerGemm = gemms([&](double n, double k) { return hw.gemmS(tokens, n, k, true); });
        const DenseLayerFp8Casts casts = denseLayerFp8Casts(hw, { tokens, h, qkv, q, 2 * f, f, tp, tp > 1, true });
        const double forward = bf16.forward_compute_s - bf16Gemms + (te ? fp8Kernels + casts.forwardS() : fp8PerGemm);
        const double backward
            = bf16.backward_compute_s - 2 * bf16Gemms + (te ? 2 * fp8Kernels + casts.backward_s : 2 * fp8PerGemm);
        QVERIFY2(close(fp8.forward_compute_s, forward),
            qPrintable(QString("forward %1 ms, expected %2 ms").arg(fp8.forward_compute_s * 1e3).arg(forward * 1e3)));
        QVERIFY2(close(fp8.backward_compute_s, backward),
            qPrintable(
                QString("backward %1 ms, expected %2 ms").arg(fp8.backward_compute_s * 1e3).arg(backward * 1e3)));
        // Llama-3-8B: 315 against 479 kB a token (0.66; fc1's SwiGLU gradient is 2 ffn wide).
        QVERIFY(casts.forwardS() + casts.backward_s < 0.75 * 3 * (fp8PerGemm - fp8Kernels));
    }

    // Under SP the forward gathers move FP8 (QKV's and fc1's inputs), the reduce-scatters 16 bits.
    void fp8Gathers_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<double>("gatherShare");
        QTest::newRow("megatron-core") << Framework::MegatronCore << 0.5;
        QTest::newRow("megatron-bridge") << Framework::MegatronBridge << 0.5;
        QTest::newRow("torchtitan") << Framework::Torchtitan << 1.0;
    }
    void fp8Gathers()
    {
        QFETCH(Framework, framework);
        QFETCH(double, gatherShare);
        const hardware::HardwareModel hw = test::h100s(1);
        ParallelStrategy s;
        s.framework = framework;
        s.tp = 4;
        s.sequence_parallel = true;
        s.precision = Precision::Fp8;
        const LayerCost c = layerCost(llamaLayer(), s, hw, false, false);
        const double hidden = 2.0 * 8192 * 4096;
        const hardware::GroupShape tp { 4, 1 };
        const double expected = 2 * (hw.allGatherS(hidden * gatherShare, tp) + hw.reduceScatterS(hidden, tp));
        QVERIFY2(close(c.tp_forward_comm_s, expected),
            qPrintable(QString("%1 against %2").arg(c.tp_forward_comm_s).arg(expected)));
        QVERIFY(close(c.tp_backward_comm_s, expected));
    }
};

QTEST_GUILESS_MAIN(TestTeFp8Casts)
#include "tst_te_fp8_casts.moc"
