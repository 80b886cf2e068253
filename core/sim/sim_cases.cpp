// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sim_cases.h"

#include <cmath>
#include <limits>

#include "core/common/error.h"
#include "core/common/input_limits.h"

namespace stratex::sim {

namespace {

// Times in us and memory in MB beyond these are unit mistakes, and their sums would not stay finite.
constexpr double kMaxTimeUs = limits::kMaxLayerTimeMs * 1000;
constexpr double kMaxMb = limits::kMaxProfileMemoryMb;
static_assert(kMaxTimeUs == 1e9 && kMaxMb == 1e7, "the messages of bounded() name these");

double bounded(const JsonView& view, double maximum)
{
    const double value = view.nonNegativeNumber();
    if (value > maximum)
        view.fail(maximum == kMaxTimeUs ? "a time from 0 to 1e9 us" : "a memory size from 0 to 1e7 MB");
    return value;
}

// A number for every layer, or an array with one number per layer; each from 0 to `maximum`.
std::vector<double> perLayer(const JsonView& view, std::size_t layers, double maximum)
{
    if (view.isArray()) {
        if (view.size() != layers)
            view.fail("a number or an array of " + std::to_string(layers) + " numbers (one per layer)");
        std::vector<double> values;
        values.reserve(layers);
        for (const JsonView& element : view.elements())
            values.push_back(bounded(element, maximum));
        return values;
    }
    return std::vector<double>(layers, bounded(view, maximum));
}

std::vector<double> optionalPerLayer(
    const JsonView& view, std::string_view key, std::size_t layers, double fallback, double maximum)
{
    if (const auto found = view.find(key))
        return perLayer(*found, layers, maximum);
    return std::vector<double>(layers, fallback);
}

int integerIn(const JsonView& view, std::int64_t low, std::int64_t high, std::string_view expected)
{
    const std::int64_t value = view.integer();
    if (value < low || value > high)
        view.fail(expected);
    return static_cast<int>(value);
}

MicrobatchSpec readMicrobatch(const JsonView& view, std::size_t layers, int defaultId)
{
    view.requireObject();
    MicrobatchSpec mb;
    mb.id = defaultId;
    if (const auto id = view.find("id"))
        mb.id = integerIn(*id, 0, std::numeric_limits<int>::max(), "a non-negative integer id");
    const std::vector<double> fw = perLayer(view["fw_us_per_layer"], layers, kMaxTimeUs);
    const std::vector<double> bw = perLayer(view["bw_us_per_layer"], layers, kMaxTimeUs);
    const std::vector<double> stored = perLayer(view["stored_mb_per_layer"], layers, kMaxMb);
    const std::vector<double> peak = perLayer(view["peak_mb_per_layer"], layers, kMaxMb);
    const std::vector<double> w = optionalPerLayer(view, "w_us_per_layer", layers, -1, kMaxTimeUs);
    const std::vector<double> wStored = optionalPerLayer(view, "w_stored_mb_per_layer", layers, -1, kMaxMb);
    const std::vector<double> fwComm = optionalPerLayer(view, "fw_comm_mb_per_layer", layers, 0, kMaxMb);
    const std::vector<double> bwComm = optionalPerLayer(view, "bw_comm_mb_per_layer", layers, 0, kMaxMb);
    mb.layers.resize(layers);
    for (std::size_t l = 0; l < layers; ++l) {
        LayerCost& layer = mb.layers[l];
        layer.fw_us = fw[l];
        layer.bw_us = bw[l];
        layer.stored_mb = stored[l];
        layer.peak_mb = peak[l];
        layer.w_us = w[l];
        layer.w_stored_mb = wStored[l];
        layer.fw_comm_mb = fwComm[l];
        layer.bw_comm_mb = bwComm[l];
        if (layer.weightGradUs() > layer.bw_us)
            view["w_us_per_layer"].fail("values no larger than bw_us_per_layer");
        if (layer.weightGradStoredMb() > layer.stored_mb)
            view["w_stored_mb_per_layer"].fail("values no larger than stored_mb_per_layer");
    }
    return mb;
}

CommModel readComm(const JsonView& view, int devices)
{
    view.requireObject();
    CommModel comm;
    if (const auto nodes = view.find("node_of_device")) {
        nodes->requireArray();
        if (nodes->size() != static_cast<std::size_t>(devices))
            nodes->fail("an array of " + std::to_string(devices) + " node ids (one per device)");
        for (const JsonView& node : nodes->elements())
            comm.node_of_device.push_back(integerIn(node, 0, std::numeric_limits<int>::max(), "a node id >= 0"));
    }
    auto number = [&](std::string_view key, double& target) {
        if (const auto found = view.find(key))
            target = found->nonNegativeNumber();
    };
    number("intra_node_bw_gbps", comm.intra_node_bw_gbps);
    number("inter_node_bw_gbps", comm.inter_node_bw_gbps);
    number("intra_node_lat_us", comm.intra_node_lat_us);
    number("inter_node_lat_us", comm.inter_node_lat_us);
    return comm;
}

} // namespace

SimulationCase readSimulationCase(const JsonView& view)
{
    view.requireObject();
    SimulationCase result;
    if (const auto desc = view.find("desc"); desc && desc->isString())
        result.description = desc->string();

    const JsonView scheduleView = view["schedule"];
    const auto schedule = parseScheduleName(scheduleView.string());
    if (!schedule)
        scheduleView.fail("a schedule name (" + knownScheduleNames() + ")");
    result.schedule = *schedule;

    const JsonView assignmentView = view["device_assignment"];
    assignmentView.requireArray();
    for (const JsonView& device : assignmentView.elements())
        result.input.device_assignment.push_back(integerIn(device, 0, 1 << 20, "a device id >= 0"));
    PipelineLayout layout;
    try {
        layout = analyzeAssignment(result.input.device_assignment);
    } catch (const Error& error) {
        throw InputError(view.file(), assignmentView.path(), "a consistent device assignment", error.what());
    }
    const std::string invalid = scheduleInvalidReason(layout, result.schedule);
    if (!invalid.empty())
        throw InputError(view.file(), scheduleView.path(), "a schedule valid for the device assignment", invalid);

    const std::size_t layers = result.input.device_assignment.size();
    const JsonView microbatches = view["microbatches"];
    microbatches.requireArray();
    if (microbatches.size() == 0)
        microbatches.fail("at least one micro-batch");
    // Checked before any per-layer vector is allocated: one number per micro-batch expands to all layers.
    if (std::int64_t(layers) * std::int64_t(microbatches.size()) > limits::kMaxSimLayerCosts)
        microbatches.fail("at most " + std::to_string(limits::kMaxSimLayerCosts)
            + " layer costs (micro-batches x layers; this case has " + std::to_string(layers) + " layers)");
    int index = 0;
    for (const JsonView& mb : microbatches.elements())
        result.input.microbatches.push_back(readMicrobatch(mb, layers, index++));

    if (const auto state = view.find("model_state_mb_per_layer"))
        result.input.model_state_mb_per_layer = perLayer(*state, layers, kMaxMb);
    if (const auto decoder = view.find("first_decoder_layer")) {
        result.input.first_decoder_layer
            = integerIn(*decoder, -1, static_cast<std::int64_t>(layers) - 1, "-1 or a layer index");
    }
    if (const auto comm = view.find("comm"))
        result.input.comm = readComm(*comm, layout.n_devices);
    if (const auto limit = view.find("memory_limit_mb"))
        result.options.memory_limit_mb = limit->positiveNumber();
    if (const auto inflight = view.find("max_inflight_microbatches"))
        result.options.max_inflight_microbatches = inflight->positiveInt();
    if (const auto group = view.find("microbatch_group_size")) {
        result.options.microbatch_group_size = int(integerIn(*group, 1,
            static_cast<std::int64_t>(result.input.microbatches.size()), "a group size from 1 to the micro-batches"));
    }

    const std::string problem = validateSimulationInput(result.input);
    if (!problem.empty())
        throw InputError(view.file(), view.path(), "a consistent simulation case", problem);
    return result;
}

std::vector<SimulationCase> readSimulationCases(const JsonView& root)
{
    root.requireObject();
    const JsonView cases = root["cases"];
    cases.requireArray();
    // The whole file's layer costs, counted before reading any case.
    std::int64_t layerCosts = 0;
    for (const JsonView& element : cases.elements()) {
        const auto assignment = element.find("device_assignment");
        const auto microbatches = element.find("microbatches");
        if (!assignment || !microbatches || !assignment->isArray() || !microbatches->isArray())
            continue; // readSimulationCase names what is missing
        layerCosts += std::int64_t(assignment->size()) * std::int64_t(microbatches->size());
        if (layerCosts > limits::kMaxSimLayerCosts)
            microbatches->fail("at most " + std::to_string(limits::kMaxSimLayerCosts)
                + " layer costs in the file (micro-batches x layers, summed over the cases)");
    }
    std::vector<SimulationCase> result;
    result.reserve(cases.size());
    for (const JsonView& element : cases.elements())
        result.push_back(readSimulationCase(element));
    return result;
}

std::vector<SimulationCase> loadSimulationCases(const std::filesystem::path& file)
{
    const JsonDocument document = JsonDocument::load(file);
    return readSimulationCases(document.root());
}

nlohmann::ordered_json simulationResultJson(const SimulationResult& result)
{
    nlohmann::ordered_json json;
    if (result.feasible)
        json["makespan_us"] = result.makespan_us;
    else
        json["makespan_us"] = nullptr;
    json["peak_memory_mb_per_device"] = result.peak_memory_mb_per_device;
    if (!result.feasible) {
        json["feasible"] = false;
        json["reason"] = result.failure;
    }
    return json;
}

} // namespace stratex::sim
