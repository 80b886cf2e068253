// SPDX-License-Identifier: GPL-3.0-or-later
// Transformer Engine's FP8 casts (core/hardware/fp8_gemm.*, core/megatron/te_fp8_casts.*,
// docs/kernels.md §8 "Which casts TE runs"): one tensor's cast by recipe, source and gather; a
// dense layer's casts as TE 1.8 / 2.9 run them under each recipe; the layer's FP8 all-gathers
// under sequence parallelism; that frameworks without TE keep the per-GEMM charge; and the
// strategy's recipe (core/megatron/fp8_recipe.*): each framework's default, Megatron's rules, the
// strategy JSON key and the search setting.
#include <QtTest>

#include "core/hardware/fp8_gemm.h"
#include "core/hardware/kernel_shapes.h"
#include "core/megatron/layer_cost.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/te_fp8_casts.h"
#include "core/megatron/fp8_recipe.h"
#include "core/megatron/gpu_support.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/model/model_presets.h"

#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using hardware::Fp8CastSource;
using hardware::Fp8Scaling;

Q_DECLARE_METATYPE(stratex::hardware::Fp8Scaling)
Q_DECLARE_METATYPE(stratex::hardware::Fp8CastSource)
Q_DECLARE_METATYPE(stratex::megatron::Framework)
Q_DECLARE_METATYPE(stratex::megatron::Fp8Recipe)

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

