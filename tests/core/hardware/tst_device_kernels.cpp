// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel model against this project's own H200 measurements
// (resources/device-measurements/h200-2026-11-28/kernels.json, tools/device-measure/measure.py;
// docs/kernels.md §8, docs/device-measurements.md "Kernels"): GEMM time by shape in
// BF16 and FP8 (torch.matmul, torch._scaled_mm), the FP8 / BF16 ratio, memory-bound kernels and
// SDPA attention, each row within a stated band; what has no counterpart in the model is pinned
// with its reason.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include <QtTest>

#include "core/hardware/attention_kernel_rates.h"
#include "core/hardware/attention_kernels.h"
#include "core/hardware/fp8_gemm.h"
#include "core/hardware/hardware_model.h"
#include "core/hardware/kernel_shapes.h"

using namespace stratex;
using namespace stratex::hardware;

namespace {

const nlohmann::json& kernels()
{
    static const nlohmann::json data = [] {
        const std::filesystem::path file
            = std::filesystem::path(STRATEX_RESOURCES_DIR) / "device-measurements" / "h200-2026-11-28" / "kernels.json";
        std::ifstream in(file);
        if (!in.good())
            qFatal("cannot read %s", file.string().c_str());
        return nlohmann::json::parse(in);
    }();
    return data;
}

// The H200: the H100 SXM5's die (132 SMs, 989 dense BF16 TFLOP/s at the same clocks) with 4.8 TB/s
// of HBM3e (NVIDIA H200 datasheet). No preset: the h100-80gb one with the H200's bandwidth. Its
// efficiencies: the datasheet starting point (datasheetEfficiency: the published best-shape BF16
// matmul, 80.3 % of peak), a kernel-level figure that no fit of the records moves; `fitted` takes
// the h100 family's fit instead (what a plan is costed with; it also carries what the records'
// end-to-end time holds besides the GEMMs, and moves with every refit).
HardwareModel h200(double fp8Speedup = Efficiency().fp8_speedup, bool fitted = false)
{
    ClusterDescription cluster { gpuPreset("h100-80gb"), 1, 8 };
    cluster.gpu.hbm_gb_per_s = 4800;
    Efficiency e = fitted ? efficiencyFor(cluster.gpu) : datasheetEfficiency(cluster.gpu);
    e.fp8_speedup = fp8Speedup;
    return HardwareModel(cluster, e);
}

struct Shape {
    double m, n, k;
    auto operator<=>(const Shape&) const = default;
};

std::map<Shape, double> gemmTimes(const std::string& dtype)
{
    std::map<Shape, double> times;
    for (const nlohmann::json& row : kernels()["gemm"]) {
        if (row["dtype"] != dtype || !row.contains("time_s"))
            continue;
        times[{ row["m"].get<double>(), row["n"].get<double>(), row["k"].get<double>() }] = row["time_s"].get<double>();
    }
    return times;
}

// The harness's floor: every GEMM of at most 2 GFLOP takes the same time per call whatever its
// size (bf16 18-22 µs, fp8 24-28 µs): the host's dispatch of torch.matmul / torch._scaled_mm, not
// the GPU (docs/kernels.md §8). The largest of those times.
double hostFloorS(const std::map<Shape, double>& times)
{
    double floor = 0;
    for (const auto& [shape, time] : times) {
        if (2 * shape.m * shape.n * shape.k <= 2.0 * 1024 * 1024 * 1024)
            floor = std::max(floor, time);
    }
    return floor;
}

// Rows clear of the floor: the GPU's time, not the host's.
constexpr double kAboveFloor = 1.5;

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n == 0 ? 0 : (n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2);
}

QString shapeName(const Shape& s)
{
    return QString("%1x%2x%3").arg(s.m).arg(s.n).arg(s.k);
}

// Operand traffic the model adds to the compute time, though a GEMM with m <= 1024 and k >= 4096
// streams its large operand while it computes: those rows run up to 1.8x faster than the model
// (the same additive term in BF16 and FP8; not changed here, docs/kernels.md §8).
bool streamsOperand(const Shape& s)
{
    return s.m <= 1024 && s.k >= 4096;
}

