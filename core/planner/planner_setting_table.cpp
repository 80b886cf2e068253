// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_setting_table.h"

#include "core/common/input_limits.h"

namespace stratex::planner {

namespace {

using settings::row;
using settings::SettingKind;
using settings::SettingSpec;
using C = PlannerConfig;

constexpr std::string_view kPipeline = "Pipeline";
constexpr std::string_view kNetwork = "Network";
constexpr double kMaxHidden = 1 << 20;
constexpr double kMaxGbps = 1e6; // 1 Pbit/s: beyond any link
constexpr double kMaxLatencyUs = 1e6; // a second

SettingSpec integer(std::string_view flag, std::string_view label, std::string_view valueName, double minimum,
    double maximum, std::string_view help)
{
    return settings::settingSpec(SettingKind::Integer, flag, kPipeline, label, valueName, help, minimum, maximum);
}

SettingSpec required(SettingSpec spec)
{
    spec.required = true;
    return spec;
}

SettingSpec network(SettingKind kind, std::string_view flag, std::string_view label, std::string_view valueName,
    double maximum, std::string_view help)
{
    return settings::settingSpec(kind, flag, kNetwork, label, valueName, help, 0, maximum);
}

std::vector<settings::Setting<C>> rows()
{
    SettingSpec memory = required(integer(
        "memory-mb", "Memory (MB)", "M", 1, limits::kMaxPlannerMemoryMb, "Device memory limit in MB of 1e6 bytes."));
    memory.kind = SettingKind::Real;

    SettingSpec mode = settings::settingSpec(SettingKind::Choice, "mode", kPipeline, "Mode", "",
        "Search effort: normal tries every schedule and recompute type, fast far fewer; auto is fast above 134 "
        "micro-batches, where both modes' plans were measured equal (docs/dynapipe-planner.md §11).");
    mode.defaultText = "STRATEX_FAST_MODE=1 means fast, else auto";

    return {
        row(integer("tp", "TP", "T", 1, 1024, "Tensor-parallel size; the cost model must have profiles for it."),
            &C::tp),
        row(required(integer("stages", "Stages", "P", 1, 1024, "Pipeline stages: the devices of one pipeline.")),
            &C::num_stages),
        row(required(integer(
                "layers-per-stage", "Layers per stage", "L", 1, 1024, "Transformer layers per pipeline stage.")),
            &C::layers_per_stage),
        row(integer("dp", "DP groups", "D", 1, 4096,
                "Data-parallel groups the micro-batches are split over; each is planned on its own."),
            &C::dp_size),
        row(integer(
                "chunks", "Chunks per device", "C", 1, 64, "Stages per device; how they sit when > 1: --placement."),
            &C::chunks_per_device),
        settings::choiceRow(settings::settingSpec(SettingKind::Choice, "placement", kPipeline, "Chunk placement", "",
                                "Where a device's chunks sit when chunks > 1: interleaved (the device cycle "
                                "repeated, interleaved 1F1B) or v (chunks 2: devices 0..P-1, then back P-1..0; "
                                "DualPipeV)."),
            &C::placement, chunkPlacementName, { ChunkPlacement::Interleaved, ChunkPlacement::V }),
        row(memory, &C::device_memory_mb),
        settings::choiceRow(
            mode, &C::mode, plannerModeName, { PlannerMode::Normal, PlannerMode::Fast, PlannerMode::Auto }),
        row(integer("seed", "Permutation seed", "S", 0, 2147483647, "Seed of the micro-batch permutations."), &C::seed),
        row(network(SettingKind::Integer, "hidden-size", "Hidden size", "H", kMaxHidden,
                "Hidden size of the activation messages between stages (tokens x micro-batch size x H x 2 bytes); "
                "0: the cost model's (its hidden_size, or \"hidden N\" in its model name)."),
            &C::hidden_size),
        row(network(SettingKind::Integer, "gpus-per-node", "GPUs per node", "G", 4096,
                "GPUs per node: stages on different nodes talk over the inter-node link (stage d of DP group g "
                "starts at rank (d*dp+g)*tp). 0: all stages on one node."),
            &C::gpus_per_node),
        row(network(SettingKind::Real, "intra-node-gbps", "Intra-node Gbit/s", "BW", kMaxGbps,
                "Point-to-point bandwidth between GPUs of one node, Gbit/s; 0: infinitely fast."),
            &C::comm, &sim::CommModel::intra_node_bw_gbps),
        row(network(SettingKind::Real, "inter-node-gbps", "Inter-node Gbit/s", "BW", kMaxGbps,
                "Point-to-point bandwidth between GPUs of different nodes, Gbit/s; 0: infinitely fast."),
            &C::comm, &sim::CommModel::inter_node_bw_gbps),
        row(network(SettingKind::Real, "intra-node-latency-us", "Intra-node latency (us)", "US", kMaxLatencyUs,
                "Latency of one transfer inside a node, microseconds."),
            &C::comm, &sim::CommModel::intra_node_lat_us),
        row(network(SettingKind::Real, "inter-node-latency-us", "Inter-node latency (us)", "US", kMaxLatencyUs,
                "Latency of one transfer between nodes, microseconds."),
            &C::comm, &sim::CommModel::inter_node_lat_us),
    };
}

} // namespace

const settings::SettingTable<PlannerConfig>& plannerSettingTable()
{
    static const settings::SettingTable<PlannerConfig> table(rows());
    return table;
}

} // namespace stratex::planner
