// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/synthesis_settings.h"

#include "core/common/input_limits.h"

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

template <typename Presets> std::vector<std::string_view> presetNames(const Presets& presets)
{
    std::vector<std::string_view> names;
    for (const auto& preset : presets)
        names.push_back(preset.name);
    return names;
}

std::vector<Setting<S>> rows()
{
    static constexpr std::string_view model = "Model";
    static constexpr std::string_view gpu = "GPU";
    static constexpr std::string_view cluster = "Cluster";
    constexpr auto Integer = SettingKind::Integer;
    constexpr auto Real = SettingKind::Real;

    SettingSpec modelSpec
        = spec("model", model, "Model", SettingKind::Choice, "", 0, 0, "Start from a published model shape.");
    modelSpec.choices = presetNames(model::modelPresets());
    SettingSpec gpuSpec = spec("gpu", gpu, "GPU", SettingKind::Choice, "", 0, 0, "GPU and interconnect datasheet.");
    gpuSpec.choices = presetNames(gpuPresets());

    return {
        { modelSpec, [](const S& s) { return SettingValue(s.model_preset); },
            [](S& s, const SettingValue& value) {
                s.model_preset = std::get<std::string>(value);
                s.model = model::modelPreset(s.model_preset);
            } },
        row(fromPreset(
                spec("name", model, "Name", SettingKind::Text, "NAME", 0, 0, "Model name used in the file names.")),
            &S::model, &model::ModelDescription::name),
        row(fromPreset(spec("num-layers", model, "Layers", Integer, "L", 1, limits::kMaxLayers, "Transformer layers.")),
            &S::model, &model::ModelDescription::num_layers),
        row(fromPreset(spec("hidden-size", model, "Hidden size", Integer, "H", 1, 1 << 20, "Hidden size.")), &S::model,
            &model::ModelDescription::hidden_size),
        row(fromPreset(spec("ffn-hidden-size", model, "MLP size", Integer, "F", 1, 1 << 22, "MLP intermediate size.")),
            &S::model, &model::ModelDescription::ffn_hidden_size),
        // Changing the head count of an MHA model keeps it MHA unless kv heads are given (next row).
        { fromPreset(spec("num-heads", model, "Attention heads", Integer, "A", 1, 4096, "Attention heads.")),
            [](const S& s) { return SettingValue(std::int64_t(s.model.num_heads)); },
            [](S& s, const SettingValue& value) {
                const int heads = int(std::get<std::int64_t>(value));
                if (s.model.num_kv_heads == s.model.num_heads)
                    s.model.num_kv_heads = heads;
                s.model.num_heads = heads;
            } },
        row(fromPreset(spec("num-kv-heads", model, "Key/value heads", Integer, "K", 1, 4096,
                "Key/value heads (grouped-query attention).")),
            &S::model, &model::ModelDescription::num_kv_heads),
        row(fromPreset(spec("vocab-size", model, "Vocabulary", Integer, "V", 1, 1 << 24, "Vocabulary size.")),
            &S::model, &model::ModelDescription::vocab_size),
        row(fromPreset(spec("seq-length", model, "Sequence length", Integer, "S", 1, 1 << 22,
                "Sequence length the search will use.")),
            &S::model, &model::ModelDescription::seq_length),
        [] {
            SettingSpec mlp = fromPreset(
                spec("mlp", model, "MLP", SettingKind::Choice, "", 0, 0, "SwiGLU (three matrices) or GeLU (two) MLP."));
            mlp.choices = { model::mlpKindName(model::MlpKind::Gated), model::mlpKindName(model::MlpKind::Plain) };
            return Setting<S> { mlp, [](const S& s) { return SettingValue(std::string(model::mlpKindName(s.model.mlp))); },
                [](S& s, const SettingValue& value) {
                    s.model.mlp = model::parseMlpKind(std::get<std::string>(value)).value_or(model::MlpKind::Gated);
                } };
        }(),
        { gpuSpec, [](const S& s) { return SettingValue(s.gpu_preset); },
            [](S& s, const SettingValue& value) {
                s.gpu_preset = std::get<std::string>(value);
                s.cluster.gpu = gpuPreset(s.gpu_preset);
            } },
        row(fromPreset(spec("peak-tflops", gpu, "Peak TFLOP/s", Real, "T", 1, 1e5, "Dense bf16 tensor peak, TFLOP/s.")),
            &S::cluster, &ClusterDescription::gpu, &GpuDescription::peak_tflops),
        row(fromPreset(spec("matmul-efficiency", gpu, "GEMM efficiency", Real, "E", 0.01, 1,
                "Fraction of peak a large GEMM reaches.")),
            &S::cluster, &ClusterDescription::gpu, &GpuDescription::matmul_efficiency),
        row(fromPreset(spec("gpu-memory-gb", gpu, "Memory (GB)", Real, "GB", 1, limits::kMaxGpuMemoryGb,
                "Memory per GPU: the search's memory per GPU unless it is given --memory-constraint.")),
            &S::cluster, &ClusterDescription::gpu, &GpuDescription::memory_gb),
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
            &S::cluster, &ClusterDescription::gpu, &GpuDescription::network_gb_per_s_per_gpu),
        row(spec("num-nodes", cluster, "Nodes", Integer, "N", 1, limits::kMaxNodes, "Nodes (a power of two)."),
            &S::cluster, &ClusterDescription::num_nodes),
        row(spec("num-gpus-per-node", cluster, "GPUs per node", Integer, "G", 1, limits::kMaxGpusPerNode,
                "GPUs per node (a power of two)."),
            &S::cluster, &ClusterDescription::gpus_per_node),
        [] {
            SettingSpec precision
                = spec("mixed-precision", cluster, "Precision", SettingKind::Choice, "", 0, 0, "Training precision.");
            precision.choices = { "bf16", "fp16", "fp32" };
            return row(precision, &S::precision);
        }(),
    };
}

} // namespace

const settings::SettingTable<SynthesisSettings>& synthesisSettingTable()
{
    static const settings::SettingTable<SynthesisSettings> table(rows());
    return table;
}

} // namespace stratex::profile::synth