struct Errors {
    double median_abs = 0, max_abs = 0, median_signed = 0;
    int rows = 0;
};

Errors errors(const std::vector<double>& relative)
{
    std::vector<double> abs;
    for (double r : relative)
        abs.push_back(std::abs(r));
    Errors e;
    e.rows = int(relative.size());
    e.median_abs = median(abs);
    e.max_abs = abs.empty() ? 0 : *std::max_element(abs.begin(), abs.end());
    e.median_signed = median(relative);
    return e;
}

// SDPA's causal forward as the model costs cuDNN's kernel: flash attention's occupancy at the h100
// family's fitted flash2 efficiency, over cuDNN's relative rate (docs/kernels.md §6).
double attentionModelS(double batchHeads, double seq, double headDim, bool fitted = true)
{
    // The family's fitted flash2 rate, or the kernel-level one: the datasheet prior, flash-attn 2's
    // published rate on Hopper (hardware_model.cpp; docs/kernels.md §6).
    const HardwareModel hw = h200(Efficiency().fp8_speedup, fitted);
    const double flops = 4.0 * batchHeads * seq * seq * headDim / 2;
    return flashAttentionS(hw, flops, batchHeads, seq, seq)
        / attentionKernelRelativeRate(AttentionKernel::Cudnn, "h100-80gb", headDim, seq);
}

} // namespace

