// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/kernel_shapes.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "core/hardware/fp8_gemm.h"
#include "core/hardware/hardware_model.h"

namespace stratex::hardware {

namespace {

// Output tiles the GEMM libraries choose from for 16-bit operands on Ampere and Hopper (NVIDIA,
// "Matrix Multiplication Background User's Guide", deep learning performance documentation: tile
// sizes from 256x128, the most efficient, down to 64x64; cuBLAS's sm80/sm90 kernels name theirs,
// e.g. "..._tilesize128x256x64_..."). Reuse: multiply-adds per operand element a tile loads,
// Tm·Tn/(Tm+Tn), over 128x256's: the guide's "larger tiles are more efficient (more data reuse)",
// taken as proportional (docs/kernels.md §2).
struct Tile {
    int m;
    int n;
    double reuse;
};
constexpr double kLargeReuse = 128.0 * 256.0 / (128.0 + 256.0);
constexpr Tile kTiles[] = {
    { 128, 256, 1.0 },
    { 256, 128, 1.0 },
    { 128, 128, 128.0 * 128.0 / 256.0 / kLargeReuse },
    { 128, 64, 128.0 * 64.0 / 192.0 / kLargeReuse },
    { 64, 128, 128.0 * 64.0 / 192.0 / kLargeReuse },
    { 64, 64, 64.0 * 64.0 / 128.0 / kLargeReuse },
};
constexpr int kSplits[] = { 1, 2, 4, 8 };
constexpr double kMinSplitK = 256; // a k slice shorter than 4 of the 64-deep k-steps is not split further
// A smaller tile reuses at most 3/4 of what the largest does: it can only win where the largest
// leaves SMs idle (under one wave) or pads more than a quarter of its tiles.
constexpr double kSmallTileReuse = 0.75;

double ceilDiv(double a, double b)
{
    return std::ceil(a / b);
}

} // namespace

int presetSmCount(const std::string& gpuName)
{
    // A100: NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020). H100 SXM5: NVIDIA H100
    // Tensor Core GPU Architecture whitepaper (2022; the PCIe card has 114, no preset); the H800
    // SXM5 is that die with fewer NVLink lanes; torchtitan's 96 GB H100: assumed the SXM5 part's
    // (its page names none). B200: 2 dies x 74 enabled SMs (Chips and Cheese, "Nvidia's B200:
    // Keeping the CUDA Juggernaut Rolling", 2025). L40S: NVIDIA L40S datasheet, 568 tensor cores,
    // 4 per SM. V100 SXM2: NVIDIA Tesla V100 GPU Architecture whitepaper (2017), 80 SMs of the
    // GV100's 84. Kept beside the shape rules rather than in GpuDescription so that cluster files and
    // the presets' figures stay as they are; a GPU of another name has none.
    struct Entry {
        const char* name;
        int sms;
    };
    static constexpr Entry kSms[] = {
        { "a100-40gb", 108 },
        { "a100-80gb", 108 },
        { "h100-80gb", 132 },
        { "h800-80gb", 132 },
        { "h100-96gb", 132 },
        { "h200-141gb", 132 },
        { "b200-192gb", 148 },
        { "gb200-186gb", 148 },
        { "l40s-48gb", 142 },
        { "v100-32gb", 80 },
        { "v100-16gb", 80 },
    };
    for (const Entry& entry : kSms) {
        if (gpuName == entry.name)
            return entry.sms;
    }
    return 0;
}

GemmTiling gemmTiling(
    double m, double n, double k, int smCount, double groups, double tileFixedK, double splitReduceCost)
{
    GemmTiling best;
    if (smCount <= 0 || !(m > 0) || !(n > 0) || !(k > 0) || !(groups > 0))
        return best;
    const double sms = smCount;
    const double useful = groups * m * n * k; // multiply-adds
    best.efficiency = 0;
    auto consider = [&](const Tile& tile, int split) {
        const double ctas = groups * ceilDiv(m, tile.m) * ceilDiv(n, tile.n) * split;
        const double waves = std::max(1.0, ctas / sms);
        const double slice = ceilDiv(k, split);
        // SM time of the launch (in multiply-adds at the full-wave rate), summed over the SMs, and
        // the reduction of the extra partial sums.
        const double occupied = waves * sms * tile.m * tile.n * (slice + tileFixedK) / tile.reuse
            + (split - 1) * groups * m * n * splitReduceCost;
        const double efficiency = useful / occupied;
        if (efficiency > best.efficiency) {
            best.tile_m = tile.m;
            best.tile_n = tile.n;
            best.split_k = split;
            best.waves = waves;
            best.efficiency = efficiency;
        }
    };
    // The search's hot path: most GEMMs of large models fill whole waves of the largest tile with
    // little padding, and need no other candidate.
    const double largeCtas = groups * std::min(ceilDiv(m, 128) * ceilDiv(n, 256), ceilDiv(m, 256) * ceilDiv(n, 128));
    const double largePadding = std::max(m * n / (ceilDiv(m, 128) * 128 * ceilDiv(n, 256) * 256),
        m * n / (ceilDiv(m, 256) * 256 * ceilDiv(n, 128) * 128));
    const bool largeOnly = largeCtas >= sms && largePadding >= kSmallTileReuse;
    const std::size_t tiles = largeOnly ? 2 : std::size(kTiles);
    for (std::size_t t = 0; t < tiles; ++t) {
        const Tile& tile = kTiles[t];
        const double ctas = groups * ceilDiv(m, tile.m) * ceilDiv(n, tile.n);
        for (int split : kSplits) {
            // cuBLAS splits k only to fill idle SMs, and not into slices shorter than a few k-steps.
            if (split > 1 && (ctas * split / 2 >= sms || k / split < kMinSplitK))
                break;
            consider(tile, split);
        }
    }
    return best;
}

double flashAttentionOccupancy(double batchHeads, double queries, double keys, bool causal, int smCount)
{
    if (smCount <= 0 || !(batchHeads > 0) || !(queries > 0) || !(keys > 0))
        return 1;
    // FlashAttention-2 (Dao 2023, §3.2): one thread block per (batch, head, block of queries);
    // 128-row query blocks and 128-column key blocks for head dimension 128 on A100/H100.
    constexpr double kBlock = 128;
    const double sms = smCount;
    const double ctas = batchHeads * ceilDiv(queries, kBlock);
    if (!causal)
        return ctas / (ceilDiv(ctas, sms) * sms);
    // Causal: the CTA of the last query block visits every key block, the average one half of
    // them; longest first, the launch lasts max(average load per SM, the longest CTA).
    const double occupancy = std::min(1.0, ctas / (2 * sms));
    // The blocks on the diagonal are computed whole and masked: 1 + block/keys of the triangle.
    const double diagonal = 1 / (1 + kBlock / keys);
    return occupancy * diagonal;
}

namespace {

// The search costs the same few shapes over and over (candidates that differ in DP or PP only):
// a small per-thread memo of gemmTiling, a pure function, keeps it off the hot path. Results do
// not depend on what the memo holds.
GemmTiling cachedGemmTiling(double m, double n, double k, int sms, double groups, double tileFixedK, double reduceCost)
{
    struct Entry {
        double m = -1, n = 0, k = 0, groups = 0, tileFixedK = 0, reduceCost = 0;
        int sms = 0;
        GemmTiling tiling;
    };
    constexpr std::size_t kEntries = 512;
    thread_local std::array<Entry, kEntries> memo;
    std::uint64_t h = 1469598103934665603ull;
    for (double v : { m, n, k, groups, tileFixedK, reduceCost, double(sms) }) {
        h ^= std::bit_cast<std::uint64_t>(v);
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    Entry& entry = memo[h % kEntries];
    if (entry.m == m && entry.n == n && entry.k == k && entry.groups == groups && entry.tileFixedK == tileFixedK
        && entry.reduceCost == reduceCost && entry.sms == sms)
        return entry.tiling;
    entry = { m, n, k, groups, tileFixedK, reduceCost, sms, gemmTiling(m, n, k, sms, groups, tileFixedK, reduceCost) };
    return entry.tiling;
}

} // namespace

double gemmKernelS(const HardwareModel& hw, double m, double n, double k, bool fp8, double groups)
{
    if (m <= 0 || n <= 0 || k <= 0 || groups <= 0)
        return 0;
    const GpuDescription& gpu = hw.cluster().gpu;
    const Efficiency& e = hw.efficiency();
    const double hbmBytesPerS = gpu.hbm_gb_per_s * 1e9 * e.hbm;
    // FP8 on the same output tiles and waves as BF16 (cuBLAS's sm90 FP8 kernels tile C alike; a
    // k-step is 128 one-byte elements deep instead of 64 two-byte ones), at fp8_speedup times the
    // BF16 full-wave rate: the datasheet's FP8 tensor-core peak is 2x BF16's on Hopper and
    // Blackwell, the H200's measured large GEMMs reach 1.85x (docs/kernels.md §8).
    // A tile's fixed cost is a time: in k-elements it is fp8_speedup times longer at FP8's rate.
    const double rateScale = fp8 ? e.fp8_speedup : 1.0;
    const double fullWaveFlops = gpu.peak_tflops * 1e12 * e.gemm * rateScale;
    // One extra fp32 partial of split-K, written and read back (8 bytes an element), in
    // multiply-adds of the whole GPU at the full-wave rate.
    const double macsPerByte = fullWaveFlops / 2 / hbmBytesPerS;
    const GemmTiling tiling
        = cachedGemmTiling(m, n, k, presetSmCount(gpu.name), groups, e.gemm_half_dim * rateScale, 8 * macsPerByte);
    // Operands in their own width (FP8: one byte), the output in 16 bits either way.
    const double elementBytes = fp8 ? 1.0 : 2.0;
    const double bytes = groups * (elementBytes * (m * k + k * n) + 2.0 * m * n);
    // The tensor cores at the job's slowest GPU's clock (gpu_speed_spread.h); HBM traffic is not clocked
    // with them.
    return hw.slowestGpuFactor() * groups * 2.0 * m * n * k / (fullWaveFlops * tiling.efficiency)
        + bytes / hbmBytesPerS;
}

double groupedGemmS(const HardwareModel& hw, double m, double n, double k, bool fp8, double groups)
{
    const double kernel = gemmKernelS(hw, m, n, k, fp8, groups);
    if (!fp8 || kernel <= 0)
        return kernel;
    // Each group's 16-bit input quantized before its GEMM (TE's GroupedLinear quantizes the
    // experts' inputs one split at a time under per-tensor scaling: split_quantize, UNFUSED,
    // transformer_engine/pytorch/csrc/extensions/cast.cpp @ d0067d0d). The weights' casts are
    // cached across a step's micro-batches (is_first_microbatch) and not counted.
    return kernel + groups * fp8QuantizeS(hw, m * k, kAssumedFp8Scaling);
}

double flashAttentionS(
    const HardwareModel& hw, double forwardFlops, double batchHeads, double queries, double keys, bool causal)
{
    const int sms = presetSmCount(hw.cluster().gpu.name);
    return hw.attentionS(forwardFlops) / flashAttentionOccupancy(batchHeads, queries, keys, causal, sms);
}

} // namespace stratex::hardware
