// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/synthesis_settings.h"

#include "core/common/input_limits.h"
#include "core/model/model_setting_rows.h"

namespace stratex::profile::synth {

namespace {

using settings::row;
using settings::Setting;
using settings::SettingKind;
using settings::SettingSpec;
using settings::SettingValue;
using S = SynthesisSettings;

constexpr std::string_view kPreset = "from the preset";

SettingSpec spec(std::string_view flag, std::string_view group, std::string_view label, SettingKind kind,
    std::string_view valueName, double minimum, double maximum, std::string_view help)
{
    return settings::settingSpec(kind, flag, group, label, valueName, help, minimum, maximum);
}

SettingSpec fromPreset(SettingSpec s)
{
    s.defaultText = kPreset;
    return s;
}

std::vector<std::string_view> gpuPresetNames()
{
    std::vector<std::string_view> names;
    for (const hardware::GpuDescription& preset : hardware::gpuPresets())
        names.push_back(preset.name);
    return names;
}

std::vector<Setting<S>> rows()
{
    static constexpr std::string_view gpu = "GPU"; // static: clang 14 will not capture a local in the lambdas
    static constexpr std::string_view cluster = "Cluster";
    constexpr auto Integer = SettingKind::Integer;
    constexpr auto Real = SettingKind::Real;

    SettingSpec gpuSpec = spec("gpu", gpu, "GPU", SettingKind::Choice, "", 0, 0, "GPU and interconnect datasheet.");
    gpuSpec.choices = gpuPresetNames();

    std::vector<Setting<S>> rows = model::modelSettingRows(&S::model_preset, &S::model, model::modelFlags(), kPreset);
    std::vector<Setting<S>> hardware {
        { gpuSpec, [](const S& s) { return SettingValue(s.gpu_preset); },
            [](S& s, const SettingValue& value) {
                s.gpu_preset = std::get<std::string>(value);
                s.cluster.gpu = hardware::gpuPreset(s.gpu_preset);
            } },
        row(fromPreset(spec("peak-tflops", gpu, "Peak TFLOP/s", Real, "T", 1, 1e5, "Dense bf16 tensor peak, TFLOP/s.")),
            &S::cluster, &hardware::ClusterDescription::gpu, &hardware::GpuDescription::peak_tflops),
        row(fromPreset(spec("matmul-efficiency", gpu, "GEMM efficiency", Real, "E", 0.01, 1,
                "Fraction of peak a large GEMM reaches.")),
            &S::cluster, &hardware::ClusterDescription::gpu, &hardware::GpuDescription::matmul_efficiency),
        row(fromPreset(spec("gpu-memory-gb", gpu, "Memory (GB)", Real, "GB", 1, limits::kMaxGpuMemoryGb,
                "Memory per GPU: the search's memory per GPU unless it is given --memory-constraint.")),
            &S::cluster, &hardware::ClusterDescription::gpu, &hardware::GpuDescription::memory_gb),
        // One NVLink figure: all-reduce bus bandwidth and send/recv inside a node alike.
        { fromPreset(spec(
              "nvlink-gbps", gpu, "NVLink GB/s", Real, "GB/s", 0.1, 1e5, "All-reduce bus bandwidth inside a node.")),
            [](const S& s) { return SettingValue(s.cluster.gpu.intra_node_bus_gb_per_s); },
            [](S& s, const SettingValue& value) {
                s.cluster.gpu.intra_node_bus_gb_per_s = std::get<double>(value);
                s.cluster.gpu.intra_node_p2p_gb_per_s = std::get<double>(value);
            } },
        row(fromPreset(
                spec("network-gbps", gpu, "Network GB/s", Real, "GB/s", 0.1, 1e5, "Inter-node bandwidth per GPU.")),
            &S::cluster, &hardware::ClusterDescription::gpu, &hardware::GpuDescription::network_gb_per_s_per_gpu),
        row(spec("num-nodes", cluster, "Nodes", Integer, "N", 1, limits::kMaxNodes, "Nodes (a power of two)."),
            &S::cluster, &hardware::ClusterDescription::num_nodes),
        row(spec("num-gpus-per-node", cluster, "GPUs per node", Integer, "G", 1, limits::kMaxGpusPerNode,
                "GPUs per node (a power of two)."),
            &S::cluster, &hardware::ClusterDescription::gpus_per_node),
        [] {
            SettingSpec precision
                = spec("mixed-precision", cluster, "Precision", SettingKind::Choice, "", 0, 0, "Training precision.");
            precision.choices = { "bf16", "fp16", "fp32" };
            return row(precision, &S::precision);
        }(),
    };
    rows.insert(rows.end(), hardware.begin(), hardware.end());
    return rows;
}

} // namespace

const settings::SettingTable<SynthesisSettings>& synthesisSettingTable()
{
    static const settings::SettingTable<SynthesisSettings> table(rows());
    return table;
}

} // namespace stratex::profile::synth
