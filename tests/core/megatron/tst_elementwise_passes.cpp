// SPDX-License-Identifier: GPL-3.0-or-later
// Eager against compiled blocks (core/megatron/elementwise_passes.*, docs/kernels.md "Eager and
// compiled blocks"): which form each framework runs, the passes of each op, the strategy key, and
// the layer against the H200 measurement (tests/data/measured/host-overhead-h200/eager_vs_compile.jsonl,
// eager_composite_rmsnorm.jsonl).
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/megatron/elementwise_passes.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/strategy_json.h"
#include "core/model/model_presets.h"

#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;

Q_DECLARE_METATYPE(stratex::megatron::Framework)
Q_DECLARE_METATYPE(stratex::megatron::Compile)
Q_DECLARE_METATYPE(stratex::megatron::ElementwiseForm)

namespace {

// The measured layer (tools/device-measure/eager_vs_compile_compact.py): Llama-3-8B-shaped, h 4096,
// ffn 14,336, 32 heads of 128 with 8 KV heads, RMSNorm, SwiGLU, rotary, 2 x 8,192 tokens, bf16.
model::ModelDescription measuredLayerModel()
{
    model::ModelDescription m = model::modelPreset("llama3.1-8b");
    m.seq_length = 8192;
    return m;
}

// An H200 SXM: the H100 SXM preset's 989 TFLOP/s dense bf16 and fitted efficiencies, with H200's
// HBM3e (141 GB at 4.8 TB/s, NVIDIA H200 datasheet).
hardware::HardwareModel h200()
{
    hardware::ClusterDescription cluster;
    cluster.gpu = hardware::gpuPreset("h100-80gb");
    cluster.gpu.memory_gb = 141;
    cluster.gpu.hbm_gb_per_s = 4800;
    cluster.num_nodes = 1;
    cluster.gpus_per_node = 8;
    return hardware::HardwareModel(cluster, hardware::efficiencyFor(hardware::gpuPreset("h100-80gb")));
}

// One layer's forward + backward on one GPU, the blocks compiled or eager.
double layerS(Compile compile)
{
    ParallelStrategy s;
    s.framework = Framework::Torchtitan;
    s.micro_batch_size = 2;
    s.compile = compile;
    const LayerCost c = layerCost(measuredLayerModel(), s, h200(), false, false);
    return c.forwardS() + c.backwardS();
}

} // namespace

