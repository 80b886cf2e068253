// SPDX-License-Identifier: GPL-3.0-or-later
// The experts' fc2 bias as Megatron-Core adds it (core/megatron/moe_kernels.* expertFc2BiasPasses,
// docs/moe.md "The experts' fc2 bias"): TEGroupedMLP._apply_bias's per-expert PyTorch ops over
// temporaries in the router probabilities' dtype (experts.py at NVIDIA/Megatron-LM d7288711), their HBM bytes and host
// operations, and their cost in a gpt-oss-like layer under Megatron-Core and Megatron-Bridge but
// not torchtitan.
#include <algorithm>

#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/moe_kernels.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

Q_DECLARE_METATYPE(stratex::megatron::Framework)

using namespace stratex;
using namespace stratex::megatron;

namespace {

// gpt-oss-120b's shapes (Megatron-Bridge's gpt-oss record: NVIDIA/NeMo gpt_oss.py @ 8cfedd72).
model::ModelDescription gptOssLike(bool linearBias)
{
    model::ModelDescription m = model::modelPreset("mixtral-8x7b");
    m.name = "gpt-oss-like";
    m.num_layers = 36;
    m.hidden_size = 2880;
    m.ffn_hidden_size = 2880;
    m.num_heads = 64;
    m.num_kv_heads = 8;
    m.head_dim = 64;
    m.vocab_size = 201088;
    m.seq_length = 4096;
    m.moe->num_experts = 128;
    m.moe->top_k = 4;
    m.moe->expert_ffn_hidden_size = 2880;
    m.moe->linear_bias = linearBias;
    return m;
}

} // namespace

