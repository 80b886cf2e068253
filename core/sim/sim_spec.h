// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Input of the pipeline schedule simulator (docs/dynapipe-planner.md §3): per micro-batch and per
// model layer the compute times, activation memory and communication sizes, the placement of
// layers on devices, the model state per layer and the link model.
//
// Units follow the DynaPipe fixtures: times in microseconds, memory and message sizes in MB
// (1e6 bytes), bandwidth in Gbit/s.
//
// API stability: the planner builds these structs; fields are only ever added.

#include <string>
#include <vector>

namespace stratex::sim {

// Cost of one model layer for one micro-batch.
struct LayerCost {
    double fw_us = 0;
    double bw_us = 0; // the whole backward: input gradient (B) + weight gradient (W)
    // Weight-gradient part of bw_us, used by ZB-H1 only; negative = half of bw_us.
    double w_us = -1;
    double stored_mb = 0; // activation kept from the forward until the backward
    double peak_mb = 0; // transient activation while the forward runs (on top of what is stored)
    // Part of stored_mb that ZB-H1 keeps until W (the rest is freed by B); negative = all of it,
    // the conservative choice when the split is unknown.
    double w_stored_mb = -1;
    double fw_comm_mb = 0; // activation this layer sends to the next layer
    double bw_comm_mb = 0; // gradient of this layer's output, sent back by the next layer

    double weightGradUs() const { return w_us < 0 ? bw_us / 2 : w_us; }
    double weightGradStoredMb() const { return w_stored_mb < 0 ? stored_mb : w_stored_mb; }
};

struct MicrobatchSpec {
    // Stable identity of the micro-batch (the planner's id, not its position in the order);
    // timelines and instructions report it.
    int id = 0;
    std::vector<LayerCost> layers; // one per model layer, in model order
};

// Point-to-point link model: lat_us + MB * 8000 / bw_Gbps. Zero between stages on the same
// device. A bandwidth <= 0 means "infinitely fast" (only the latency remains), so the default
// model makes every transfer free.
struct CommModel {
    std::vector<int> node_of_device; // empty: every device on node 0
    double intra_node_bw_gbps = 0;
    double inter_node_bw_gbps = 0;
    double intra_node_lat_us = 0;
    double inter_node_lat_us = 0;

    double transferUs(double mb, int fromDevice, int toDevice) const;
    int nodeOf(int device) const;
};

// Everything the simulator needs, independent of the schedule.
struct SimulationInput {
    std::vector<int> device_assignment; // device of each model layer, e.g. {0,0,1,1} or {0,1,0,1}
    // The micro-batches in the order the pipeline feeds them (a permutation is applied by
    // reordering this vector; ids stay with their micro-batch).
    std::vector<MicrobatchSpec> microbatches;
    // Optimizer + parameter memory per layer (MB), counted on the layer's device from the start;
    // empty = 0. Put the embedding into the first layer's value.
    std::vector<double> model_state_mb_per_layer;
    // Model state per layer (MB) that joins the layer's device when the backward of the
    // micro-batch at position 0 (the first backward of every schedule) starts, and stays to the
    // end: gradients a framework allocates at a step's first backward and frees after its last
    // (torchtitan's FSDP2 under PP, docs/memory-model.md "torchtitan's pipeline stages"); empty = 0.
    std::vector<double> first_backward_state_mb_per_layer;
    // Model state per layer (MB, signed) that changes when the backward of the last micro-batch
    // (position m - 1) starts: the framework frees or creates state there (torchtitan's FSDP2 under
    // PP reduce-scatters the accumulated gradients into their shards); empty = 0.
    std::vector<double> last_backward_state_mb_per_layer;
    // Encoder-decoder models: index of the first decoder layer (-1 for decoder-only). Decoder
    // layers pass two tensors (encoder output + decoder state) and the first decoder layer loads
    // the decoder input; only instruction lists (buffer counts) depend on it.
    int first_decoder_layer = -1;
    CommModel comm;
    // Each compute op waits, before it starts, for the send that followed the device's previous
    // compute op of the same direction (forward after forward, backward after backward) to
    // complete: the framework waits on its own send handles, not only on the data it receives.
    // Megatron-Core's interleaved schedule does (docs/collectives.md "Pipeline sends a schedule
    // waits for"): in the steady state that send hides under the op of the other direction in
    // between, in the warm-up (forwards only) and the cool-down (backwards only) it does not. Read
    // by the schedules with fixed orders (GPipe, 1F1B, interleaved, ZB, V); false: sends never delay
    // their sender's compute.
    bool compute_waits_for_previous_send = false;

    int layerCount() const;
};

// Names the first inconsistency of the input ("micro-batch 3 has 7 layers, the device
// assignment 8"), or returns "" when the input can be simulated. Checks the device assignment
// too (see device_assignment.h).
std::string validateSimulationInput(const SimulationInput& input);

} // namespace stratex::sim