// "core_attn,layernorm" as a module set.
RecomputeModules modulesOf(const QString& names)
{
    RecomputeModules set = RecomputeModules::of({});
    for (const QString& name : names.split(','))
        set = set.with(*parseRecomputeModule(name.toStdString()));
    return set;
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
        QTest::newRow("current fused norm") << Fp8Scaling::Current << Fp8CastSource::FusedNorm << 1 << 4.0 << 2 << 0.0
                                            << 0 << false;
        QTest::newRow("current fused activation")
            << Fp8Scaling::Current << Fp8CastSource::FusedActivation << 1 << 4.0 << 2 << 0.0 << 0 << false;
        // Gathered over TP 4: row-wise cast on the local part, amax all-reduced, the gathered tensor
        // transposed in the backward.
        QTest::newRow("current standalone gathered")
            << Fp8Scaling::Current << Fp8CastSource::Standalone << 4 << 5.0 << 3 << 2.0 << 1 << true;
        QTest::newRow("current fused gathered")
            << Fp8Scaling::Current << Fp8CastSource::FusedNorm << 4 << 3.0 << 2 << 2.0 << 1 << true;
        // Delayed scaling: one cast-transpose kernel; fused into its producer, only the transpose.
        QTest::newRow("delayed standalone")
            << Fp8Scaling::Delayed << Fp8CastSource::Standalone << 1 << 4.0 << 1 << 0.0 << 0 << false;
        QTest::newRow("delayed fused norm") << Fp8Scaling::Delayed << Fp8CastSource::FusedNorm << 1 << 0.0 << 0 << 2.0
                                            << 1 << false;
        QTest::newRow("delayed fused activation")
            << Fp8Scaling::Delayed << Fp8CastSource::FusedActivation << 1 << 0.0 << 0 << 2.0 << 1 << false;
        QTest::newRow("delayed standalone gathered")
            << Fp8Scaling::Delayed << Fp8CastSource::Standalone << 8 << 3.0 << 1 << 2.0 << 1 << false;
        // MXFP8: one kernel writes both copies and a byte per 32 values each way (4 + 2/32); the
        // norm runs unfused (a standalone cast), the activation writes MXFP8 itself (the scales
        // only); gathered, each copy travels as it is: no transpose, no amax reduction.
        const double blockBytes = 4.0 + 2.0 / 32;
        QTest::newRow("mxfp8 standalone")
            << Fp8Scaling::Mxfp8 << Fp8CastSource::Standalone << 1 << blockBytes << 1 << 0.0 << 0 << false;
        QTest::newRow("mxfp8 fused norm")
            << Fp8Scaling::Mxfp8 << Fp8CastSource::FusedNorm << 1 << blockBytes << 1 << 0.0 << 0 << false;
        QTest::newRow("mxfp8 fused activation")
            << Fp8Scaling::Mxfp8 << Fp8CastSource::FusedActivation << 1 << 2.0 / 32 << 0 << 0.0 << 0 << false;
        QTest::newRow("mxfp8 fused norm gathered")
            << Fp8Scaling::Mxfp8 << Fp8CastSource::FusedNorm << 4 << blockBytes << 1 << 0.0 << 0 << false;
        // Blockwise: an fp32 scale per 1 x 128 block each way (8/128); every producer unfused.
        QTest::newRow("blockwise fused activation")
            << Fp8Scaling::Blockwise << Fp8CastSource::FusedActivation << 1 << blockBytes << 1 << 0.0 << 0 << false;
        QTest::newRow("blockwise standalone gathered")
            << Fp8Scaling::Blockwise << Fp8CastSource::Standalone << 8 << blockBytes << 1 << 0.0 << 0 << false;
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

    // A dense layer's casts under each recipe, without SP: forward QKV and fc1 from the norms, fc2
    // from the activation, linear_proj standalone; backward each output gradient once (proj, fc2,
    // QKV standalone, fc1 from dact) and, under delayed scaling, the transposes of what the norm
    // and the activation wrote in FP8. Hand-summed bytes and kernels.
    void denseLayer_data()
    {
        QTest::addColumn<Fp8Scaling>("scaling");
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("forwardBytesPerToken");
        QTest::addColumn<int>("forwardKernels");
        QTest::addColumn<double>("backwardBytesPerToken");
        QTest::addColumn<int>("backwardKernels");
        // h 4096, q 4096, kv 1024, ffn 14336 gated (fc1's output 2 ffn wide).
        const double h = 4096, q = 4096, kv = 1024, f = 14336;
        // Current: forward 4h + 6q/tp + 4h + 4 ffn/tp; backward 6h + 6h + 6 (q + 2kv)/tp + 4 x 2 ffn/tp.
        QTest::newRow("current tp1") << Fp8Scaling::Current << 1 << 4 * h + 6 * q + 4 * h + 4 * f << 9
                                     << 6 * h + 6 * h + 6 * (q + 2 * kv) + 8 * f << 11;
        QTest::newRow("current tp2 no sp") << Fp8Scaling::Current << 2 << 4 * h + 3 * q + 4 * h + 2 * f << 9
                                           << 6 * h + 6 * h + 3 * (q + 2 * kv) + 4 * f << 11;
        // Delayed (TE 1.8, NeMo 24.07): forward only linear_proj's cast-transpose, 4q/tp; backward the
        // transposes of QKV's, fc1's and fc2's inputs (2h + 2h + 2 ffn/tp) and of fc1's FP8 gradient
        // (2 x 2 ffn/tp), and three standalone cast-transposes (4h + 4h + 4 (q + 2kv)/tp).
        QTest::newRow("delayed tp1") << Fp8Scaling::Delayed << 1 << 4 * q << 1
                                     << 2 * h + 2 * h + 2 * f + 4 * f + 4 * h + 4 * h + 4 * (q + 2 * kv) << 7;
        QTest::newRow("delayed tp2 no sp") << Fp8Scaling::Delayed << 2 << 2 * q << 1
                                           << 2 * h + 2 * h + f + 2 * f + 4 * h + 4 * h + 2 * (q + 2 * kv) << 7;
        // MXFP8 (b = 4 + 2/32): the norm outputs and linear_proj's input cast standalone, the
        // activation and dact write MXFP8 (scales 2/32 only); no transposes.
        const double b = 4.0 + 2.0 / 32, scales = 2.0 / 32;
        QTest::newRow("mxfp8 tp1") << Fp8Scaling::Mxfp8 << 1 << b * (h + q + h) + scales * f << 3
                                   << b * (h + h + q + 2 * kv) + scales * 2 * f << 3;
        // Blockwise: every tensor a standalone cast of b bytes.
        QTest::newRow("blockwise tp1") << Fp8Scaling::Blockwise << 1 << b * (h + q + h + f) << 4
                                       << b * (h + h + q + 2 * kv + 2 * f) << 4;
    }
    void denseLayer()
    {
        QFETCH(Fp8Scaling, scaling);
        QFETCH(int, tp);
        QFETCH(double, forwardBytesPerToken);
        QFETCH(int, forwardKernels);
        QFETCH(double, backwardBytesPerToken);
        QFETCH(int, backwardKernels);
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
        shape.scaling = scaling;
        const DenseLayerFp8Casts casts = denseLayerFp8Casts(hw, shape);
        const double forward = hw.memoryBoundS(forwardBytesPerToken * tokens) + hw.kernelOverheadS(forwardKernels);
        const double backward = hw.memoryBoundS(backwardBytesPerToken * tokens) + hw.kernelOverheadS(backwardKernels);
        QVERIFY2(close(casts.forwardS(), forward),
            qPrintable(QString("forward %1 us, expected %2 us").arg(casts.forwardS() * 1e6).arg(forward * 1e6)));
        QVERIFY2(close(casts.backward_s, backward),
            qPrintable(QString("backward %1 us, expected %2 us").arg(casts.backward_s * 1e6).arg(backward * 1e6)));
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
        // The framework's default recipe: Megatron-Core delayed, Megatron-Bridge tensorwise (fp8_recipe.h).
        const DenseLayerFp8Casts casts = denseLayerFp8Casts(
            hw, { tokens, h, qkv, q, 2 * f, f, tp, tp > 1, true, fp8Scaling(resolvedFp8Recipe(s)) });
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

    // Under SP the forward gathers move FP8 (QKV's and fc1's inputs), the reduce-scatters 16 bits:
    // Transformer Engine's modules, and torchtitan's float8 TP (torchao's Float8ColwiseParallel and
    // PrepareFloat8ModuleInput cast before the all-gather, layer_cost.cpp).
    void fp8Gathers_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<double>("gatherShare");
        QTest::newRow("megatron-core") << Framework::MegatronCore << 0.5;
        QTest::newRow("megatron-bridge") << Framework::MegatronBridge << 0.5;
        QTest::newRow("torchtitan") << Framework::Torchtitan << 0.5;
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
        s.tp_async_backward = false; // every backward collective exposed (tst_tp_async_backward hides some)
        const LayerCost c = layerCost(llamaLayer(), s, hw, false, false);
        const double hidden = 2.0 * 8192 * 4096;
        const hardware::GroupShape tp { 4, 1 };
        const double expected = 2 * (hw.allGatherS(hidden * gatherShare, tp) + hw.reduceScatterS(hidden, tp));
        QVERIFY2(close(c.tp_forward_comm_s, expected),
            qPrintable(QString("%1 against %2").arg(c.tp_forward_comm_s).arg(expected)));
        QVERIFY(close(c.tp_backward_comm_s, expected));
    }

    // The recipe a strategy runs: the framework's default (Megatron-Core delayed, tensorwise where
    // delayed refuses layernorm / moe_act recompute; Megatron-Bridge's MixedPrecisionConfig
    // tensorwise; torchtitan's dynamic per-tensor scaling), or the strategy's own.
    void recipeResolution_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<Fp8Recipe>("asked");
        QTest::addColumn<QString>("modules"); // selective recompute modules, "" for none
        QTest::addColumn<Fp8Recipe>("runs");
        QTest::addColumn<Fp8Scaling>("scaling");
        QTest::newRow("megatron-core default") << Framework::MegatronCore << Fp8Recipe::Default << "" << Fp8Recipe::Delayed
                                               << Fp8Scaling::Delayed;
        QTest::newRow("megatron-core layernorm recompute")
            << Framework::MegatronCore << Fp8Recipe::Default << "core_attn,layernorm" << Fp8Recipe::Tensorwise
            << Fp8Scaling::Current;
        QTest::newRow("megatron-core moe_act recompute")
            << Framework::MegatronCore << Fp8Recipe::Default << "moe_act" << Fp8Recipe::Tensorwise << Fp8Scaling::Current;
        QTest::newRow("megatron-core mlp recompute")
            << Framework::MegatronCore << Fp8Recipe::Default << "mlp" << Fp8Recipe::Delayed << Fp8Scaling::Delayed;
        QTest::newRow("megatron-bridge default") << Framework::MegatronBridge << Fp8Recipe::Default << ""
                                                 << Fp8Recipe::Tensorwise << Fp8Scaling::Current;
        QTest::newRow("megatron-bridge delayed (NeMo 24.07)")
            << Framework::MegatronBridge << Fp8Recipe::Delayed << "" << Fp8Recipe::Delayed << Fp8Scaling::Delayed;
        QTest::newRow("megatron-core mxfp8")
            << Framework::MegatronCore << Fp8Recipe::Mxfp8 << "" << Fp8Recipe::Mxfp8 << Fp8Scaling::Mxfp8;
        QTest::newRow("megatron-bridge blockwise")
            << Framework::MegatronBridge << Fp8Recipe::Blockwise << "" << Fp8Recipe::Blockwise << Fp8Scaling::Blockwise;
        QTest::newRow("torchtitan default")
            << Framework::Torchtitan << Fp8Recipe::Default << "" << Fp8Recipe::Tensorwise << Fp8Scaling::Current;
    }
    void recipeResolution()
    {
        QFETCH(Framework, framework);
        QFETCH(Fp8Recipe, asked);
        QFETCH(QString, modules);
        QFETCH(Fp8Recipe, runs);
        QFETCH(Fp8Scaling, scaling);
        ParallelStrategy s;
        s.framework = framework;
        s.precision = Precision::Fp8;
        s.fp8_recipe = asked;
        if (!modules.isEmpty()) {
            s.recompute = Recompute::Selective;
            s.recompute_modules = modulesOf(modules);
        }
        QCOMPARE(resolvedFp8Recipe(s), runs);
        QCOMPARE(fp8Scaling(resolvedFp8Recipe(s)), scaling);
        // The plan's text names the recipe it was costed with (the CLI's "Plan:" line).
        QCOMPARE(precisionLabel(s), "fp8 (" + std::string(fp8RecipeName(runs)) + " recipe)");
        s.precision = Precision::Bf16;
        QCOMPARE(precisionLabel(s), std::string("bf16"));
    }

    // What refuses a recipe: no FP8, a framework without TE's recipes, Megatron's delayed-scaling
    // rule, and the GPU (MXFP8 on Blackwell only, blockwise from Hopper).
    void recipeProblems_data()
    {
        QTest::addColumn<Framework>("framework");
        QTest::addColumn<Fp8Recipe>("recipe");
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<QString>("modules");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("problem"); // a part of the message, "" for none
        QTest::newRow("default, bf16") << Framework::MegatronCore << Fp8Recipe::Default << false << "" << "h100-80gb" << "";
        QTest::newRow("delayed, bf16") << Framework::MegatronCore << Fp8Recipe::Delayed << false << "" << "h100-80gb"
                                       << "needs precision fp8";
        QTest::newRow("delayed on h100") << Framework::MegatronBridge << Fp8Recipe::Delayed << true << "" << "h100-80gb" << "";
        QTest::newRow("delayed with layernorm recompute")
            << Framework::MegatronCore << Fp8Recipe::Delayed << true << "layernorm" << "h100-80gb"
            << "Delayed scaling does not support";
        QTest::newRow("tensorwise with layernorm recompute")
            << Framework::MegatronCore << Fp8Recipe::Tensorwise << true << "layernorm" << "h100-80gb" << "";
        QTest::newRow("torchtitan delayed") << Framework::Torchtitan << Fp8Recipe::Delayed << true << "" << "h100-80gb"
                                            << "only Megatron-Core and Megatron-Bridge";
        QTest::newRow("torchtitan tensorwise")
            << Framework::Torchtitan << Fp8Recipe::Tensorwise << true << "" << "h100-80gb" << "";
        QTest::newRow("mxfp8 on h100") << Framework::MegatronCore << Fp8Recipe::Mxfp8 << true << "" << "h100-80gb"
                                       << "Blackwell (10.x) only";
        QTest::newRow("mxfp8 on b200") << Framework::MegatronCore << Fp8Recipe::Mxfp8 << true << "" << "b200-192gb" << "";
        QTest::newRow("blockwise on l40s") << Framework::MegatronCore << Fp8Recipe::Blockwise << true << "" << "l40s-48gb"
                                           << "need 9.0 or newer";
        QTest::newRow("blockwise on h100")
            << Framework::MegatronCore << Fp8Recipe::Blockwise << true << "" << "h100-80gb" << "";
    }
    void recipeProblems()
    {
        QFETCH(Framework, framework);
        QFETCH(Fp8Recipe, recipe);
        QFETCH(bool, fp8);
        QFETCH(QString, modules);
        QFETCH(QString, gpu);
        QFETCH(QString, problem);
        ParallelStrategy s;
        s.framework = framework;
        s.precision = fp8 ? Precision::Fp8 : Precision::Bf16;
        s.fp8_recipe = recipe;
        if (!modules.isEmpty()) {
            s.recompute = Recompute::Selective;
            s.recompute_modules = modulesOf(modules);
        }
        std::string found = fp8RecipeProblem(s);
        for (const std::string& p : gpuSupportProblems(s, gpu.toStdString()))
            found += p;
        if (problem.isEmpty())
            QVERIFY2(found.empty(), found.c_str());
        else
            QVERIFY2(QString::fromStdString(found).contains(problem), found.c_str());
    }

    // In a strategy (plans, records): "fp8_recipe" written only away from the default, read back;
    // a recipe the strategy cannot run is an error at its key.
    void recipeInStrategyJson()
    {
        const model::ModelDescription model = llamaLayer();
        ParallelStrategy s;
        s.dp = 8;
        s.global_batch_size = 8;
        s.precision = Precision::Fp8;
        QVERIFY(!toJson(s).contains("fp8_recipe"));
        for (const Fp8Recipe recipe : { Fp8Recipe::Delayed, Fp8Recipe::Tensorwise, Fp8Recipe::Mxfp8, Fp8Recipe::Blockwise }) {
            s.fp8_recipe = recipe;
            const JsonDocument document = JsonDocument::parse(toJson(s).dump(), "plan.json");
            QCOMPARE(QString::fromStdString(document.root()["fp8_recipe"].string()),
                QString::fromUtf8(fp8RecipeName(recipe).data(), qsizetype(fp8RecipeName(recipe).size())));
            QCOMPARE(readStrategy(document.root(), model, 8), s);
        }
        for (const char* bad : { R"({"dp": 8, "global_batch_size": 8, "precision": "fp8", "fp8_recipe": "hybrid"})",
                 R"({"dp": 8, "global_batch_size": 8, "fp8_recipe": "delayed"})",
                 R"({"dp": 8, "global_batch_size": 8, "precision": "fp8", "framework": "torchtitan", "fp8_recipe": "mxfp8"})" }) {
            const JsonDocument document = JsonDocument::parse(bad, "s.json");
            try {
                readStrategy(document.root(), model, 8);
                QFAIL(bad);
            } catch (const InputError& error) {
                QCOMPARE(QString::fromStdString(error.keyPath()), QStringLiteral("/fp8_recipe"));
            }
        }
    }

    // The search's settings table has the row (CLI --fp8-recipe, the GUI form, saved settings); it
    // reaches the space only with precision fp8.
    void recipeIsASetting()
    {
        StrategySearchSettings settings;
        QVERIFY(strategySearchSettingTable().find("fp8-recipe") != nullptr);
        QCOMPARE(settings.resolvedSpace().fp8_recipe, Fp8Recipe::Default);
        settings.fp8_recipe = "delayed";
        QCOMPARE(settings.resolvedSpace().fp8_recipe, Fp8Recipe::Default); // bf16
        settings.precision = "fp8";
        QCOMPARE(settings.resolvedSpace().fp8_recipe, Fp8Recipe::Delayed);
        for (const Fp8Recipe r :
            { Fp8Recipe::Default, Fp8Recipe::Delayed, Fp8Recipe::Tensorwise, Fp8Recipe::Mxfp8, Fp8Recipe::Blockwise })
            QCOMPARE(parseFp8Recipe(fp8RecipeName(r)), std::optional<Fp8Recipe>(r));
        QVERIFY(!parseFp8Recipe("custom").has_value());
    }

    // The layer model takes the strategy's recipe: a Megatron-Bridge FP8 layer under delayed
    // scaling (NeMo 24.07) is faster than under its default, tensorwise, by the casts' difference.
    void recipeReachesTheLayer_data()
    {
        QTest::addColumn<int>("tp");
        QTest::newRow("tp1") << 1;
        QTest::newRow("tp4 sp") << 4;
    }
    void recipeReachesTheLayer()
    {
        QFETCH(int, tp);
        const hardware::HardwareModel hw = test::h100s(1);
        ParallelStrategy s;
        s.framework = Framework::MegatronBridge;
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        s.precision = Precision::Fp8;
        const LayerCost tensorwise = layerCost(llamaLayer(), s, hw, false, false);
        s.fp8_recipe = Fp8Recipe::Delayed;
        const LayerCost delayed = layerCost(llamaLayer(), s, hw, false, false);
        const double f = 14336.0 / tp;
        DenseLayerFp8Shape shape { 8192, 4096, 6144.0 / tp, 4096.0 / tp, 2 * f, f, tp, tp > 1, true };
        const DenseLayerFp8Casts current = denseLayerFp8Casts(hw, shape);
        shape.scaling = Fp8Scaling::Delayed;
        const DenseLayerFp8Casts fromHistory = denseLayerFp8Casts(hw, shape);
        QVERIFY(fromHistory.forwardS() + fromHistory.backward_s < current.forwardS() + current.backward_s);
        QVERIFY(close(tensorwise.forward_compute_s - delayed.forward_compute_s, current.forwardS() - fromHistory.forwardS()));
        QVERIFY(close(tensorwise.backward_compute_s - delayed.backward_compute_s, current.backward_s - fromHistory.backward_s));
    }
};

QTEST_GUILESS_MAIN(TestTeFp8Casts)
#include "tst_te_fp8_casts.moc"
