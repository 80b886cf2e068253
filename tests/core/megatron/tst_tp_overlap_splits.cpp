// SPDX-License-Identifier: GPL-3.0-or-later
// The GEMMs TP communication overlap runs in pieces (core/megatron/tp_overlap_splits.*;
// docs/collectives.md, "Split GEMMs"): how each framework cuts them, what a cut GEMM costs under
// the GEMM model's wave quantization, and what it adds to a layer.
#include <cmath>

#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/elementwise_passes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/tp_overlap_splits.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;

Q_DECLARE_METATYPE(stratex::megatron::Framework)

class TestTpOverlapSplits : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Transformer Engine's userbuffers at v1.8: ring_exchange (TP pieces) for qkv/fc1 fprop and
    // proj/fc2 dgrad, pipeline (4 splits) for proj/fc2 fprop, bulk (whole) for the QKV/fc1 data and
    // weight gradients, up to 3 pieces at once (3 compute streams). torchtitan's AsyncTP: every fused
    // pair shard by shard, one piece at a time.
    void splits_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<int>("tp");
        // column fwd, row fwd, row bwd, column bwd, pieces at once
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("Megatron-Core TP 8") << Framework::MegatronCore << 8 << QList<int> { 8, 4, 8, 1, 3 };
        QTest::newRow("Megatron-Bridge TP 2") << Framework::MegatronBridge << 2 << QList<int> { 2, 4, 2, 1, 3 };
        QTest::newRow("torchtitan AsyncTP TP 8") << Framework::Torchtitan << 8 << QList<int> { 8, 8, 8, 8, 1 };
        QTest::newRow("DeepSpeed: no overlap") << Framework::DeepSpeed << 8 << QList<int> { 1, 1, 1, 1, 1 };
        QTest::newRow("Composer: no overlap") << Framework::Composer << 8 << QList<int> { 1, 1, 1, 1, 1 };
    }
    void splits()
    {
        QFETCH(Framework, framework);
        QFETCH(int, tp);
        QFETCH(QList<int>, expected);
        const TpOverlapSplits s = tpOverlapSplits(framework, tp);
        QCOMPARE((QList<int> { s.column_forward, s.row_forward, s.row_backward, s.column_backward, s.concurrent }),
            expected);
    }

    // A GEMM cut into pieces costs the pieces' time less the whole's: nothing uncut, nothing when
    // the model has no quantization (a linear time), and more the fewer waves a piece fills. The
    // Megatron-LM 177B layer's QKV at TP 8 (4,096 tokens, 4,608 wide, k 12,288): one piece per TP
    // rank, 512 x 4,608, is a fraction of a wave of 132 SMs in its largest tile.
    void extra_data()
    {
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<int>("parts");
        QTest::addColumn<int>("concurrent");
        QTest::addColumn<double>("minShare"); // of the whole GEMM's time
        QTest::addColumn<double>("maxShare");
        QTest::newRow("uncut") << 4096.0 << 4608.0 << 12288.0 << 1 << 1 << 0.0 << 0.0;
        QTest::newRow("177B QKV, 8 pieces one by one") << 4096.0 << 4608.0 << 12288.0 << 8 << 1 << 0.2 << 0.6;
        // Three at once fill the SMs better (Transformer Engine's 3 streams).
        QTest::newRow("177B QKV, 8 pieces three at once") << 4096.0 << 4608.0 << 12288.0 << 8 << 3 << 0.02 << 0.2;
        // Pieces that still fill their waves pay little more than re-reading the weight per piece.
        QTest::newRow("177B QKV, 2 pieces fill waves") << 4096.0 << 4608.0 << 12288.0 << 2 << 1 << 0.0 << 0.08;
        QTest::newRow("a large GEMM, 4 pieces") << 32768.0 << 12288.0 << 12288.0 << 4 << 1 << 0.0 << 0.03;
    }
    void extra()
    {
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(int, parts);
        QFETCH(int, concurrent);
        QFETCH(double, minShare);
        QFETCH(double, maxShare);
        const hardware::HardwareModel hw = test::h100s(1);
        const auto gemm = [&](double a, double b, double c) { return hw.gemmS(a, b, c, false); };
        const double share = splitGemmExtraS(gemm, m, n, k, parts, concurrent) / gemm(m, n, k);
        QVERIFY2(share >= minShare - 1e-12 && share <= maxShare + 1e-12, qPrintable(QString::number(share)));
        // Without quantization (time linear in m) a cut costs nothing.
        const auto linear = [](double a, double b, double c) { return 1e-15 * a * b * c; };
        QVERIFY(std::abs(splitGemmExtraS(linear, m, n, k, parts, concurrent)) < 1e-15);
    }

    // A layer with TP overlap pays its pieces on top of the pipelined collectives: Llama 3 70B at
    // TP 8 with SP on H100, against the same GEMMs whole (the forward's compute grows by exactly the
    // cut GEMMs' extra), and a framework without pieces pays nothing.
    void layerPaysItsPieces_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("pays");
        QTest::newRow("Megatron-Core") << Framework::MegatronCore << true;
        QTest::newRow("torchtitan") << Framework::Torchtitan << true;
        QTest::newRow("DeepSpeed: no pieces") << Framework::DeepSpeed << false;
    }
    void layerPaysItsPieces()
    {
        QFETCH(Framework, framework);
        QFETCH(bool, pays);
        const model::ModelDescription model = model::modelPreset("llama3-70b");
        ParallelStrategy s;
        s.framework = framework;
        s.tp = 8;
        s.sequence_parallel = true;
        s.tp_async_backward = false;
        s.compile = Compile::On; // AsyncTP compiles the blocks: the same elementwise passes both ways
        const hardware::HardwareModel hw = test::h100s(1);
        const LayerCost plain = layerCost(model, s, hw, false, false);
        s.tp_comm_overlap = true;
        const LayerCost overlapped = layerCost(model, s, hw, false, false);
        const double tokens = model.seq_length;
        const double h = model.hidden_size;
        const double q = model.attentionWidth() / 8;
        const double qkv = (model.attentionWidth() + 2.0 * model.kvHiddenSize()) / 8;
        const double f = model.ffn_hidden_size / 8.0;
        const auto gemm = [&](double a, double b, double c) { return hw.gemmS(a, b, c, false); };
        const TpOverlapSplits cut = tpOverlapSplits(framework, 8);
        const int c = cut.concurrent;
        const double forwardExtra = splitGemmExtraS(gemm, tokens, qkv, h, cut.column_forward, c)
            + splitGemmExtraS(gemm, tokens, 2 * f, h, cut.column_forward, c)
            + splitGemmExtraS(gemm, tokens, h, q, cut.row_forward, c) + splitGemmExtraS(gemm, tokens, h, f, cut.row_forward, c);
        QCOMPARE(forwardExtra > 0, pays);
        const double grown = overlapped.forward_compute_s - plain.forward_compute_s;
        QVERIFY2(std::abs(grown - forwardExtra) <= 1e-12 + 1e-9 * forwardExtra,
            qPrintable(QString("%1 s grown, %2 s of pieces").arg(grown).arg(forwardExtra)));
    }
};

QTEST_APPLESS_MAIN(TestTpOverlapSplits)
#include "tst_tp_overlap_splits.moc"