class TestDeviceKernels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void provenance()
    {
        const nlohmann::json& p = kernels()["provenance"];
        QCOMPARE(QString::fromStdString(p["gpu"].get<std::string>()), QString("NVIDIA H200"));
        QCOMPARE(p["sm_count"].get<int>(), presetSmCount("h100-80gb"));
        QCOMPARE(gemmTimes("bfloat16").size(), std::size_t(129));
        QCOMPARE(gemmTimes("float8_e4m3fn").size(), std::size_t(129));
    }

    // Each GEMM clear of the host floor: the model's kernel time against the measured one. Band
    // 30 %, 85 % where the GEMM streams its large operand (streamsOperand).
    void gemm_data()
    {
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<double>("measuredS");
        QTest::addColumn<double>("band");
        for (const bool fp8 : { false, true }) {
            const std::map<Shape, double> times = gemmTimes(fp8 ? "float8_e4m3fn" : "bfloat16");
            const double floor = hostFloorS(times);
            for (const auto& [s, time] : times) {
                if (time < kAboveFloor * floor)
                    continue;
                QTest::newRow(qPrintable(QString(fp8 ? "fp8 " : "bf16 ") + shapeName(s)))
                    << fp8 << s.m << s.n << s.k << time << (streamsOperand(s) ? 0.85 : 0.30);
            }
        }
    }
    void gemm()
    {
        QFETCH(bool, fp8);
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(double, measuredS);
        QFETCH(double, band);
        const double model = gemmKernelS(h200(), m, n, k, fp8, 1);
        QVERIFY2(std::abs(model / measuredS - 1) <= band,
            qPrintable(QString("model %1 µs, measured %2 µs").arg(model * 1e6).arg(measuredS * 1e6)));
    }

    // The FP8 / BF16 time ratio where both are clear of their floors: the model's within 20 % for
    // k >= 2048, within 40 % below. At k <= 1024 FP8's k loop is 2-8 steps of 128 and the measured
    // gain 1.04-1.46x, where the model gives 1.39-1.69x (the tile's fixed cost is off in the
    // presets, gemm_half_dim 0; docs/kernels.md §8).
    void fp8OverBf16_data()
    {
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<double>("measuredRatio");
        QTest::addColumn<double>("band");
        const std::map<Shape, double> bf16 = gemmTimes("bfloat16");
        const std::map<Shape, double> fp8 = gemmTimes("float8_e4m3fn");
        const double bf16Floor = hostFloorS(bf16), fp8Floor = hostFloorS(fp8);
        for (const auto& [s, time] : fp8) {
            if (time < kAboveFloor * fp8Floor || bf16.at(s) < kAboveFloor * bf16Floor)
                continue;
            QTest::newRow(qPrintable(shapeName(s)))
                << s.m << s.n << s.k << bf16.at(s) / time << (s.k >= 2048 ? 0.20 : 0.40);
        }
    }
    void fp8OverBf16()
    {
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(double, measuredRatio);
        QFETCH(double, band);
        const HardwareModel hw = h200();
        const double model = gemmKernelS(hw, m, n, k, false, 1) / gemmKernelS(hw, m, n, k, true, 1);
        QVERIFY2(std::abs(model / measuredRatio - 1) <= band,
            qPrintable(QString("model %1x, measured %2x").arg(model).arg(measuredRatio)));
    }

    // The whole table at once: median and largest errors, printed and bounded, with the held
    // fp8_speedup (1.85) and with the fixed 1.5x of before, which the table refutes (FP8 15 % off
    // on the median row, the ratio 14 % too low). With the h100 family's fitted efficiencies the
    // errors are printed only (they move with each refit).
    void errorsOverTheTable_data()
    {
        QTest::addColumn<double>("fp8Speedup");
        QTest::addColumn<bool>("fitted");
        QTest::addColumn<int>("expected"); // 1: within the bounds, 0: outside them, -1: printed only
        QTest::newRow("held 1.85") << Efficiency().fp8_speedup << false << 1;
        QTest::newRow("old fixed 1.5") << 1.5 << false << 0;
        QTest::newRow("held 1.85, h100 fit") << Efficiency().fp8_speedup << true << -1;
        QTest::newRow("old fixed 1.5, h100 fit") << 1.5 << true << -1;
    }
    void errorsOverTheTable()
    {
        QFETCH(double, fp8Speedup);
        QFETCH(bool, fitted);
        QFETCH(int, expected);
        const HardwareModel hw = h200(fp8Speedup, fitted);
        const std::map<Shape, double> bf16 = gemmTimes("bfloat16");
        const std::map<Shape, double> fp8 = gemmTimes("float8_e4m3fn");
        const double bf16Floor = hostFloorS(bf16), fp8Floor = hostFloorS(fp8);
        std::vector<double> bf16Errors, fp8Errors, ratioErrors;
        for (const auto& [s, time] : bf16) {
            const double modelBf16 = gemmKernelS(hw, s.m, s.n, s.k, false, 1);
            const double modelFp8 = gemmKernelS(hw, s.m, s.n, s.k, true, 1);
            if (time >= kAboveFloor * bf16Floor)
                bf16Errors.push_back(modelBf16 / time - 1);
            if (fp8.at(s) >= kAboveFloor * fp8Floor)
                fp8Errors.push_back(modelFp8 / fp8.at(s) - 1);
            if (time >= kAboveFloor * bf16Floor && fp8.at(s) >= kAboveFloor * fp8Floor)
                ratioErrors.push_back((modelBf16 / modelFp8) / (time / fp8.at(s)) - 1);
        }
        const Errors b = errors(bf16Errors), f = errors(fp8Errors), r = errors(ratioErrors);
        qInfo("fp8_speedup %.2f: bf16 %d rows median |error| %.1f %% (signed %+.1f %%), max %.1f %%; fp8 %d rows "
              "%.1f %% (%+.1f %%), max %.1f %%; fp8/bf16 ratio %d rows %.1f %% (%+.1f %%), max %.1f %%",
            fp8Speedup, b.rows, 100 * b.median_abs, 100 * b.median_signed, 100 * b.max_abs, f.rows, 100 * f.median_abs,
            100 * f.median_signed, 100 * f.max_abs, r.rows, 100 * r.median_abs, 100 * r.median_signed, 100 * r.max_abs);
        if (expected < 0)
            return;
        // BF16 does not depend on the FP8 factor: its median row within 10 %.
        QVERIFY(b.median_abs <= 0.10);
        const bool fp8Fits = f.median_abs <= 0.08 && r.median_abs <= 0.06;
        QCOMPARE(fp8Fits, expected == 1);
    }

    // Efficiency::fp8_speedup is the measured full-wave ratio: the median FP8 / BF16 time ratio of
    // the GEMMs of 0.5 ms and more (30 rows, 1.74-2.02x, median 1.855) within 3 %, inside its
    // range and off both bounds.
    void fp8SpeedupIsTheMeasuredRatio()
    {
        const std::map<Shape, double> bf16 = gemmTimes("bfloat16");
        const std::map<Shape, double> fp8 = gemmTimes("float8_e4m3fn");
        std::vector<double> ratios;
        for (const auto& [s, time] : bf16) {
            if (time >= 0.5e-3)
                ratios.push_back(time / fp8.at(s));
        }
        QCOMPARE(int(ratios.size()), 30);
        const double held = Efficiency().fp8_speedup;
        QVERIFY2(std::abs(held / median(ratios) - 1) <= 0.03,
            qPrintable(QString("held %1, measured median %2").arg(held).arg(median(ratios))));
        const EfficiencyField* field = findEfficiencyField("fp8_speedup");
        QVERIFY(field != nullptr);
        QVERIFY(inRange(*field, held));
        QVERIFY(held > field->minimum && held < field->maximum);
    }

    // At the host floor the measurement says only that the GPU took no longer than the floor. The
    // floors differ: _scaled_mm dispatches ~6 µs slower than matmul, which is the measured
    // 0.73-0.79x "FP8 slower" of the small GEMMs, not the GPU's FP8 rate. The model's kernel stays
    // within 1.6x of the floor: up to 1.58x over it where the GEMM streams its operand or fills
    // less than a wave of 128x256 tiles (4096x768x2048: 96 tiles on 132 SMs; cuBLAS's smaller
    // tiles there run faster than the reuse the model assumes for them, docs/kernels.md §2).
    void floorRows_data()
    {
        QTest::addColumn<bool>("fp8");
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<double>("measuredS");
        for (const bool fp8 : { false, true }) {
            const std::map<Shape, double> times = gemmTimes(fp8 ? "float8_e4m3fn" : "bfloat16");
            const double floor = hostFloorS(times);
            for (const auto& [s, time] : times) {
                if (time < kAboveFloor * floor)
                    QTest::newRow(qPrintable(QString(fp8 ? "fp8 " : "bf16 ") + shapeName(s)))
                        << fp8 << s.m << s.n << s.k << time;
            }
        }
    }
    void floorRows()
    {
        QFETCH(bool, fp8);
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(double, measuredS);
        const double model = gemmKernelS(h200(), m, n, k, fp8, 1);
        QVERIFY2(model <= 1.6 * measuredS,
            qPrintable(QString("model %1 µs over the floor %2 µs").arg(model * 1e6).arg(measuredS * 1e6)));
    }

    // Transformer Engine's per-tensor quantization (fp8_gemm.h): bytes and launches per recipe.
    void quantization_data()
    {
        QTest::addColumn<int>("scaling");
        QTest::addColumn<double>("bytesPerElement");
        QTest::addColumn<int>("kernels");
        QTest::newRow("delayed: one fused cast-transpose") << int(Fp8Scaling::Delayed) << 4.0 << 1;
        QTest::newRow("current: amax, scale, cast-transpose") << int(Fp8Scaling::Current) << 6.0 << 3;
    }
    void quantization()
    {
        QFETCH(int, scaling);
        QFETCH(double, bytesPerElement);
        QFETCH(int, kernels);
        const Fp8Quantization q = fp8Quantization(Fp8Scaling(scaling));
        QCOMPARE(q.bytes_per_element, bytesPerElement);
        QCOMPARE(q.kernels, kernels);
        const HardwareModel hw = h200();
        const double elements = 4096.0 * 8192;
        const double expected = bytesPerElement * elements / (4800e9 * hw.efficiency().hbm)
            + kernels * hw.efficiency().kernel_overhead_us * 1e-6;
        QVERIFY(std::abs(fp8QuantizeS(hw, elements, Fp8Scaling(scaling)) / expected - 1) < 1e-12);
    }

    // As a training framework runs it (kernel + the input's quantization, current scaling): FP8
    // loses to BF16 on the small GEMMs of MoE experts and wins on large ones.
    void fp8AgainstBf16AsTrainingRunsIt_data()
    {
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<double>("groups");
        QTest::addColumn<bool>("fp8Faster");
        // Qwen3-30B-A3B at EP 16: ~256 tokens an expert, fc1 2 x 768 wide over hidden 2048, TE's 4
        // concurrent experts.
        QTest::newRow("Qwen3-30B-A3B expert fc1") << 256.0 << 1536.0 << 2048.0 << 4.0 << false;
        QTest::newRow("Qwen3-30B-A3B expert fc2") << 256.0 << 2048.0 << 768.0 << 4.0 << false;
        QTest::newRow("1K cube") << 1024.0 << 1024.0 << 1024.0 << 1.0 << false;
        QTest::newRow("Llama 3 70B fc1, 8K tokens") << 8192.0 << 28672.0 << 8192.0 << 1.0 << true;
        QTest::newRow("8K cube") << 8192.0 << 8192.0 << 8192.0 << 1.0 << true;
    }
    void fp8AgainstBf16AsTrainingRunsIt()
    {
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(double, groups);
        QFETCH(bool, fp8Faster);
        const HardwareModel hw = h200();
        const double bf16 = groupedGemmS(hw, m, n, k, false, groups);
        const double fp8 = groupedGemmS(hw, m, n, k, true, groups);
        QVERIFY2(
            (fp8 < bf16) == fp8Faster, qPrintable(QString("bf16 %1 µs, fp8 %2 µs").arg(bf16 * 1e6).arg(fp8 * 1e6)));
        // The kernel alone is never slower in FP8.
        QVERIFY(gemmKernelS(hw, m, n, k, true, groups) < gemmKernelS(hw, m, n, k, false, groups));
    }

    // Copy and add (one read per input, one write) from 16 M elements up, clear of the launch floor:
    // HardwareModel::memoryBoundS within 15 % (the model's 0.8 of 4.8 TB/s against 3.5-4.4 TB/s).
    // RMSNorm-like and softmax have no counterpart: the harness runs them as eager composites of
    // several kernels (fp32 upcast, pow, mean, rsqrt, mul; 0.4-1.3 TB/s over the bytes it counts),
    // where the model costs one fused pass (layer_cost.cpp).
    void memoryBound_data()
    {
        QTest::addColumn<double>("bytes");
        QTest::addColumn<double>("measuredS");
        for (const nlohmann::json& row : kernels()["memory_bound"]) {
            const std::string kernel = row["kernel"].get<std::string>();
            if ((kernel != "copy" && kernel != "add") || row["elements"].get<double>() < double(1 << 24))
                continue;
            QTest::newRow(qPrintable(QString("%1 %2").arg(kernel.c_str()).arg(row["elements"].get<double>())))
                << row["bytes_moved"].get<double>() << row["time_s"].get<double>();
        }
    }
    void memoryBound()
    {
        QFETCH(double, bytes);
        QFETCH(double, measuredS);
        const double model = h200().memoryBoundS(bytes);
        QVERIFY2(std::abs(model / measuredS - 1) <= 0.15,
            qPrintable(QString("model %1 µs, measured %2 µs").arg(model * 1e6).arg(measuredS * 1e6)));
    }

    // SDPA with the causal mask, forward, head dim 128, 2K tokens and more (shorter calls ramp up
    // and carry the launch): torch 2.11 ran cuDNN's kernel (570-614 TFLOP/s at 8K-16K; its flash
    // backend reaches ~320, resources/attention-kernels/sdpa-h200-torch2.11.json). The model: the
    // h100 preset's fitted flash-attn 2 rate (0.3726 of peak from session 18, when the NeMo records
    // were found to have run flash-attn 2, docs/kernels.md §6; 0.3716 since session 20) times
    // cuDNN's published rate over flash-attn 2. Fitted on end-to-end training runs only, it reproduces these kernels within
    // -17 % (2K, the model faster) to +5 %, median -2 %; at the presets before (attention 0.2544)
    // every row was 10-60 % too slow.
    void attention_data()
    {
        QTest::addColumn<double>("batchHeads");
        QTest::addColumn<double>("seq");
        QTest::addColumn<double>("headDim");
        QTest::addColumn<double>("measuredS");
        for (const nlohmann::json& row : kernels()["attention"]) {
            if (row["head_dim"].get<int>() != 128 || row["seq"].get<int>() < 2048)
                continue;
            QTest::newRow(qPrintable(QString("b%1 h%2 s%3")
                                         .arg(row["batch"].get<int>())
                                         .arg(row["heads"].get<int>())
                                         .arg(row["seq"].get<int>())))
                << row["batch"].get<double>() * row["heads"].get<double>() << row["seq"].get<double>()
                << row["head_dim"].get<double>() << row["forward_s"].get<double>();
        }
    }
    void attention()
    {
        QFETCH(double, batchHeads);
        QFETCH(double, seq);
        QFETCH(double, headDim);
        QFETCH(double, measuredS);
        const double error = attentionModelS(batchHeads, seq, headDim) / measuredS - 1;
        QVERIFY2(error >= -0.20 && error <= 0.10,
            qPrintable(QString("measured %1 µs, model %2 %").arg(measuredS * 1e6).arg(100 * error)));
    }

    // The same rows against the kernel-level model: flash-attn 2's published rate (the Hopper
    // datasheet prior, 0.339 of peak: FA3 paper FA2 causal 16K d128) times the 2024 cuDNN's
    // published rate over it (attention_kernel_rates.cpp). cuDNN 9.19 (2026) is faster than the
    // paper's 2024 cuDNN (633 against 539 TFLOP/s at 16K, resources/attention-kernels/), so the
    // model is slower by what the newer library gained: held at -10 % (the smallest grids, 64
    // heads x batch at 2K-4K, run 5-8 % slower than the model) to +25 % too slow per row.
    void attentionKernelLevel_data() { attention_data(); }
    void attentionKernelLevel()
    {
        QFETCH(double, batchHeads);
        QFETCH(double, seq);
        QFETCH(double, headDim);
        QFETCH(double, measuredS);
        const double error = attentionModelS(batchHeads, seq, headDim, false) / measuredS - 1;
        qInfo("kernel-level model %+.1f %%", 100 * error);
        QVERIFY2(error >= -0.10 && error <= 0.25,
            qPrintable(QString("measured %1 µs, model %2 %").arg(measuredS * 1e6).arg(100 * error)));
    }

    // The attention and memory-bound rows at once: median and largest errors, printed (the bands
    // per row are above).
    void otherKernelsSummary()
    {
        std::vector<double> attention, memory;
        for (const nlohmann::json& row : kernels()["attention"]) {
            if (row["head_dim"].get<int>() == 128 && row["seq"].get<int>() >= 2048)
                attention.push_back(attentionModelS(row["batch"].get<double>() * row["heads"].get<double>(),
                                        row["seq"].get<double>(), 128)
                        / row["forward_s"].get<double>()
                    - 1);
        }
        for (const nlohmann::json& row : kernels()["memory_bound"]) {
            const std::string kernel = row["kernel"].get<std::string>();
            if ((kernel == "copy" || kernel == "add") && row["elements"].get<double>() >= double(1 << 24))
                memory.push_back(
                    h200().memoryBoundS(row["bytes_moved"].get<double>()) / row["time_s"].get<double>() - 1);
        }
        const Errors a = errors(attention), m = errors(memory);
        qInfo("attention (cuDNN SDPA forward, d128, >= 2K) %d rows median |error| %.1f %% (signed %+.1f %%), max %.1f "
              "%%; "
              "copy/add >= 16M elements %d rows %.1f %% (%+.1f %%), max %.1f %%",
            a.rows, 100 * a.median_abs, 100 * a.median_signed, 100 * a.max_abs, m.rows, 100 * m.median_abs,
            100 * m.median_signed, 100 * m.max_abs);
        QCOMPARE(a.rows, 12);
        QCOMPARE(m.rows, 8);
    }
};

QTEST_APPLESS_MAIN(TestDeviceKernels)
#include "tst_device_kernels.moc"