class TestMoeExpertBias : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Bytes per element of fc2's output, by the probabilities' dtype: 16-bit temporaries (12 and
    // 16 bytes) or fp32 ones with the cast back (28 and 40); operations: a mul and an add per local
    // expert plus two splits and the cat (and the cast with fp32 probabilities).
    void passesFollowTheOps_data()
    {
        QTest::addColumn<double>("pairs");
        QTest::addColumn<double>("hidden");
        QTest::addColumn<double>("experts");
        QTest::addColumn<double>("probsBytes");
        QTest::addColumn<double>("forwardPerElement");
        QTest::addColumn<double>("backwardPerElement");
        QTest::addColumn<int>("forwardOps");
        QTest::newRow("gpt-oss EP 8: 16 experts, bf16 probs") << 16384.0 << 2880.0 << 16.0 << 2.0 << 12.0 << 16.0 << 35;
        QTest::newRow("16 experts, fp32 probs") << 16384.0 << 2880.0 << 16.0 << 4.0 << 28.0 << 40.0 << 36;
        QTest::newRow("EP 64: 2 experts") << 4096.0 << 2880.0 << 2.0 << 2.0 << 12.0 << 16.0 << 7;
        QTest::newRow("one expert, fp32") << 10.0 << 4.0 << 1.0 << 4.0 << 28.0 << 40.0 << 6;
        QTest::newRow("no tokens") << 0.0 << 2880.0 << 16.0 << 2.0 << 0.0 << 0.0 << 35;
    }
    void passesFollowTheOps()
    {
        QFETCH(double, pairs);
        QFETCH(double, hidden);
        QFETCH(double, experts);
        QFETCH(double, probsBytes);
        QFETCH(double, forwardPerElement);
        QFETCH(double, backwardPerElement);
        QFETCH(int, forwardOps);
        const ExpertBiasPasses p = expertFc2BiasPasses(pairs, hidden, experts, probsBytes);
        QCOMPARE(p.forward_bytes, forwardPerElement * pairs * hidden);
        QCOMPARE(p.backward_bytes, backwardPerElement * pairs * hidden);
        QCOMPARE(p.forward_ops, forwardOps);
        QCOMPARE(p.backward_ops, 2 * forwardOps);
    }

    // The host counts carry the bias's operations in the forward, the backward and the combined
    // 1F1B's mlp node alike.
    void hostOpsCarryTheBias_data()
    {
        QTest::addColumn<double>("experts");
        QTest::addColumn<bool>("fp8");
        QTest::newRow("16 experts bf16") << 16.0 << false;
        QTest::newRow("4 experts fp8") << 4.0 << true;
    }
    void hostOpsCarryTheBias()
    {
        QFETCH(double, experts);
        QFETCH(bool, fp8);
        const ExpertBiasPasses p = expertFc2BiasPasses(1, 1, experts);
        QCOMPARE(moeForwardHostOps(experts, fp8, true) - moeForwardHostOps(experts, fp8, false), p.forward_ops);
        QCOMPARE(moeBackwardHostOps(experts, fp8, true) - moeBackwardHostOps(experts, fp8, false), p.backward_ops);
        QCOMPARE(moeForwardNodeHostOps(experts, fp8, true).mlp - moeForwardNodeHostOps(experts, fp8, false).mlp,
            p.forward_ops);
    }

    // In a gpt-oss-like layer (TP 1, EP 8, 16 local experts of 1,024 tokens): Megatron-Core's and
    // Megatron-Bridge's layers take longer with the bias, each pass by at least the smaller of the
    // bias's HBM time and its host time (the pass is max(GPU, host)); torchtitan's do not change.
    void layerPaysTheBias_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("pays");
        QTest::newRow("megatron-core") << Framework::MegatronCore << true;
        QTest::newRow("megatron-bridge") << Framework::MegatronBridge << true;
        QTest::newRow("torchtitan") << Framework::Torchtitan << false;
    }
    void layerPaysTheBias()
    {
        QFETCH(Framework, framework);
        QFETCH(bool, pays);
        ParallelStrategy s;
        s.framework = framework;
        s.ep = 8;
        s.dp = 8;
        s.global_batch_size = 64;
        const hardware::HardwareModel hw = test::h100s(1);
        const LayerCost without = layerCost(gptOssLike(false), s, hw, true, false);
        const LayerCost with = layerCost(gptOssLike(true), s, hw, true, false);
        if (!pays) {
            QCOMPARE(with.forwardS(), without.forwardS());
            QCOMPARE(with.backwardS(), without.backwardS());
            return;
        }
        const double routed = 4096.0 * 4
            * routedLoadMaxOverMean(4096.0 * 8, 128, 4, 8, std::nullopt); // the busiest rank's pairs
        const ExpertBiasPasses p = expertFc2BiasPasses(routed, 2880, 16);
        const double forwardAtLeast = std::min(hw.memoryBoundS(p.forward_bytes), eagerHostS(p.forward_ops));
        const double backwardAtLeast = std::min(hw.memoryBoundS(p.backward_bytes), eagerHostS(p.backward_ops));
        QVERIFY2(with.forwardS() - without.forwardS() >= forwardAtLeast * (1 - 1e-9),
            qPrintable(QString("forward +%1 ms, at least %2 ms")
                    .arg(1e3 * (with.forwardS() - without.forwardS()))
                    .arg(1e3 * forwardAtLeast)));
        QVERIFY2(with.backwardS() - without.backwardS() >= backwardAtLeast * (1 - 1e-9),
            qPrintable(QString("backward +%1 ms, at least %2 ms")
                    .arg(1e3 * (with.backwardS() - without.backwardS()))
                    .arg(1e3 * backwardAtLeast)));
    }

    // The model file says it: "linear_bias" under "moe", written only when set.
    void jsonCarriesTheBias_data()
    {
        QTest::addColumn<bool>("linearBias");
        QTest::newRow("with") << true;
        QTest::newRow("without") << false;
    }
    void jsonCarriesTheBias()
    {
        QFETCH(bool, linearBias);
        const model::ModelDescription m = gptOssLike(linearBias);
        const nlohmann::ordered_json json = model::toJson(m);
        QCOMPARE(json["moe"].contains("linear_bias"), linearBias);
        const JsonDocument document = JsonDocument::parse(json.dump(), "model.json");
        QVERIFY(model::readModel(document.root()) == m);
    }
};

QTEST_GUILESS_MAIN(TestMoeExpertBias)
#include "tst_moe_expert_bias.moc"
