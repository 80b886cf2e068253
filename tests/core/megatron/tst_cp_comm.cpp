// SPDX-License-Identifier: GPL-3.0-or-later
// Context parallelism's exchange types beside the ring (issue 22; docs/context-parallel.md):
// Megatron's --cp-comm-type names, Transformer Engine's all-gather CP (every transfer exposed)
// and the hierarchical a2a+p2p (Ulysses inside the node, the ring across nodes).
#include <cmath>

#include <QtTest>

#include "core/megatron/cp_comm.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_presets.h"
#include "tests/support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;

Q_DECLARE_METATYPE(stratex::megatron::CpCommType)

namespace {

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-15 + 1e-9 * std::abs(b);
}

} // namespace

class TestCpComm : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Megatron-Core transformer_config.py cp_comm_type's four values, and arguments.py's
    // "allgather" spelling read as all_gather.
    void namesRoundTrip_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<CpCommType>("type");
        QTest::addColumn<QString>("written");
        QTest::newRow("ring") << "p2p" << CpCommType::P2p << "p2p";
        QTest::newRow("Ulysses") << "a2a" << CpCommType::A2a << "a2a";
        QTest::newRow("all-gather") << "all_gather" << CpCommType::AllGather << "all_gather";
        QTest::newRow("all-gather, --help spelling") << "allgather" << CpCommType::AllGather << "all_gather";
        QTest::newRow("hierarchical") << "a2a+p2p" << CpCommType::A2aP2p << "a2a+p2p";
    }
    void namesRoundTrip()
    {
        QFETCH(QString, name);
        QFETCH(CpCommType, type);
        QFETCH(QString, written);
        const std::optional<CpCommType> parsed = parseCpCommType(name.toStdString());
        QVERIFY(parsed.has_value());
        QCOMPARE(*parsed, type);
        QCOMPARE(QString::fromStdString(std::string(cpCommTypeName(type))), written);
        QVERIFY(!parseCpCommType("ring").has_value());
    }

    // The a2a level of a2a+p2p: the largest divisor of cp inside the node over which the TP
    // rank's heads divide (Megatron-Core: a2a "via NVLink", p2p "via IBLink").
    void a2aLevelFitsTheNode_data()
    {
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("expected");
        QTest::newRow("cp 8, tp 2: 4 in the node") << 8 << 2 << 32 << 4 << 4;
        QTest::newRow("cp 16, tp 1: 8 in the node") << 16 << 1 << 64 << 8 << 8;
        QTest::newRow("cp 4, tp 8: the node is full") << 4 << 8 << 16 << 1 << 1;
        QTest::newRow("cp 8, tp 2: one kv head a rank") << 8 << 2 << 32 << 1 << 1;
        QTest::newRow("cp 6, tp 2: 3 divides cp and the heads") << 6 << 2 << 12 << 6 << 3;
        QTest::newRow("cp 2, tp 4: all of cp") << 2 << 4 << 16 << 2 << 2;
    }
    void a2aLevelFitsTheNode()
    {
        QFETCH(int, cp);
        QFETCH(int, tp);
        QFETCH(int, heads);
        QFETCH(int, kvHeads);
        QFETCH(int, expected);
        QCOMPARE(cpA2aGroupSize(cp, tp, 8, heads, kvHeads), expected);
    }

    // Transformer Engine's AttnFuncWithCPAndKVAllGather: the K/V all-gathers (forward, and again
    // in the backward) and the dK/dV reduce-scatters run on the compute stream, exposed. Costed
    // on Llama 3 405B at 131K with TP 8 on 2,048 nodes: the layer's CP time is exactly those
    // collectives over the CP group of stride tp.
    void allGatherCpIsExposed_data()
    {
        QTest::addColumn<int>("cp");
        QTest::newRow("cp 2 (in the node)") << 2;
        QTest::newRow("cp 4 (across nodes)") << 4;
        QTest::newRow("cp 16 (Llama 3's 131K stage)") << 16;
    }
    void allGatherCpIsExposed()
    {
        QFETCH(int, cp);
        const model::ModelDescription model = model::modelPreset("llama3-405b");
        model::ModelDescription longModel = model;
        longModel.seq_length = 131072;
        ParallelStrategy s;
        s.tp = 8;
        s.sequence_parallel = true;
        s.cp = cp;
        s.cp_comm_type = CpCommType::AllGather;
        const hardware::HardwareModel hw = test::h100s(2048);
        const LayerCost cost = layerCost(longModel, s, hw, false, false);
        const double tokens = double(longModel.seq_length) / cp;
        const double gathered = cp * 2.0 * 2 * tokens * longModel.kvHiddenSize() / s.tp; // K and V, bf16
        const hardware::GroupShape group { cp, s.tp };
        const double gather = hw.allGatherS(gathered, group);
        const double scatter = hw.reduceScatterS(gathered, group);
        QVERIFY(gather > 0 && scatter > 0);
        QVERIFY2(near(cost.cp_forward_comm_s, gather), qPrintable(QString::number(cost.cp_forward_comm_s)));
        QVERIFY2(near(cost.cp_backward_comm_s, gather + scatter), qPrintable(QString::number(cost.cp_backward_comm_s)));
        // The ring hides its 131K steps under the attention: all-gather CP costs more.
        ParallelStrategy ring = s;
        ring.cp_comm_type = CpCommType::P2p;
        const LayerCost ringCost = layerCost(longModel, ring, hw, false, false);
        QVERIFY(cost.cp_forward_comm_s > ringCost.cp_forward_comm_s);
    }

    // The hierarchical type: the all-to-alls over its a2a level, then a ring of cp / a steps over
    // the ranks a apart. Degenerate levels are exactly the plain types (Transformer Engine's
    // attn_forward_func_with_cp falls back to them).
    void hierarchicalCpComposesItsLevels_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("a2a");
        QTest::newRow("tp 2, cp 8: a2a 4 x ring 2") << 2 << 8 << 4;
        QTest::newRow("tp 1, cp 16: a2a 8 x ring 2") << 1 << 16 << 8;
        QTest::newRow("tp 4, cp 2: all a2a (Ulysses)") << 4 << 2 << 2;
        QTest::newRow("tp 8, cp 4: all ring") << 8 << 4 << 1;
    }
    void hierarchicalCpComposesItsLevels()
    {
        QFETCH(int, tp);
        QFETCH(int, cp);
        QFETCH(int, a2a);
        model::ModelDescription model = model::modelPreset("llama2-7b"); // 32 heads, no GQA
        model.seq_length = 65536;
        const hardware::HardwareModel hw = test::h100s(16);
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        s.cp = cp;
        s.cp_comm_type = CpCommType::A2aP2p;
        QCOMPARE(cpA2aGroupSize(cp, tp, 8, model.num_heads / tp, model.num_kv_heads / tp), a2a);
        const LayerCost cost = layerCost(model, s, hw, false, false);
        if (a2a == cp || a2a == 1) {
            ParallelStrategy plain = s;
            plain.cp_comm_type = a2a == cp ? CpCommType::A2a : CpCommType::P2p;
            const LayerCost expected = layerCost(model, plain, hw, false, false);
            QVERIFY(near(cost.cp_forward_comm_s, expected.cp_forward_comm_s));
            QVERIFY(near(cost.forward_compute_s, expected.forward_compute_s));
            return;
        }
        // The all-to-alls over a ranks in the node (Q, K, V, then the output) and the ring's
        // cp / a - 1 forward steps across nodes, each of the flat ring's chunk bytes.
        const double tokens = double(model.seq_length) / cp;
        const double qkv = 2.0 * tokens * 3 * model.hidden_size / tp;
        const double out = 2.0 * tokens * model.hidden_size / tp;
        const double a2aS = hw.allToAllS(qkv, { a2a, tp }) + hw.allToAllS(out, { a2a, tp });
        QVERIFY(!hw.spansNodes({ a2a, tp }));
        QVERIFY(hw.spansNodes({ cp / a2a, tp * a2a }));
        QVERIFY2(cost.cp_forward_comm_s >= a2aS * (1 - 1e-9), qPrintable(QString::number(cost.cp_forward_comm_s)));
        // Fewer ring steps than the flat ring: fewer kernels and merges on the compute stream.
        ParallelStrategy flat = s;
        flat.cp_comm_type = CpCommType::P2p;
        const LayerCost flatCost = layerCost(model, flat, hw, false, false);
        QVERIFY(cost.forward_compute_s < flatCost.forward_compute_s);
    }
};

QTEST_APPLESS_MAIN(TestCpComm)
#include "tst_cp_comm.moc"
