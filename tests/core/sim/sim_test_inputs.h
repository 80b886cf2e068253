// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Simulator inputs and ground truth shared by the simulator tests.

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/json_reader.h"
#include "core/sim/simulator.h"

#include "support/test_paths.h"

namespace stratex::test {

// DynaPipe's simulator on the same inputs (tests/data/dynapipe/SOURCES.md), loaded once.
inline const JsonDocument& scheduleGroundTruth()
{
    static const JsonDocument document
        = JsonDocument::load(fixture(QStringLiteral("dynapipe/schedule_ground_truth.json")).toStdString());
    return document;
}

// The closed-form tests' layer sizes, and the peak of a device holding `inflight` activations (or
// chunk activations) when its next forward runs.
inline constexpr double kStoredMb = 100;
inline constexpr double kPeakMb = 250;

inline double peakFor(int inflight)
{
    return (inflight - 1) * kStoredMb + kPeakMb;
}

inline bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

// Every micro-batch and layer alike; no communication.
inline sim::SimulationInput uniformInput(const std::vector<int>& assignment, int microbatches, double fwUs, double bwUs,
    double storedMb, double peakMb, double wUs = -1)
{
    sim::SimulationInput input;
    input.device_assignment = assignment;
    for (int j = 0; j < microbatches; ++j) {
        sim::MicrobatchSpec mb;
        mb.id = j;
        sim::LayerCost layer;
        layer.fw_us = fwUs;
        layer.bw_us = bwUs;
        layer.w_us = wUs;
        layer.stored_mb = storedMb;
        layer.peak_mb = peakMb;
        mb.layers.assign(assignment.size(), layer);
        input.microbatches.push_back(mb);
    }
    return input;
}

inline std::vector<int> linearAssignment(int devices, int layersPerDevice = 1)
{
    std::vector<int> assignment;
    for (int d = 0; d < devices; ++d)
        assignment.insert(assignment.end(), static_cast<std::size_t>(layersPerDevice), d);
    return assignment;
}

inline std::vector<int> interleavedAssignment(int devices, int chunks)
{
    std::vector<int> assignment;
    for (int c = 0; c < chunks; ++c) {
        for (int d = 0; d < devices; ++d)
            assignment.push_back(d);
    }
    return assignment;
}

// The two batches of DynaPipe's own scheduler test (tests/test_scheduler, the fixture's
// repo_test_configs): 8 layers, 8 micro-batches, 4 devices, each device on its own node linked
// at 100 Gbit/s with zero latency.
inline sim::CommModel repoTestCluster()
{
    sim::CommModel comm;
    comm.node_of_device = { 0, 1, 2, 3 };
    comm.intra_node_bw_gbps = 4800;
    comm.inter_node_bw_gbps = 100;
    return comm;
}

// "uniform": fw = bw = 1000 us per layer, 1.25 MB messages, stored 1000 MB, peak 2000 MB.
inline sim::SimulationInput repoUniformBatch(const std::vector<int>& assignment)
{
    sim::SimulationInput input = uniformInput(assignment, 8, 1000, 1000, 1000, 2000);
    for (sim::MicrobatchSpec& mb : input.microbatches) {
        for (sim::LayerCost& layer : mb.layers) {
            layer.fw_comm_mb = 1.25;
            layer.bw_comm_mb = 1.25;
        }
    }
    input.comm = repoTestCluster();
    return input;
}

// "hetero": an encoder-decoder (4 + 4 layers) with per-micro-batch multipliers on time and
// memory, model state 4000 MB per layer. DynaPipe lists backward times in backward-execution
// order and the test builds them as 2x the forward list without reversing it, so the decoder
// layers (4..7) get 2 x 4000 us and the encoder layers 2 x 2000 us of backward time.
inline sim::SimulationInput repoHeteroBatch(const std::vector<int>& assignment)
{
    const double multiplier[] = { 1, 0.8, 1.2, 0.9, 1.1, 0.7, 1.4, 0.6 };
    sim::SimulationInput input;
    input.device_assignment = assignment;
    for (int j = 0; j < 8; ++j) {
        sim::MicrobatchSpec mb;
        mb.id = j;
        for (int l = 0; l < 8; ++l) {
            sim::LayerCost layer;
            layer.fw_us = (l < 4 ? 4000 : 2000) * multiplier[j];
            layer.bw_us = 2 * (l < 4 ? 2000 : 4000) * multiplier[j];
            layer.stored_mb = 8000 * multiplier[j];
            layer.peak_mb = 16000 * multiplier[j];
            layer.fw_comm_mb = 2 * multiplier[j];
            layer.bw_comm_mb = 2 * multiplier[j];
            mb.layers.push_back(layer);
        }
        input.microbatches.push_back(mb);
    }
    input.model_state_mb_per_layer.assign(8, 4000);
    input.first_decoder_layer = 4;
    input.comm = repoTestCluster();
    return input;
}

} // namespace stratex::test
