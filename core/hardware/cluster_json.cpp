// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/cluster_json.h"

#include <sstream>

#include "core/common/error.h"
#include "core/common/input_limits.h"

namespace stratex::hardware {

namespace {

struct GpuField {
    const char* key;
    double GpuDescription::*member;
    // The physical range (issue 26: 1e-300 TFLOP/s gave "iteration inf s" and "fits": true): from
    // below the smallest part Stratex could plan for to far above the largest built (B200: 2,250
    // dense BF16 TFLOP/s, 8,000 GB/s HBM, 900 GB/s NVLink; 1 Gbit/s Ethernet is 0.125 GB/s).
    double min;
    double max;
};

constexpr GpuField kGpuFields[] = {
    { "peak_tflops", &GpuDescription::peak_tflops, 1, 1e5 },
    { "memory_gb", &GpuDescription::memory_gb, 0.1, 4096 },
    { "hbm_gb_per_s", &GpuDescription::hbm_gb_per_s, 10, 1e5 },
    { "matmul_efficiency", &GpuDescription::matmul_efficiency, 0.01, 1 },
    { "intra_node_bus_gb_per_s", &GpuDescription::intra_node_bus_gb_per_s, 0.01, 1e5 },
    { "intra_node_p2p_gb_per_s", &GpuDescription::intra_node_p2p_gb_per_s, 0.01, 1e5 },
    { "network_gb_per_s_per_gpu", &GpuDescription::network_gb_per_s_per_gpu, 0.01, 1e5 },
    { "overlap_slowdown", &GpuDescription::overlap_slowdown, 1, 100 },
};

GpuDescription presetNamed(const JsonView& name)
{
    try {
        return gpuPreset(name.string());
    } catch (const InputError&) {
        throw;
    } catch (const Error& error) {
        name.fail(std::string("a GPU preset; ") + error.what());
    }
}

std::string efficiencyKeyList()
{
    std::string list;
    for (const EfficiencyField& field : efficiencyFields())
        list += (list.empty() ? "" : ", ") + std::string(field.key);
    return list;
}

GpuDescription readGpu(const JsonView& value)
{
    if (value.isString())
        return presetNamed(value);
    value.requireObject();
    GpuDescription gpu;
    const std::optional<JsonView> preset = value.find("preset");
    if (preset)
        gpu = presetNamed(*preset);
    if (const std::optional<JsonView> name = value.find("name"))
        gpu.name = name->string();
    else if (!preset)
        value.failMissing("name");
    for (const GpuField& field : kGpuFields) {
        if (const std::optional<JsonView> figure = value.find(field.key)) {
            gpu.*field.member = figure->positiveNumber();
            if (!(gpu.*field.member >= field.min && gpu.*field.member <= field.max)) {
                std::ostringstream range;
                range << "a number from " << field.min << " to " << field.max << " (a physical GPU)";
                figure->fail(range.str());
            }
        }
        else if (!preset)
            value.failMissing(field.key);
    }
    try {
        gpu.validate();
    } catch (const Error& error) {
        value.fail(std::string("valid GPU figures (") + error.what() + ")");
    }
    return gpu;
}

} // namespace

Efficiency readEfficiency(const JsonView& object)
{
    object.requireObject();
    for (const auto& [key, value] : object.members()) {
        if (!findEfficiencyField(key) || key != findEfficiencyField(key)->key)
            value.fail("one of the efficiency keys (" + efficiencyKeyList() + "), not \"" + key + "\"");
    }
    Efficiency efficiency;
    for (const EfficiencyField& field : efficiencyFields()) {
        const JsonView value = object[field.key];
        const double number = value.number();
        if (!inRange(field, number))
            value.fail(rangeText(field));
        efficiency.*field.member = number;
    }
    return efficiency;
}

nlohmann::ordered_json toJson(const Efficiency& efficiency)
{
    nlohmann::ordered_json json = nlohmann::ordered_json::object();
    for (const EfficiencyField& field : efficiencyFields())
        json[field.key] = efficiency.*field.member;
    return json;
}

namespace {

// The optional "topology" object of a cluster: every key optional, defaults from the GPU preset.
NodeTopology readTopology(const JsonView& object, const GpuDescription& gpu)
{
    object.requireObject();
    NodeTopology topology = defaultTopology(gpu);
    for (const auto& [key, value] : object.members()) {
        if (key == "nvlink_domain_gpus")
            topology.nvlink_domain_gpus = value.positiveInt();
        else if (key == "nics_per_node")
            topology.nics_per_node = value.positiveInt();
        else if (key == "rail_optimized")
            topology.rail_optimized = value.boolean();
        else if (key == "nvlink_sharp")
            topology.nvlink_sharp = value.boolean();
        else if (key == "host_link_gb_per_s") {
            const double rate = value.number();
            if (!(rate >= 0.1 && rate <= 1e4))
                value.fail("a number from 0.1 to 10000 (GB/s between a GPU and its host, one direction)");
            topology.host_link_gb_per_s = rate;
        }
        else
            value.fail("one of the topology keys (nvlink_domain_gpus, nics_per_node, rail_optimized, nvlink_sharp, "
                       "host_link_gb_per_s), not \""
                + key + "\"");
    }
    return topology;
}

} // namespace

nlohmann::ordered_json toJson(const ClusterDescription& cluster)
{
    nlohmann::ordered_json gpu = { { "name", cluster.gpu.name } };
    for (const GpuField& field : kGpuFields)
        gpu[field.key] = cluster.gpu.*field.member;
    nlohmann::ordered_json json
        = { { "num_nodes", cluster.num_nodes }, { "gpus_per_node", cluster.gpus_per_node }, { "gpu", gpu } };
    if (cluster.efficiency)
        json["efficiency"] = toJson(*cluster.efficiency);
    if (cluster.topology) {
        const NodeTopology& t = *cluster.topology;
        nlohmann::ordered_json topology
            = { { "rail_optimized", t.rail_optimized }, { "nvlink_sharp", t.nvlink_sharp } };
        if (t.nvlink_domain_gpus > 0)
            topology["nvlink_domain_gpus"] = t.nvlink_domain_gpus;
        if (t.nics_per_node > 0)
            topology["nics_per_node"] = t.nics_per_node;
        topology["host_link_gb_per_s"] = t.host_link_gb_per_s;
        json["topology"] = topology;
    }
    return json;
}

ClusterDescription readClusterFile(const std::filesystem::path& file)
{
    const JsonDocument document = JsonDocument::load(file);
    const JsonView root = document.root();
    root.requireObject();
    if (const std::optional<JsonView> cluster = root.find("cluster"))
        return readCluster(*cluster);
    return readCluster(root);
}

ClusterDescription readCluster(const JsonView& object)
{
    object.requireObject();
    ClusterDescription cluster;
    cluster.gpu = readGpu(object["gpu"]);
    cluster.num_nodes = object["num_nodes"].positiveInt();
    cluster.gpus_per_node = object["gpus_per_node"].positiveInt();
    // The flags' bounds: 2^31 nodes ended in "no strategy fits" without naming /num_nodes (issue 26).
    if (cluster.num_nodes > limits::kMaxNodes)
        object["num_nodes"].fail("a positive integer of at most " + std::to_string(limits::kMaxNodes));
    if (cluster.gpus_per_node > limits::kMaxGpusPerNode)
        object["gpus_per_node"].fail("a positive integer of at most " + std::to_string(limits::kMaxGpusPerNode));
    if (const std::optional<JsonView> efficiency = object.find("efficiency"))
        cluster.efficiency = readEfficiency(*efficiency);
    if (const std::optional<JsonView> topology = object.find("topology"))
        cluster.topology = readTopology(*topology, cluster.gpu);
    return cluster;
}

} // namespace stratex::hardware
