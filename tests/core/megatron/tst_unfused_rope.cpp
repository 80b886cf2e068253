// SPDX-License-Identifier: GPL-3.0-or-later
// RoPE unfused under Megatron-Bridge for a YaRN model (core/megatron/unfused_rope.*): Bridge's
// validate_rope_fusion_compatibility turns apply_rope_fusion off for any position embedding but
// "rope" (fusions.py at Megatron-Bridge aeefb3ab), so Q and K go through Megatron-Core's
// _apply_rotary_pos_emb_bshd (rope_utils.py at Megatron-LM d7288711): its extra bytes and host
// operations, and that a gpt-oss-like layer pays them under Megatron-Bridge only.
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/unfused_rope.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

Q_DECLARE_METATYPE(stratex::megatron::Framework)

using namespace stratex;
using namespace stratex::megatron;

namespace {

model::ModelDescription gptOssLike(bool yarn)
{
    model::ModelDescription m = model::modelPreset("mixtral-8x7b");
    m.num_layers = 36;
    m.hidden_size = 2880;
    m.ffn_hidden_size = 2880;
    m.num_heads = 64;
    m.num_kv_heads = 8;
    m.head_dim = 64;
    m.seq_length = 4096;
    m.moe->num_experts = 128;
    m.moe->top_k = 4;
    m.moe->expert_ffn_hidden_size = 2880;
    m.rope_yarn = yarn;
    return m;
}

} // namespace

class TestUnfusedRope : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // 20 and 18 more bytes per 16-bit element of Q and K; 12 more operations per tensor forward.
    void extraFollowsTheOps_data()
    {
        QTest::addColumn<double>("elements");
        QTest::addColumn<double>("forwardBytes");
        QTest::addColumn<double>("backwardBytes");
        QTest::newRow("gpt-oss: 4,096 tokens x (4,096 + 512)") << 4096.0 * 4608 << 20.0 * 4096 * 4608 << 18.0 * 4096 * 4608;
        QTest::newRow("none") << 0.0 << 0.0 << 0.0;
    }
    void extraFollowsTheOps()
    {
        QFETCH(double, elements);
        QFETCH(double, forwardBytes);
        QFETCH(double, backwardBytes);
        const UnfusedRopeExtra e = unfusedRopeExtra(elements);
        QCOMPARE(e.forward_bytes, forwardBytes);
        QCOMPARE(e.backward_bytes, backwardBytes);
        QCOMPARE(e.forward_ops, 24);
        QCOMPARE(e.backward_ops, 48);
    }

    // Only Megatron-Bridge with YaRN, not MLA (its RoPE is its own).
    void whoRunsItUnfused_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("yarn");
        QTest::addColumn<bool>("mla");
        QTest::addColumn<bool>("unfused");
        QTest::newRow("bridge yarn") << Framework::MegatronBridge << true << false << true;
        QTest::newRow("bridge plain rope") << Framework::MegatronBridge << false << false << false;
        QTest::newRow("megatron-core yarn") << Framework::MegatronCore << true << false << false;
        QTest::newRow("torchtitan yarn") << Framework::Torchtitan << true << false << false;
        QTest::newRow("bridge yarn mla") << Framework::MegatronBridge << true << true << false;
    }
    void whoRunsItUnfused()
    {
        QFETCH(Framework, framework);
        QFETCH(bool, yarn);
        QFETCH(bool, mla);
        QFETCH(bool, unfused);
        model::ModelDescription m = gptOssLike(yarn);
        if (mla)
            m.mla = model::modelPreset("deepseek-v3-style").mla;
        QCOMPARE(runsUnfusedRope(m, framework), unfused);
    }

    // The model file says it: "rope_yarn", written only when set, read back.
    void jsonCarriesYarn_data()
    {
        QTest::addColumn<bool>("yarn");
        QTest::newRow("yarn") << true;
        QTest::newRow("plain") << false;
    }
    void jsonCarriesYarn()
    {
        QFETCH(bool, yarn);
        const model::ModelDescription m = gptOssLike(yarn);
        const nlohmann::ordered_json json = model::toJson(m);
        QCOMPARE(json.contains("rope_yarn"), yarn);
        const JsonDocument document = JsonDocument::parse(json.dump(), "model.json");
        QVERIFY(model::readModel(document.root()) == m);
    }

    // A gpt-oss-like MoE layer under Megatron-Bridge takes longer with YaRN in both passes, by at
    // least the smaller of the extra HBM time and the extra host time; under Megatron-Core it does
    // not change.
    void layerPaysIt_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<bool>("pays");
        QTest::newRow("megatron-bridge") << Framework::MegatronBridge << true;
        QTest::newRow("megatron-core") << Framework::MegatronCore << false;
    }
    void layerPaysIt()
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
        const UnfusedRopeExtra e = unfusedRopeExtra(4096.0 * (4096 + 512));
        const double forwardAtLeast = std::min(hw.memoryBoundS(e.forward_bytes), eagerHostS(e.forward_ops));
        const double backwardAtLeast = std::min(hw.memoryBoundS(e.backward_bytes), eagerHostS(e.backward_ops));
        QVERIFY2(with.forwardS() - without.forwardS() >= forwardAtLeast * (1 - 1e-9),
            qPrintable(QString("forward +%1 ms").arg(1e3 * (with.forwardS() - without.forwardS()))));
        QVERIFY2(with.backwardS() - without.backwardS() >= backwardAtLeast * (1 - 1e-9),
            qPrintable(QString("backward +%1 ms").arg(1e3 * (with.backwardS() - without.backwardS()))));
    }
};

QTEST_GUILESS_MAIN(TestUnfusedRope)
#include "tst_unfused_rope.moc"
