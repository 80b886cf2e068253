// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sim_spec.h"

#include <cmath>

#include "core/common/error.h"
#include "core/sim/schedule_assignment.h"

namespace stratex::sim {

int CommModel::nodeOf(int device) const
{
    if (device < 0 || static_cast<std::size_t>(device) >= node_of_device.size())
        return 0;
    return node_of_device[static_cast<std::size_t>(device)];
}

double CommModel::transferUs(double mb, int fromDevice, int toDevice) const
{
    if (fromDevice == toDevice)
        return 0;
    const bool sameNode = nodeOf(fromDevice) == nodeOf(toDevice);
    const double latency = sameNode ? intra_node_lat_us : inter_node_lat_us;
    const double bandwidth = sameNode ? intra_node_bw_gbps : inter_node_bw_gbps;
    return bandwidth > 0 ? latency + mb * 8000.0 / bandwidth : latency;
}

int SimulationInput::layerCount() const
{
    return static_cast<int>(device_assignment.size());
}

namespace {

std::string checkLayer(const LayerCost& layer)
{
    const double values[]
        = { layer.fw_us, layer.bw_us, layer.stored_mb, layer.peak_mb, layer.fw_comm_mb, layer.bw_comm_mb };
    const char* names[] = { "fw_us", "bw_us", "stored_mb", "peak_mb", "fw_comm_mb", "bw_comm_mb" };
    for (std::size_t i = 0; i < std::size(values); ++i) {
        if (!std::isfinite(values[i]) || values[i] < 0)
            return std::string(names[i]) + " must be a finite number >= 0, got " + std::to_string(values[i]);
    }
    if (!std::isfinite(layer.w_us) || !std::isfinite(layer.w_stored_mb))
        return "w_us and w_stored_mb must be finite";
    if (layer.weightGradUs() > layer.bw_us)
        return "w_us " + std::to_string(layer.w_us) + " exceeds bw_us " + std::to_string(layer.bw_us);
    if (layer.weightGradStoredMb() > layer.stored_mb)
        return "w_stored_mb " + std::to_string(layer.w_stored_mb) + " exceeds stored_mb "
            + std::to_string(layer.stored_mb);
    return {};
}

} // namespace

std::string validateSimulationInput(const SimulationInput& input)
{
    try {
        analyzeAssignment(input.device_assignment);
    } catch (const Error& error) {
        return error.what();
    }
    if (input.microbatches.empty())
        return "no micro-batches to simulate";
    const std::size_t layers = input.device_assignment.size();
    for (std::size_t i = 0; i < input.microbatches.size(); ++i) {
        const MicrobatchSpec& mb = input.microbatches[i];
        if (mb.layers.size() != layers) {
            return "micro-batch " + std::to_string(i) + " has " + std::to_string(mb.layers.size())
                + " layers, the device assignment " + std::to_string(layers);
        }
        for (std::size_t l = 0; l < layers; ++l) {
            const std::string problem = checkLayer(mb.layers[l]);
            if (!problem.empty())
                return "micro-batch " + std::to_string(i) + " layer " + std::to_string(l) + ": " + problem;
        }
    }
    if (!input.model_state_mb_per_layer.empty() && input.model_state_mb_per_layer.size() != layers) {
        return "model_state_mb_per_layer has " + std::to_string(input.model_state_mb_per_layer.size())
            + " values, the device assignment " + std::to_string(layers) + " layers";
    }
    for (double state : input.model_state_mb_per_layer) {
        if (!std::isfinite(state) || state < 0)
            return "model state must be a finite number >= 0";
    }
    // The state joined at the first backward and changed at the last (signed there).
    for (const auto* steps : { &input.first_backward_state_mb_per_layer, &input.last_backward_state_mb_per_layer }) {
        if (!steps->empty() && steps->size() != layers) {
            return "first/last_backward_state_mb_per_layer has " + std::to_string(steps->size())
                + " values, the device assignment " + std::to_string(layers) + " layers";
        }
        for (double state : *steps) {
            if (!std::isfinite(state))
                return "first/last backward state must be finite";
        }
    }
    if (input.first_decoder_layer >= static_cast<int>(layers))
        return "first_decoder_layer " + std::to_string(input.first_decoder_layer) + " is past the last layer";
    return {};
}

} // namespace stratex::sim
