// SPDX-License-Identifier: GPL-3.0-or-later
// What torchtitan's selective checkpointing reruns in the backward (layer_cost.cpp; docs/kernels.md,
// "torchtitan's selective recompute"): every N-th block its whole forward, the others nothing;
// under the op policy the mms it does not save (wk, wo, w3), every memory-bound op and, under TP,
// the inputs' all-gathers, never the attention it saves. Megatron's selective recompute of the
// same layer reruns the core attention instead.
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/chunk_costs.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using stratex::test::h100s;

namespace {

ParallelStrategy titan(int tp, Recompute recompute, int everyN)
{
    ParallelStrategy s;
    s.framework = Framework::Torchtitan;
    s.tp = tp;
    s.sequence_parallel = tp > 1;
    s.dp = 8 / tp;
    s.zero = 3;
    s.micro_batch_size = 2;
    s.global_batch_size = 2 * s.dp;
    s.recompute = recompute;
    s.recompute_num_layers = everyN;
    return s;
}

model::ModelDescription llama3_8b()
{
    model::ModelDescription model = model::modelPreset("llama3-8b");
    model.seq_length = 8192;
    return model;
}

} // namespace

class TestTorchtitanRecompute : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The op policy: the three mms it reruns are the floor, a whole forward the ceiling, and the
    // attention it saves is not in it (so it differs from Megatron's selective recompute, which
    // reruns exactly the core attention).
    void opPolicyRerunsWhatItDoesNotSave_data()
    {
        QTest::addColumn<int>("tp");
        QTest::newRow("tp 1") << 1;
        QTest::newRow("tp 8, sequence parallel") << 8;
    }
    void opPolicyRerunsWhatItDoesNotSave()
    {
        QFETCH(int, tp);
        const model::ModelDescription model = llama3_8b();
        const hardware::HardwareModel hw = h100s(1);
        const ParallelStrategy s = titan(tp, Recompute::Selective, 0);
        const LayerCost op = layerCost(model, s, hw, false, false);
        const double tokens = 2.0 * 8192;
        const double h = model.hidden_size;
        const double f = model.ffn_hidden_size / double(tp);
        const double rerunMms = hw.gemmS(tokens, model.kvHiddenSize() / double(tp), h, false)
            + hw.gemmS(tokens, h, model.attentionWidth() / double(tp), false) + hw.gemmS(tokens, f, h, false);
        QVERIFY2(op.recompute_s > rerunMms, qPrintable(QString("%1 <= %2").arg(op.recompute_s).arg(rerunMms)));
        QVERIFY(op.recompute_s < op.forwardS());
        // Megatron's selective recompute (core attention) of the same layer reruns other work.
        ParallelStrategy megatron = s;
        megatron.framework = Framework::MegatronCore;
        const LayerCost core = layerCost(model, megatron, hw, false, false);
        QVERIFY(core.recompute_s > 0);
        QVERIFY(std::abs(op.recompute_s - core.recompute_s) > 0.1 * core.recompute_s);
        // The op policy costs the same in a "recomputed" layer: it is a per-block policy.
        QCOMPARE(layerCost(model, s, hw, false, true).recompute_s, op.recompute_s);
    }

    // Every N-th block a full checkpoint (selective_ac_option N): the chunk's backward is the
    // uncheckpointed one plus one forward per checkpointed block, L / N of them.
    void everyNthBlockRerunsItsForward_data()
    {
        QTest::addColumn<int>("everyN");
        QTest::addColumn<int>("checkpointed"); // of Llama 3 8B's 32 blocks
        QTest::newRow("every block") << 1 << 32;
        QTest::newRow("every second") << 2 << 16;
        QTest::newRow("every third") << 3 << 10;
    }
    void everyNthBlockRerunsItsForward()
    {
        QFETCH(int, everyN);
        QFETCH(int, checkpointed);
        const model::ModelDescription model = llama3_8b();
        const hardware::HardwareModel hw = h100s(1);
        const ParallelStrategy none = titan(1, Recompute::None, 0);
        const ParallelStrategy layer = titan(1, Recompute::Selective, everyN);
        const std::vector<int> stageLayers { model.num_layers };
        const ChunkCost base = chunkCosts(model, none, hw, stageLayers, TimeScales {}).front();
        const ChunkCost sac = chunkCosts(model, layer, hw, stageLayers, TimeScales {}).front();
        const LayerCost block = layerCost(model, none, hw, false, false);
        QCOMPARE(sac.forward_s, base.forward_s);
        QVERIFY(qAbs(sac.backward_s - base.backward_s - checkpointed * block.forwardS()) < 1e-9 * base.backward_s);
    }

    // The policy is in a plan's notation and in what sets two twins apart: the every-N-th-block
    // form and the op policy cost differently and must not read alike.
    void notationNamesThePolicy_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<int>("everyN");
        QTest::addColumn<QString>("word");
        QTest::newRow("torchtitan, every second block") << int(Framework::Torchtitan) << 2 << "rc-selective(every-2)";
        QTest::newRow("torchtitan, op policy") << int(Framework::Torchtitan) << 0 << "rc-selective";
        // Megatron's selective recompute has no block count: its modules name it.
        QTest::newRow("megatron-core") << int(Framework::MegatronCore) << 2 << "rc-selective";
    }
    void notationNamesThePolicy()
    {
        QFETCH(int, framework);
        QFETCH(int, everyN);
        QFETCH(QString, word);
        ParallelStrategy s = titan(1, Recompute::Selective, everyN);
        s.framework = Framework(framework);
        QCOMPARE(QString::fromStdString(s.recomputeWord()), word);
        QVERIFY(QString::fromStdString(s.notation()).contains(" " + word + " "));
        ParallelStrategy op = s;
        op.recompute_num_layers = 0;
        QCOMPARE(QString::fromStdString(twinDifference(op, s)).contains("every-"), s.recomputeWord() != op.recomputeWord());
    }
};

QTEST_APPLESS_MAIN(TestTorchtitanRecompute)
#include "tst_torchtitan_recompute.moc"
