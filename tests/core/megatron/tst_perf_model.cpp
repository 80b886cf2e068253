// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex cost model's whole estimate (core/megatron/estimate.*): model FLOPs as Megatron-LM
// counts them, the pipeline bubble, a memory too large for an int, determinism. The layer, CP ring,
// strategy-rule and DP-traffic parts have their own suites (tst_layer_activations, tst_layer_time,
// tst_cp_ring, tst_parallel_strategy, tst_dp_traffic).
#include <cmath>

#include <QtTest>

#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_presets.h"
#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::gpt175b;
using test::a100s;

} // namespace

class TestPerfModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Model FLOPs of an MLA model as Megatron-LM counts them (training.py
    // num_floating_point_operations at d98e8a64: q_term, the kv lora term, the output projection,
    // and the causal core attention heads x (qk_head_dim + qk_pos_emb_head_dim + v_head_dim) / 2 x 2),
    // worked by hand for a small model: one dense layer, h 64, 2 heads, q_lora_rank 16,
    // kv_lora_rank 8, nope 4, rope 2, v 4, SwiGLU 128, vocabulary 100, 10 tokens.
    //   attention weights: q 64x16 + 16 + 16x2x6 = 1232; kv 64x10 + 8 + 8x2x8 = 776; o 2x4x64 = 512
    //   per token: 2 x (2520 + 3x64x128) + 10 x 2 x (6 + 4) + 2 x 64 x 100 = 67192
    //   per iteration: 3 (forward, backward) x 67192 x 10 tokens = 2015760
    void mlaModelFlops()
    {
        model::ModelDescription model;
        model.name = "mla-tiny";
        model.num_layers = 1;
        model.hidden_size = 64;
        model.ffn_hidden_size = 128;
        model.num_heads = 2;
        model.num_kv_heads = 2;
        model.vocab_size = 100;
        model.seq_length = 10;
        model.mla = model::MlaDescription { 16, 8, 4, 2, 4 };
        model.validate();
        QCOMPARE(modelFlopsPerIteration(model, 1), 2015760.0);
    }

    // Model FLOPs with heads x head_dim != h, as Megatron-LM counts them (training.py
    // num_floating_point_operations at d98e8a64, query_projection_size = kv_channels x heads):
    // one dense SwiGLU layer, h 64, 4 heads x 32 (q 128), 2 KV heads (kv 64), ffn 128, vocabulary
    // 100, 10 tokens.
    //   attention weights 2 x 64 x 128 + 2 x 64 x 64 = 24576; MLP 3 x 64 x 128 = 24576
    //   per token: 2 x (24576 + 24576) + 2 x 10 x 128 (causal QK^T, PV) + 2 x 64 x 100 = 113664
    //   per iteration: 3 x 113664 x 10 tokens = 3409920 (12·B·s·L·h²·((1 + g/a + s/2h)·q/h + 1.5·f/h
    //   + V/2Lh) gives the same). With heads of hidden / heads (q 64, kv 32) it was 2634240.
    void attentionWidthModelFlops()
    {
        model::ModelDescription model;
        model.name = "wide-heads-tiny";
        model.num_layers = 1;
        model.hidden_size = 64;
        model.ffn_hidden_size = 128;
        model.num_heads = 4;
        model.num_kv_heads = 2;
        model.head_dim = 32;
        model.vocab_size = 100;
        model.seq_length = 10;
        model.validate();
        QCOMPARE(modelFlopsPerIteration(model, 1), 3409920.0);
    }

    // More micro-batches shrink the 1F1B bubble towards zero, (p - 1) / (m + p - 1) in theory;
    // interleaving shrinks it further by about the chunk count.
    void bubbleShrinksWithMicrobatchesAndChunks()
    {
        const model::ModelDescription model = gpt175b();
        ParallelStrategy s;
        s.tp = 8;
        s.pp = 8;
        s.sequence_parallel = true;
        s.global_batch_size = 8;
        const HardwareModel hw = a100s(8);
        const double few = estimate(model, s, hw).bubble_fraction;
        s.global_batch_size = 64;
        const double many = estimate(model, s, hw).bubble_fraction;
        s.vpp = 4;
        s.schedule = PipelineSchedule::Interleaved;
        const double interleaved = estimate(model, s, hw).bubble_fraction;
        QVERIFY2(few > 0.4 && few < 0.5, qPrintable(QString::number(few))); // 7/15 = 0.47
        QVERIFY2(many < 0.12, qPrintable(QString::number(many))); // 7/71 = 0.10
        QVERIFY2(interleaved < many, qPrintable(QString::number(interleaved)));
    }

    // A run far beyond any GPU (here the s^2 scores of a 2M-token sequence, materialised) needs more
    // MB than an int holds; the message still says how many (fuzz_megatron_log found an int overflow).
    void hugeMemoryIsReportedWhole()
    {
        model::ModelDescription model = gpt175b();
        model.seq_length = 1 << 21;
        ParallelStrategy s;
        s.tp = 8; // the node's 8 GPUs
        s.flash_attention = false;
        s.global_batch_size = 1;
        const Estimate e = estimate(model, s, a100s(1));
        QVERIFY2(e.peak_memory_mb > 3e9, qPrintable(QString::number(e.peak_memory_mb)));
        QVERIFY(!e.fits);
        QString notes;
        for (const std::string& note : e.notes)
            notes += QString::fromStdString(note);
        QVERIFY2(notes.contains(QString::number(std::llround(e.peak_memory_mb)) + " MB on the device"), qPrintable(notes));
    }

    void deterministic()
    {
        const model::ModelDescription model = model::modelPreset("mixtral-8x7b");
        ParallelStrategy s;
        s.tp = 2;
        s.pp = 2;
        s.ep = 4;
        s.dp = 16;
        s.sequence_parallel = true;
        s.zero = 1;
        s.global_batch_size = 256;
        const Estimate a = estimate(model, s, a100s(8));
        const Estimate b = estimate(model, s, a100s(8));
        QVERIFY(a.problems.empty());
        QCOMPARE(a.iteration_ms, b.iteration_ms);
        QCOMPARE(a.peak_memory_mb, b.peak_memory_mb);
    }
};

QTEST_GUILESS_MAIN(TestPerfModel)
#include "tst_perf_model.moc"
