// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/gpu_support.h"

#include <array>
#include <string_view>

#include "core/hardware/attention_kernels.h"

namespace stratex::megatron {

namespace {

std::string capabilityText(ComputeCapability cc)
{
    return std::to_string(cc.major) + "." + std::to_string(cc.minor);
}

} // namespace

std::optional<ComputeCapability> gpuComputeCapability(const std::string& gpuName)
{
    // CUDA C Programming Guide, "Compute Capabilities" table: Tesla V100 7.0, A100 8.0, L40S 8.9,
    // H100 / H800 / H200 9.0, B200 and GB200 10.0.
    struct Chip {
        std::string_view prefix;
        ComputeCapability cc;
    };
    static constexpr std::array<Chip, 8> chips = { {
        { "v100", { 7, 0 } },
        { "a100", { 8, 0 } },
        { "l40s", { 8, 9 } },
        { "h100", { 9, 0 } },
        { "h800", { 9, 0 } },
        { "h200", { 9, 0 } },
        { "b200", { 10, 0 } },
        { "gb200", { 10, 0 } },
    } };
    for (const Chip& chip : chips)
        if (std::string_view(gpuName).substr(0, chip.prefix.size()) == chip.prefix)
            return chip.cc;
    return std::nullopt;
}

bool gpuRunsFp8(const std::string& gpuName)
{
    // transformer_engine/pytorch/quantization.py _compute_fp8_support @ d0067d0d: True from (9, 0);
    // False below (8, 9); Ada (8.9) with cuBLASLt 12.1.3 and CUDA 12.1.
    const std::optional<ComputeCapability> cc = gpuComputeCapability(gpuName);
    return !cc || *cc >= ComputeCapability { 8, 9 };
}

std::vector<std::string> gpuSupportProblems(const ParallelStrategy& s, const std::string& gpuName)
{
    std::vector<std::string> problems;
    if (hardware::isVoltaGpu(gpuName) && s.precision != Precision::Fp16)
        problems.push_back("precision " + std::string(precisionName(s.precision)) + " on " + gpuName
            + ": Volta (sm70) has FP16 tensor cores only (no BF16, no FP8); use precision fp16 (search/evaluate --precision fp16; Megatron-LM and DeepSpeed --fp16)");
    else if (s.precision == Precision::Fp8 && !gpuRunsFp8(gpuName))
        problems.push_back("precision fp8 on " + gpuName + ": compute capability "
            + capabilityText(*gpuComputeCapability(gpuName))
            + " has no FP8 tensor cores (BF16 and FP16 only; Transformer Engine runs FP8 from compute capability "
              "8.9: Ada, Hopper, Blackwell); use precision bf16 (search/evaluate --precision bf16)");
    // The block-scaled recipes' GPUs (transformer_engine/pytorch/quantization.py @ d0067d0d):
    // _compute_mxfp8_support "compute capability 10.0 or higher" and "not supported on 12.0+";
    // _compute_fp8_block_scaling_support "compute capability 9.0 or higher".
    const std::optional<ComputeCapability> cc = gpuComputeCapability(gpuName);
    if (s.precision == Precision::Fp8 && cc && gpuRunsFp8(gpuName)) {
        const Fp8Recipe recipe = resolvedFp8Recipe(s);
        if (recipe == Fp8Recipe::Mxfp8 && !(*cc >= ComputeCapability { 10, 0 } && *cc < ComputeCapability { 12, 0 }))
            problems.push_back("fp8_recipe mxfp8 on " + gpuName + ": compute capability " + capabilityText(*cc)
                + "; Transformer Engine runs MXFP8 on Blackwell (10.x) only; use fp8_recipe tensorwise or delayed");
        if (recipe == Fp8Recipe::Blockwise && *cc < ComputeCapability { 9, 0 })
            problems.push_back("fp8_recipe blockwise on " + gpuName + ": compute capability " + capabilityText(*cc)
                + "; Transformer Engine's block-scaled FP8 GEMMs need 9.0 or newer; use fp8_recipe tensorwise or delayed");
    }
    if (s.flash_attention && !hardware::attentionKernelRunsOn(s.attention_kernel, gpuName))
        problems.push_back("attention kernel " + std::string(hardware::attentionKernelName(s.attention_kernel)) + " on "
            + gpuName + ": flash-attention and cuDNN fused attention need Ampere (sm80) or newer; use "
                        "attention_kernel default or unfused");
    return problems;
}

} // namespace stratex::megatron