class TestElementwisePasses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Each framework's form from its source (elementwise_passes.h).
    void formPerFramework_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<Compile>("compile");
        QTest::addColumn<bool>("asyncTp");
        QTest::addColumn<ElementwiseForm>("form");
        const auto fused = ElementwiseForm::Fused;
        const auto eager = ElementwiseForm::Eager;
        QTest::newRow("megatron-core default: its fused kernels")
            << Framework::MegatronCore << Compile::Default << false << fused;
        QTest::newRow("megatron-core off: still its fused kernels")
            << Framework::MegatronCore << Compile::Off << false << fused;
        QTest::newRow("megatron-bridge default") << Framework::MegatronBridge << Compile::Default << false << fused;
        QTest::newRow("torchtitan default: compile.enable False")
            << Framework::Torchtitan << Compile::Default << false << eager;
        QTest::newRow("torchtitan on") << Framework::Torchtitan << Compile::On << false << fused;
        QTest::newRow("torchtitan off") << Framework::Torchtitan << Compile::Off << false << eager;
        QTest::newRow("torchtitan default with AsyncTP: compiled")
            << Framework::Torchtitan << Compile::Default << true << fused;
        QTest::newRow("deepspeed default") << Framework::DeepSpeed << Compile::Default << false << eager;
        QTest::newRow("composer on") << Framework::Composer << Compile::On << false << fused;
    }
    void formPerFramework()
    {
        QFETCH(Framework, framework);
        QFETCH(Compile, compile);
        QFETCH(bool, asyncTp);
        QFETCH(ElementwiseForm, form);
        QCOMPARE(elementwiseForm(framework, compile, asyncTp), form);
    }

    // Passes per element and extra kernels: the composite RMSNorm's 18 passes in 8 kernels,
    // SwiGLU's 5 in 2 and torchtitan's rotary embedding's fp32 round trip (10 passes in 3 kernels
    // for each of Q and K), against 2, 3 and 2 fused; LayerNorm and GeLU are one ATen kernel eager
    // too, and a GPT with learned positions has no rotary embedding.
    void passes_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<ElementwiseForm>("form");
        QTest::addColumn<bool>("compositeRmsNorm");
        QTest::addColumn<double>("norm");
        QTest::addColumn<double>("activation");
        QTest::addColumn<double>("rope");
        QTest::addColumn<int>("extraKernels");
        QTest::newRow("llama fused") << "llama3.1-8b" << ElementwiseForm::Fused << true << 2.0 << 3.0 << 2.0 << 0;
        QTest::newRow("llama eager") << "llama3.1-8b" << ElementwiseForm::Eager << true << 18.0 << 5.0 << 10.0 << 19;
        QTest::newRow("llama eager, fused nn.RMSNorm")
            << "llama3.1-8b" << ElementwiseForm::Eager << false << 2.0 << 5.0 << 10.0 << 5;
        QTest::newRow("gpt eager: LayerNorm, GeLU, learned positions")
            << "gpt3-13b" << ElementwiseForm::Eager << true << 2.0 << 2.0 << 2.0 << 0;
        QTest::newRow("gpt fused") << "gpt3-13b" << ElementwiseForm::Fused << true << 2.0 << 2.0 << 2.0 << 0;
    }
    void passes()
    {
        QFETCH(QString, preset);
        QFETCH(ElementwiseForm, form);
        QFETCH(bool, compositeRmsNorm);
        QFETCH(double, norm);
        QFETCH(double, activation);
        QFETCH(double, rope);
        QFETCH(int, extraKernels);
        const ElementwisePasses p = elementwisePasses(model::modelPreset(preset.toStdString()), form, compositeRmsNorm);
        QCOMPARE(p.norm, norm);
        QCOMPARE(p.activation, activation);
        QCOMPARE(p.rope, rope);
        QCOMPARE(p.extra_forward_kernels, extraKernels);
    }

    // The H200 measurement (PyTorch 2.11, one layer forward + backward, median of 7 steps): compiled
    // 41.203 ms, eager with the composite RMSNorm 46.097 ms (torchtitan's RMSNorm; 1.119x), eager
    // with PyTorch 2.11's fused nn.RMSNorm 42.421 ms. The model's eager layer with the composite
    // RMSNorm is the measured difference within 20 %; with the fused norm (SwiGLU's passes only,
    // computed from the same passes) the difference is short of the measurement by what the model
    // leaves out (Inductor's residual-add and gradient-sum fusions, docs/kernels.md "Eager and
    // compiled blocks"), within 45 %. On the measured compiled layer both ratios hold within 3 %.
    void reproducesTheH200Measurement_data()
    {
        QTest::addColumn<bool>("compositeRmsNorm");
        QTest::addColumn<double>("measuredEagerS");
        QTest::addColumn<double>("tolerance");
        // eager_composite_rmsnorm.jsonl: the composite row; its eager row and eager_vs_compile.jsonl's
        // (42.401, 42.442 ms), their mean.
        QTest::newRow("eager, composite RMSNorm (torchtitan)") << true << 0.046096614500001465 << 0.20;
        QTest::newRow("eager, nn.RMSNorm (torch 2.11)") << false << 0.0424215401 << 0.45;
    }
    void reproducesTheH200Measurement()
    {
        QFETCH(bool, compositeRmsNorm);
        QFETCH(double, measuredEagerS);
        QFETCH(double, tolerance);
        constexpr double measuredCompiledS = 0.04120318599999706;
        const double compiledS = layerS(Compile::On);
        double eagerS = layerS(Compile::Off);
        if (!compositeRmsNorm) {
            // The fused norm's eager layer: the compiled layer plus SwiGLU's extra passes and kernel,
            // forward and twice in the backward, as layer_cost.cpp costs them.
            const model::ModelDescription m = measuredLayerModel();
            const ElementwisePasses eager = elementwisePasses(m, ElementwiseForm::Eager, false);
            const ElementwisePasses fused = elementwisePasses(m, ElementwiseForm::Fused);
            const double tokens = 2.0 * m.seq_length;
            const double bytes = 2 * tokens * m.ffn_hidden_size * (eager.activation - fused.activation);
            const hardware::HardwareModel hw = h200();
            eagerS = compiledS + 3 * (hw.memoryBoundS(bytes) + hw.kernelOverheadS(eager.extra_forward_kernels));
        }
        const double modelled = eagerS - compiledS;
        const double measured = measuredEagerS - measuredCompiledS;
        QVERIFY2(std::abs(modelled / measured - 1) <= tolerance,
            qPrintable(
                QString("eager - compiled %1 ms against %2 ms measured").arg(modelled * 1e3).arg(measured * 1e3)));
        // The ratio on the measured compiled layer (the stand-in H200's absolute layer time is the
        // H100 fit's, not this GPU's): within 3 % of the measured 1.119.
        const double ratio = (measuredCompiledS + modelled) / measuredCompiledS;
        const double measuredRatio = measuredEagerS / measuredCompiledS;
        QVERIFY2(std::abs(ratio / measuredRatio - 1) <= 0.03,
            qPrintable(QString("eager / compiled %1 against %2 measured").arg(ratio).arg(measuredRatio)));
        qInfo("eager - compiled %.3f ms (measured %.3f), ratio %.4f (measured %.4f), model's compiled layer %.2f ms",
            modelled * 1e3, measured * 1e3, ratio, measuredRatio, compiledS * 1e3);
    }

    // A Megatron-Core plan costs the same whatever compile says (its own fused kernels).
    void megatronIgnoresCompile()
    {
        ParallelStrategy s;
        s.micro_batch_size = 2;
        const LayerCost a = layerCost(measuredLayerModel(), s, h200(), false, false);
        s.compile = Compile::Off;
        const LayerCost b = layerCost(measuredLayerModel(), s, h200(), false, false);
        QCOMPARE(b.forward_compute_s, a.forward_compute_s);
        QCOMPARE(b.backward_compute_s, a.backward_compute_s);
    }

    // The strategy key: a JSON boolean, written only away from the default; anything else is an
    // error naming the key.
    void strategyKey_data()
    {
        QTest::addColumn<QString>("value"); // the JSON text of "compile", empty: absent
        QTest::addColumn<int>("compile"); // Compile, or -1: an error
        QTest::newRow("absent") << "" << int(Compile::Default);
        QTest::newRow("true") << "true" << int(Compile::On);
        QTest::newRow("false") << "false" << int(Compile::Off);
        QTest::newRow("a string") << "\"on\"" << -1;
    }
    void strategyKey()
    {
        QFETCH(QString, value);
        QFETCH(int, compile);
        const std::string text = "{\"global_batch_size\": 16, \"framework\": \"torchtitan\""
            + (value.isEmpty() ? std::string() : ", \"compile\": " + value.toStdString()) + "}";
        const model::ModelDescription m = measuredLayerModel();
        const JsonDocument doc = JsonDocument::parse(text, "plan.json");
        if (compile < 0) {
            try {
                readStrategy(doc.root(), m, 8);
                QFAIL("no error");
            } catch (const InputError& error) {
                QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/compile"));
            }
            return;
        }
        const ParallelStrategy s = readStrategy(doc.root(), m, 8);
        QCOMPARE(int(s.compile), compile);
        const nlohmann::ordered_json written = toJson(s);
        QCOMPARE(written.contains("compile"), !value.isEmpty());
        if (!value.isEmpty())
            QCOMPARE(written["compile"].dump(), value.toStdString());
    }

    // torchtitan's AsyncTP needs torch.compile (CompileConfig.__post_init__): a plan with compile
    // off cannot overlap its TP communication.
    void asyncTpNeedsCompile_data()
    {
        QTest::addColumn<Compile>("compile");
        QTest::addColumn<bool>("problem");
        QTest::newRow("default") << Compile::Default << false;
        QTest::newRow("on") << Compile::On << false;
        QTest::newRow("off") << Compile::Off << true;
    }
    void asyncTpNeedsCompile()
    {
        QFETCH(Compile, compile);
        QFETCH(bool, problem);
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.tp = 4;
        s.sequence_parallel = true;
        s.compile = compile;
        QCOMPARE(!tpCommOverlapProblem(s).empty(), problem);
    }
};

QTEST_GUILESS_MAIN(TestElementwisePasses)
#include "tst_elementwise_passes.moc"
