// SPDX-License-Identifier: GPL-3.0-or-later
// The MoE layer's expert compute (core/megatron/moe_kernels.*, docs/moe.md "Expert compute"): the
// busiest EP rank's load under random (force-balanced) routing against a simulation of that router,
// the maximum of normals against the published table, TE's per-expert GEMMs on four streams, and
// the host-bound forward after the dispatcher's sync.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include <QtTest>

#include "core/hardware/kernel_shapes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/moe_kernels.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

// The busiest rank's pairs over the mean, averaged over `trials` micro-batches of `tokens` tokens,
// each picking `topK` distinct experts of `experts` uniformly (what random logits do), experts
// placed in `ep` contiguous blocks as Megatron places them.
double simulatedMaxOverMean(int tokens, int experts, int topK, int ep, int trials)
{
    std::mt19937 rng(12345);
    std::vector<int> order(experts);
    double sum = 0;
    for (int t = 0; t < trials; ++t) {
        std::vector<double> load(ep, 0.0);
        for (int token = 0; token < tokens; ++token) {
            std::iota(order.begin(), order.end(), 0);
            for (int j = 0; j < topK; ++j) {
                std::uniform_int_distribution<int> pick(j, experts - 1);
                std::swap(order[j], order[pick(rng)]);
                load[order[j] / (experts / ep)] += 1;
            }
        }
        const double mean = double(tokens) * topK / ep;
        sum += *std::max_element(load.begin(), load.end()) / mean;
    }
    return sum / trials;
}

} // namespace

