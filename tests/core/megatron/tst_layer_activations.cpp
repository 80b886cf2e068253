// SPDX-License-Identifier: GPL-3.0-or-later
// A layer's activation memory against its published formulas (core/megatron/layer_cost.*):
// Korthikanti et al.'s bytes per layer, multi-head latent attention's shapes, attention as wide as
// heads x head_dim, and what Megatron's --recompute-modules drop.
#include <cmath>

#include <QtTest>

#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/recompute_modules.h"
#include "core/model/model_presets.h"
#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::gpt175b;
using test::a100s;

} // namespace

class TestLayerActivations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Korthikanti et al. 2022, §4.2 (Table 2): activation bytes of one layer, b = 1:
    //   TP:            s·b·h·(10 + 24/t + 5·a·s/(h·t))
    //   TP + SP:       s·b·h/t·(34 + 5·a·s/h)
    //   TP + SP + selective recompute: s·b·h/t·34
    // (without flash attention; the softmax statistics of a fused kernel, 4 bytes per head and
    // token, are the only extra and are allowed for).
    void activationsFollowKorthikanti_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<bool>("selective");
        QTest::newRow("tp8") << 8 << false << false;
        QTest::newRow("tp8 sp") << 8 << true << false;
        QTest::newRow("tp8 sp selective") << 8 << true << true;
        QTest::newRow("tp4 sp selective") << 4 << true << true;
        QTest::newRow("tp1") << 1 << false << false;
    }
    void activationsFollowKorthikanti()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(bool, selective);
        const model::ModelDescription model = gpt175b();
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = sp;
        s.flash_attention = false;
        s.recompute = selective ? Recompute::Selective : Recompute::None;
        const LayerCost cost = layerCost(model, s, a100s(1), false, false);
        const double sbh = double(model.seq_length) * model.hidden_size;
        const double as_h = double(model.num_heads) * model.seq_length / model.hidden_size;
        double expected = 0;
        if (selective)
            expected = sbh / tp * 34;
        else if (sp)
            expected = sbh / tp * (34 + 5 * as_h);
        else
            expected = sbh * (10 + 24.0 / tp + 5 * as_h / tp);
        const double statistics = 4.0 * model.seq_length * model.num_heads / tp;
        QCOMPARE(cost.activation_bytes, expected + statistics);
        QCOMPARE(cost.input_bytes, 2 * sbh / (sp ? tp : 1));
    }

    // Multi-head latent attention (DeepSeek-V2 paper §2.1; Megatron-LM megatron/core/transformer/
    // multi_latent_attention.py MLASelfAttention at d98e8a64), one dense DeepSeek-V3 layer, flash
    // attention, bf16, b = 1. Kept for backward: the norm inputs and the down projections' input
    // (replicated, 2sbh each, s/t with SP); each latent's norm input and its up projection's input
    // (q_lora_rank and kv_lora_rank wide, on the rank's own tokens: the down projections are
    // "duplicated" TELinears); Q and K (heads/t x (nope + rope)), V and the output (heads/t x v),
    // the fp32 logsumexp; the SwiGLU MLP's fc1 output and fc2 input. As 128 full heads the
    // attention kept 2sbh x 4/t and no latents.
    void mlaActivationsFollowItsShapes_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::newRow("tp1") << 1 << false;
        QTest::newRow("tp8") << 8 << false;
        QTest::newRow("tp8 sp") << 8 << true;
    }
    void mlaActivationsFollowItsShapes()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        const model::ModelDescription model = model::modelPreset("deepseek-v3-style");
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = sp;
        const LayerCost cost = layerCost(model, s, a100s(1), false, false);
        const double tokens = model.seq_length;
        const double h = 7168;
        const double heads = 128.0 / tp;
        const double own = sp ? 1.0 / tp : 1.0;
        const double expected = 2 * tokens * h * 4 * own // norm inputs, QKV-down and fc1 inputs
            + 2 * tokens * own * (1536 + 512) * 2 // latents: norm input, up projection input
            + 2 * tokens * heads * (192 + 192 + 128 + 128) // Q, K, V, output
            + 4 * tokens * heads // logsumexp
            + 2 * tokens * 3 * 18432.0 / tp; // SwiGLU: fc1 output (2f), fc2 input (f)
        QCOMPARE(cost.activation_bytes, expected);
    }

    // Attention as wide as heads x head_dim (Megatron-LM attention.py query_projection_size =
    // kv_channels x heads, d98e8a64), GPT-3 175B with head_dim 256 (q = kv = 2h): Korthikanti's
    // 34sbh/t (SP, selective recompute) splits into the replicated 10sbh, the MLP's 16sbh and the
    // attention's Q, K, V and output 2s(q + kv + kv + q)/t (8sbh/t at hidden-wide heads).
    void activationsCountTheAttentionWidth_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::newRow("tp8 sp") << 8 << true;
        QTest::newRow("tp4 sp") << 4 << true;
        QTest::newRow("tp1") << 1 << false;
    }
    void activationsCountTheAttentionWidth()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        model::ModelDescription model = gpt175b();
        model.head_dim = 256;
        model.validate();
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = sp;
        s.flash_attention = false;
        s.recompute = Recompute::Selective;
        const LayerCost cost = layerCost(model, s, a100s(1), false, false);
        const double sbh = double(model.seq_length) * model.hidden_size;
        const double q = 96.0 * 256;
        const double kv = 96.0 * 256;
        const double statistics = 4.0 * model.seq_length * model.num_heads / tp;
        QCOMPARE(cost.activation_bytes, sbh / tp * 26 + 2.0 * model.seq_length * (2 * q + 2 * kv) / tp + statistics);
    }

    // What a layer keeps beyond the default: the hidden dropout's two 1-byte masks (2sbh, over t
    // with SP) on a gated model trained with Megatron's default 0.1, and --qk-layernorm's copy of
    // Q and K with an fp32 rstd per head and token (qk_norm_memory.cpp), over t. Llama-2-7B-like
    // shape (h 4096, 32 heads, s 4096, micro-batch 1): by hand, 2sbh = 2 x 4096 x 4096.
    void dropoutAndQkNorm_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("sp");
        QTest::addColumn<QString>("change"); // "dropout", "qk_norm", "dropout 0 on plain"
        QTest::addColumn<double>("extra"); // bytes over the unchanged model
        const double sbh = 4096.0 * 4096;
        const double qk = 4096.0 * (2 * (4096.0 + 4096.0) + 4 * (32.0 + 32.0));
        QTest::newRow("dropout, tp1") << 1 << false << "dropout" << 2 * sbh;
        QTest::newRow("dropout, tp4 sp") << 4 << true << "dropout" << 2 * sbh / 4;
        QTest::newRow("qk_norm, tp1") << 1 << false << "qk_norm" << qk;
        QTest::newRow("qk_norm, tp4 sp") << 4 << true << "qk_norm" << qk / 4;
        QTest::newRow("plain MLP without dropout") << 1 << false << "dropout 0 on plain" << -2 * sbh;
    }
    void dropoutAndQkNorm()
    {
        QFETCH(int, tp);
        QFETCH(bool, sp);
        QFETCH(QString, change);
        QFETCH(double, extra);
        model::ModelDescription model = model::modelPreset("llama2-7b");
        model.seq_length = 4096;
        if (change == "dropout 0 on plain")
            model.mlp = model::MlpKind::Plain;
        ParallelStrategy s;
        s.tp = tp;
        s.sequence_parallel = sp;
        const LayerCost before = layerCost(model, s, a100s(1), false, false);
        if (change == "dropout")
            model.hidden_dropout = 0.1;
        else if (change == "qk_norm")
            model.qk_norm = true;
        else
            model.hidden_dropout = 0.0;
        const LayerCost after = layerCost(model, s, a100s(1), false, false);
        QCOMPARE(after.activation_bytes - before.activation_bytes, extra);
    }

    // Megatron's --recompute-modules (transformer_config.py): "layernorm" drops the pre-MLP norm's
    // output (the router's input: Korthikanti's 2sbh fc1 input, over t with SP; the input norm is
    // fused into linear_qkv, gpt_layer_specs.py) and "moe" a MoE layer's
    // whole MLP state (the permuted tokens, the experts' fc1 outputs and activations, the router
    // probabilities); each recomputed module's forward runs again in the backward.
    void recomputeModulesTradeTimeForMemory_data()
    {
        QTest::addColumn<QString>("modules");
        QTest::newRow("layernorm") << "layernorm";
        QTest::newRow("moe") << "moe";
        QTest::newRow("layernorm and moe") << "layernorm moe";
        QTest::newRow("moe_act") << "moe_act";
    }
    void recomputeModulesTradeTimeForMemory()
    {
        QFETCH(QString, modules);
        const model::ModelDescription model = model::modelPreset("mixtral-8x7b");
        ParallelStrategy s;
        s.tp = 2;
        s.ep = 4;
        s.sequence_parallel = true;
        s.recompute = Recompute::Selective;
        s.recompute_modules = RecomputeModules::of({});
        const HardwareModel hw = a100s(1);
        const LayerCost none = layerCost(model, s, hw, true, false);
        for (const QString& name : modules.split(' '))
            s.recompute_modules = s.recompute_modules.with(*parseRecomputeModule(name.toStdString()));
        const LayerCost cost = layerCost(model, s, hw, true, false);

        const double tokens = model.seq_length; // b = 1, cp = 1
        const double h = model.hidden_size;
        const double routed = tokens * s.etp / s.tp * model.moe->top_k;
        const double fe = model.moe->expert_ffn_hidden_size;
        const QStringList names = modules.split(' ');
        const bool wholeMoe = names.contains("moe");
        double dropped = 0;
        if (names.contains("layernorm"))
            dropped += 2 * tokens * h / s.tp;
        if (wholeMoe) // permuted fc1 inputs, fc2 inputs, gated fc1 outputs (2 bytes), fp32 router probabilities
            dropped += 2 * routed * (h + fe + 2 * fe) + 4 * tokens / s.tp * model.moe->num_experts;
        if (names.contains("moe_act") && !wholeMoe)
            dropped += 2 * routed * fe; // the activation outputs, rebuilt from the fc1 outputs
        QVERIFY2(std::abs(none.activation_bytes - cost.activation_bytes - dropped) < 1e-6 * dropped,
            qPrintable(QString("dropped %1 bytes, expected %2")
                           .arg(none.activation_bytes - cost.activation_bytes)
                           .arg(dropped)));
        QCOMPARE(cost.transient_bytes, none.activation_bytes - cost.activation_bytes);
        QVERIFY(cost.recompute_s > none.recompute_s);
        // A recomputed MoE layer runs its expert all-to-alls again.
        QCOMPARE(cost.recompute_ep_comm_s > 0, wholeMoe);
        QCOMPARE(cost.forward_compute_s, none.forward_compute_s);
    }

    // "layernorm" rebuilds only norms that are their own modules in Megatron-Core's TE layer spec
    // (gpt_layer_specs.py, d98e8a64): MLA's input norm (before its unfused down projections) and a
    // MoE layer's pre-MLP norm; a dense GQA layer fuses both into linear_qkv and fc1. "mla_up_proj"
    // (multi_latent_attention.py) drops Q, K and V (heads/t x (192 + 192 + 128) per token for
    // DeepSeek-V3) and runs the two up projections again.
    void normsAndUpProjectionsFollowTheLayerSpec_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("module");
        QTest::addColumn<bool>("moeLayer");
        QTest::addColumn<double>("droppedPerToken"); // bytes per token at tp 2 without SP
        QTest::newRow("dense GQA layernorm") << "mixtral-8x7b" << "layernorm" << false << 0.0;
        QTest::newRow("MoE GQA layernorm") << "mixtral-8x7b" << "layernorm" << true << 2.0 * 4096;
        QTest::newRow("dense MLA layernorm") << "deepseek-v3-style" << "layernorm" << false << 2.0 * 7168;
        QTest::newRow("MoE MLA layernorm") << "deepseek-v3-style" << "layernorm" << true << 2 * 2.0 * 7168;
        QTest::newRow("MLA up projections") << "deepseek-v3-style" << "mla_up_proj" << true
                                            << 2.0 * 64 * (192 + 192 + 128);
        QTest::newRow("GQA has no up projections") << "mixtral-8x7b" << "mla_up_proj" << true << 0.0;
    }
    void normsAndUpProjectionsFollowTheLayerSpec()
    {
        QFETCH(QString, preset);
        QFETCH(QString, module);
        QFETCH(bool, moeLayer);
        QFETCH(double, droppedPerToken);
        const model::ModelDescription model = model::modelPreset(preset.toStdString());
        ParallelStrategy s;
        s.tp = 2;
        s.ep = 2;
        s.recompute = Recompute::Selective;
        s.recompute_modules = RecomputeModules::of({});
        const HardwareModel hw = a100s(1);
        const LayerCost none = layerCost(model, s, hw, moeLayer, false);
        s.recompute_modules = RecomputeModules::of({ *parseRecomputeModule(module.toStdString()) });
        const LayerCost cost = layerCost(model, s, hw, moeLayer, false);
        const double dropped = droppedPerToken * model.seq_length;
        QVERIFY2(std::abs(none.activation_bytes - cost.activation_bytes - dropped) <= 1e-9 * (1 + dropped),
            qPrintable(QString("dropped %1 bytes, expected %2").arg(none.activation_bytes - cost.activation_bytes).arg(dropped)));
        QCOMPARE(cost.recompute_s > 0, dropped > 0);
    }

    // Unfused attention's kept scores as each framework's attention code keeps them
    // (unfused_attention_memory.cpp, docs/memory-model.md "Unfused attention as each framework keeps
    // it"): Megatron's fused scale-mask-softmax, Korthikanti's 2 bytes per score (5 with the
    // attention dropout's mask and dropped copy); DeepSpeed's Hugging Face eager attention of 2023,
    // the fp16 masked scores torch.max keeps, the fp32 softmax output and the fp16 probabilities:
    // 8 (9 with dropout). OPT-1.3B as DeepSpeed-Chat ran it (h 2048, 32 heads, s 512, micro-batch
    // 8, tp 1): b·a·s^2 = 8 x 32 x 512^2 = 67,108,864 scores. Unfused minus flash = the scores'
    // bytes (the per-head softmax statistics are counted on both paths).
    void unfusedScoresAsTheFrameworkKeepsThem_data()
    {
        QTest::addColumn<int>("framework");
        QTest::addColumn<double>("attentionDropout");
        QTest::addColumn<double>("bytesPerScore");
        QTest::newRow("megatron, no attention dropout") << int(Framework::MegatronCore) << 0.0 << 2.0;
        QTest::newRow("megatron, attention dropout 0.1") << int(Framework::MegatronCore) << 0.1 << 5.0;
        QTest::newRow("deepspeed (HF eager), OPT's 0.0") << int(Framework::DeepSpeed) << 0.0 << 8.0;
        QTest::newRow("deepspeed (HF eager), dropout 0.1") << int(Framework::DeepSpeed) << 0.1 << 9.0;
    }
    void unfusedScoresAsTheFrameworkKeepsThem()
    {
        QFETCH(int, framework);
        QFETCH(double, attentionDropout);
        QFETCH(double, bytesPerScore);
        const model::ModelDescription model = opt13b(attentionDropout);
        ParallelStrategy s;
        s.micro_batch_size = 8;
        s.framework = Framework(framework);
        s.precision = Precision::Fp16;
        const LayerCost flash = layerCost(model, s, a100s(1), false, false);
        s.flash_attention = false;
        const LayerCost unfused = layerCost(model, s, a100s(1), false, false);
        const double scores = 8.0 * 32 * 512 * 512;
        QCOMPARE(unfused.activation_bytes - flash.activation_bytes, bytesPerScore * scores);
    }

    // On Volta no flash kernel runs (attention_kernels.h attentionKernelRunsOn): a strategy that asks
    // for the default kernel with flash_attention on is costed as the unfused path it falls back to,
    // in time and memory; on an A100 it is not.
    void voltaFallsBackToUnfused_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<bool>("sameAsUnfused");
        QTest::newRow("v100-32gb") << "v100-32gb" << true;
        QTest::newRow("v100-16gb") << "v100-16gb" << true;
        QTest::newRow("a100-40gb") << "a100-40gb" << false;
    }
    void voltaFallsBackToUnfused()
    {
        QFETCH(QString, gpu);
        QFETCH(bool, sameAsUnfused);
        const model::ModelDescription model = opt13b(0.0);
        const hardware::HardwareModel hw = test::gpus(gpu.toStdString().c_str(), 1);
        ParallelStrategy s;
        s.micro_batch_size = 8;
        s.framework = Framework::DeepSpeed;
        s.precision = Precision::Fp16;
        const LayerCost asked = layerCost(model, s, hw, false, false);
        s.flash_attention = false;
        const LayerCost unfused = layerCost(model, s, hw, false, false);
        QCOMPARE(asked.activation_bytes == unfused.activation_bytes, sameAsUnfused);
        QCOMPARE(asked.forward_compute_s == unfused.forward_compute_s, sameAsUnfused);
    }

private:
    // facebook/opt-1.3b's config.json: 24 layers, hidden 2048, ffn 8192, 32 heads, dropout 0.1,
    // at DeepSpeed-Chat's 512 tokens.
    static model::ModelDescription opt13b(double attentionDropout)
    {
        model::ModelDescription model = gpt175b();
        model.num_layers = 24;
        model.hidden_size = 2048;
        model.ffn_hidden_size = 8192;
        model.num_heads = 32;
        model.num_kv_heads = 32;
        model.seq_length = 512;
        model.hidden_dropout = 0.1;
        model.attention_dropout = attentionDropout;
        return model;
    }
};

QTEST_GUILESS_MAIN(TestLayerActivations)
#include "tst_layer_activations.moc"