class TestMoeKernels : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Expected maximum of n standard normals: the exact values tabulated by Harter (1961, "Expected
    // values of normal order statistics", Biometrika 48), n = 2 being 1/sqrt(pi).
    void maxOfNormalsMatchesTheTable_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("expected");
        QTest::newRow("1") << 1 << 0.0;
        QTest::newRow("2") << 2 << 0.5642;
        QTest::newRow("4") << 4 << 1.0294;
        QTest::newRow("10") << 10 << 1.5388;
        QTest::newRow("20") << 20 << 1.8675;
        QTest::newRow("50") << 50 << 2.2491;
        QTest::newRow("100") << 100 << 2.5076;
    }
    void maxOfNormalsMatchesTheTable()
    {
        QFETCH(int, n);
        QFETCH(double, expected);
        // Blom's approximation is within 0.03 of the table at n = 2 and closer beyond.
        QVERIFY2(std::abs(expectedMaxStandardNormal(n) - expected) < (n <= 2 ? 0.03 : 0.02),
            qPrintable(QString("n %1: %2 against %3").arg(n).arg(expectedMaxStandardNormal(n)).arg(expected)));
    }

    // The model's max/mean against a simulation of the random router at the sizes of the records
    // (tokens per EP group of one micro-batch, experts, top-k, EP).
    void busiestRankAgainstSimulatedRouter_data()
    {
        QTest::addColumn<int>("tokens");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("topK");
        QTest::addColumn<int>("ep");
        QTest::newRow("top-2 of 8, EP 8, few tokens") << 256 << 8 << 2 << 8;
        QTest::newRow("top-2 of 8, EP 8 (Mixtral)") << 2048 << 8 << 2 << 8;
        QTest::newRow("top-8 of 128, EP 8 (Qwen3)") << 2048 << 128 << 8 << 8;
        QTest::newRow("top-8 of 128, EP 32") << 1024 << 128 << 8 << 32;
        QTest::newRow("top-4 of 64, EP 16") << 512 << 64 << 4 << 16;
    }
    void busiestRankAgainstSimulatedRouter()
    {
        QFETCH(int, tokens);
        QFETCH(int, experts);
        QFETCH(int, topK);
        QFETCH(int, ep);
        const double model = routedLoadMaxOverMean(tokens, experts, topK, ep);
        const double simulated = simulatedMaxOverMean(tokens, experts, topK, ep, 40);
        QVERIFY(model > 1);
        // Within 15 % of the excess over the mean, or 0.5 % of the load.
        QVERIFY2(std::abs(model - simulated) < std::max(0.15 * (simulated - 1), 0.005),
            qPrintable(QString("model %1, simulated %2").arg(model).arg(simulated)));
    }

    void capacityFactorCapsTheBusiestRank_data()
    {
        QTest::addColumn<double>("capacity");
        QTest::addColumn<double>("expected");
        QTest::newRow("1.0: every expert at the mean") << 1.0 << 1.0;
        QTest::newRow("1.05: below the random excess") << 1.05 << 1.05;
        QTest::newRow("2.0: above it, no drop") << 2.0 << routedLoadMaxOverMean(256, 8, 2, 8);
    }
    void capacityFactorCapsTheBusiestRank()
    {
        QFETCH(double, capacity);
        QFETCH(double, expected);
        QCOMPARE(routedLoadMaxOverMean(256, 8, 2, 8, capacity), expected);
        QCOMPARE(routedLoadMaxOverMean(256, 8, 2, 1, capacity), 1.0); // no EP: nothing to wait for
    }

    // TE's grouped linear: at most four experts' GEMMs share the SMs; more experts run in rounds.
    void groupedLinearRunsFourExpertsAtATime_data()
    {
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("experts");
        QTest::newRow("1 expert") << 4096.0 << 1.0;
        QTest::newRow("4 experts") << 512.0 << 4.0;
        QTest::newRow("16 experts, 512 tokens") << 512.0 << 16.0;
        QTest::newRow("16 experts, 64 tokens") << 64.0 << 16.0;
        QTest::newRow("32 experts, 128 tokens") << 128.0 << 32.0;
    }
    void groupedLinearRunsFourExpertsAtATime()
    {
        QFETCH(double, m);
        QFETCH(double, experts);
        const hardware::HardwareModel hw = test::h100s(1);
        const double concurrent = std::min(4.0, experts);
        const double expected = experts / concurrent * hardware::groupedGemmS(hw, m, 3072, 4096, false, concurrent);
        QCOMPARE(teGroupedLinearS(hw, m, 3072, 4096, false, experts), expected);
        // Never faster than all experts' tiles in one launch.
        QVERIFY(teGroupedLinearS(hw, m, 3072, 4096, false, experts)
            >= hardware::groupedGemmS(hw, m, 3072, 4096, false, experts) * (1 - 1e-12));
    }

    // After the sync the forward lasts at least the host's issue time.
    // TE's grouped linear per projection and forward: a GEMM per expert; with FP8 under current
    // scaling each expert's input quantized apart, amax + scale + cast (cast.cpp
    // multi_tensor_quantize_impl, quantizer.cpp Float8CurrentScalingQuantizer::quantize_impl).
    void groupedLinearKernelsPerExpert_data()
    {
        QTest::addColumn<double>("experts");
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<int>("kernels");
        QTest::newRow("bf16, 16 experts") << 16.0 << false << 16;
        QTest::newRow("fp8, 8 experts") << 8.0 << true << 32;
        QTest::newRow("fp8, 1 expert") << 1.0 << true << 4;
        QTest::newRow("fp8, half an expert") << 0.5 << true << 4;
    }
    void groupedLinearKernelsPerExpert()
    {
        QFETCH(double, experts);
        QFETCH(bool, fp8);
        QFETCH(int, kernels);
        QCOMPARE(teGroupedLinearKernels(experts, fp8), kernels);
    }

    // TE's GroupedLinear backward: a dgrad and a wgrad GEMM per expert (grouped_linear.py
    // _GroupedLinear.backward), under FP8 current scaling the output gradient quantized per expert
    // (amax + scale + cast). The MoE layer's backward host operations: the 90 outside the experts
    // twice, plus fc1's and fc2's backward kernels.
    void groupedLinearBackwardKernels_data()
    {
        QTest::addColumn<double>("experts");
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<int>("kernels");
        QTest::addColumn<int>("layerOps");
        QTest::newRow("bf16, 16 experts (EP 8 of 128)") << 16.0 << false << 32 << 180 + 64;
        QTest::newRow("bf16, 4 experts (EP 32 of 128)") << 4.0 << false << 8 << 180 + 16;
        QTest::newRow("fp8, 8 experts") << 8.0 << true << 40 << 180 + 80;
    }
    void groupedLinearBackwardKernels()
    {
        QFETCH(double, experts);
        QFETCH(bool, fp8);
        QFETCH(int, kernels);
        QFETCH(int, layerOps);
        QCOMPARE(teGroupedLinearBackwardKernels(experts, fp8), kernels);
        QCOMPARE(moeBackwardHostOps(experts, fp8), layerOps);
    }

    // In a layer: the backward has no sync, but a layer whose backward issues more than the GPU
    // runs lasts its host time (the zoo's TP 4 / EP 8 row: 1,024 tokens per rank, 16 local
    // experts). Torchtitan's backward keeps the dense layer's count.
    void layerBackwardIsHostBoundAtFewTokens()
    {
        model::ModelDescription model = model::modelPreset("mixtral-8x7b"); // Qwen3-235B's experts:
        model.moe->num_experts = 128;
        model.moe->top_k = 8;
        model.moe->expert_ffn_hidden_size = 1536;
        model.seq_length = 4096;
        ParallelStrategy s;
        s.tp = 4;
        s.sequence_parallel = true;
        s.ep = 8;
        s.dp = 8;
        s.global_batch_size = 64;
        const hardware::HardwareModel hw = test::h100s(4);
        const LayerCost megatron = layerCost(model, s, hw, true, false);
        const double hostS = eagerHostS(moeBackwardHostOps(double(model.moe->num_experts) / s.ep, false));
        QVERIFY2(megatron.backwardS() >= hostS * (1 - 1e-12),
            qPrintable(QString("backward %1 s, host %2 s").arg(megatron.backwardS()).arg(hostS)));
        s.framework = Framework::Torchtitan;
        const LayerCost titan = layerCost(model, s, hw, true, false);
        QVERIFY(titan.backwardS() < megatron.backwardS());
    }

    void hostBoundForward_data()
    {
        QTest::addColumn<double>("gpuS");
        QTest::addColumn<double>("experts");
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<bool>("hostBound");
        QTest::newRow("long GPU forward") << 10e-3 << 16.0 << false << false;
        QTest::newRow("short forward, 16 experts") << 0.2e-3 << 16.0 << false << true;
        QTest::newRow("short forward, 8 experts fp8") << 0.2e-3 << 8.0 << true << true;
    }
    void hostBoundForward()
    {
        QFETCH(double, gpuS);
        QFETCH(double, experts);
        QFETCH(bool, fp8);
        QFETCH(bool, hostBound);
        const double exposed = hostBoundExtraS(gpuS, moeForwardHostOps(experts, fp8));
        QCOMPARE(exposed > 0, hostBound);
        if (hostBound) {
            // The uncovered time plus the GPU's is the host's: proportional to the operations.
            const double hostS = gpuS + exposed;
            const double perOp = hostS / moeForwardHostOps(experts, fp8);
            // One definition of the host's time per launched operation (host_overhead.h).
            QVERIFY(std::abs(perOp - kEagerHostUsPerKernel * 1e-6) < 1e-12);
            QCOMPARE(eagerHostS(moeForwardHostOps(experts, fp8)), perOp * moeForwardHostOps(experts, fp8));
            QVERIFY(moeForwardHostOps(experts, true) > moeForwardHostOps(experts, false));
        }
    }

    // In a layer: a MoE layer with few tokens per rank is host-bound in Megatron, not in torchtitan
    // (no device-to-host sync in its dispatch is modelled there).
    void layerCostIsHostBoundAtFewTokens()
    {
        model::ModelDescription model = model::modelPreset("mixtral-8x7b");
        model.seq_length = 256;
        ParallelStrategy s;
        s.ep = 8;
        s.dp = 8;
        s.global_batch_size = 64;
        const hardware::HardwareModel hw = test::h100s(1);
        const LayerCost megatron = layerCost(model, s, hw, true, false);
        const double hostS = eagerHostS(moeForwardHostOps(double(model.moe->num_experts) / s.ep, false));
        QVERIFY2(megatron.forwardS() >= hostS * (1 - 1e-12),
            qPrintable(QString("forward %1 s, host %2 s").arg(megatron.forwardS()).arg(hostS)));
        s.framework = Framework::Torchtitan;
        const LayerCost titan = layerCost(model, s, hw, true, false);
        QVERIFY(titan.forwardS() < megatron.forwardS());
    }
};

QTEST_GUILESS_MAIN(TestMoeKernels)
#include "tst_moe_kernels.moc"
