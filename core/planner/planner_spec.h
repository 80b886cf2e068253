// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// From micro-batches to the simulator's input (DynaPipe's construct_minibatch_spec,
// docs/dynapipe-planner.md §3 "Spec construction"): the model's layers and their devices, and per
// micro-batch and layer the cost model's times (ms -> us), activation memory and model state,
// under a per-(micro-batch, device) recompute plan.

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/planner/chunk_placement.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_memory.h"
#include "core/planner/recompute_plan.h"
#include "core/sim/sim_spec.h"

namespace stratex::planner {

// The model as pipelined: num_stages devices, each holding chunks_per_device stages of
// layers_per_stage layers. Linear (c = 1): device d holds layers [d*L, (d+1)*L); interleaved:
// virtual stage k*p + d of chunk k sits on device d. Encoder-decoder models: the first half of
// the layers are encoder layers.
struct PipelineModel {
    int num_stages = 1;
    int layers_per_stage = 1;
    int chunks_per_device = 1;
    std::vector<int> device_assignment;
    int first_decoder_layer = -1; // -1: decoder-only

    int layerCount() const { return static_cast<int>(device_assignment.size()); }
    bool isDecoderLayer(int layer) const { return first_decoder_layer >= 0 && layer >= first_decoder_layer; }
};

// Throws stratex::Error for sizes below 1, an encoder-decoder model with an odd layer count, or a
// V placement without exactly 2 chunks per device.
PipelineModel makePipelineModel(int numStages, int layersPerStage, int chunksPerDevice, bool encoderDecoder,
    ChunkPlacement placement = ChunkPlacement::Interleaved);

struct SpecOptions {
    int tp = 1;
    OptimizerStateConfig optimizer;
    // Hidden size for the activation message sizes (seq * mbs * hidden * 2 bytes); 0 = the cost
    // model does not say, messages are free.
    int hidden_size = 0;
    sim::CommModel comm;
};

// Builds SimulationInputs for one set of micro-batches; caches the cost-model lookups per
// (micro-batch, recompute type).
class MicroBatchSpecBuilder {
public:
    MicroBatchSpecBuilder(
        const LayerCostModel& model, PipelineModel pipeline, std::vector<MicroBatch> microbatches, SpecOptions options);

    const PipelineModel& pipeline() const { return m_pipeline; }
    const std::vector<MicroBatch>& microbatches() const { return m_microbatches; }
    int deviceCount() const { return m_pipeline.num_stages; }

    // False when the cost model has no finite cost for this micro-batch and type (the shape is
    // beyond its profile): such a plan cannot be simulated.
    bool available(int microbatchId, RecomputeType type) const;

    // What one micro-batch costs on one device under a type: the activation it keeps until its
    // backward, the transient peak of its forward over the layers there (stored of the earlier
    // layers + the layer's peak, as the simulator merges layers), and its compute time.
    struct DeviceFootprint {
        double stored_mb = 0;
        double forward_peak_mb = 0;
        double compute_us = 0;
    };
    DeviceFootprint footprint(int microbatchId, RecomputeType type, int device) const;
    double deviceModelStateMb(int device, RecomputeType modelStateRecompute) const;

    // Peak memory of `device` (MB, with its model state) while this micro-batch runs through it
    // alone under `type`: a lower bound of any schedule's peak there.
    double alonePeakMb(int microbatchId, RecomputeType type, int device, RecomputeType modelStateRecompute) const;

    // A lower bound of the makespan (us) of every schedule of these micro-batches under the plan:
    // device d cannot start before some micro-batch's forward has crossed the layers in front of
    // its first layer, must then run all its compute ops one at a time, and its last backward
    // still has to cross those layers back (not counted when the backward is split, as ZB-H1's
    // weight-gradient op may come last). Transfers on the way count as on the timeline. Raising
    // a recompute type only adds time, so the bound never falls as the adjustment proceeds: once
    // it reaches the best makespan found, the candidate cannot win. Infinity when the cost
    // model cannot price a pair of the plan.
    double makespanLowerBoundUs(const RecomputePlan& plan, bool splitBackward) const;

    // `order` lists micro-batch ids in feeding order; every id must be one of microbatches().
    // modelStateRecompute picks the sub-model whose parameter sizes set the model state.
    sim::SimulationInput input(
        const std::vector<int>& order, const RecomputePlan& plan, RecomputeType modelStateRecompute) const;

    // One micro-batch's layers under a uniform type (for the permutation features).
    sim::MicrobatchSpec spec(int microbatchId, const RecomputePlan& plan) const;

private:
    struct Costs {
        bool feasible = false;
        sim::LayerCost encoder;
        sim::LayerCost decoder;
        double postprocess_fw_us = 0;
        double postprocess_bw_us = 0;
    };
    const Costs& costs(int microbatchId, RecomputeType type) const;
    // Position of the id in m_microbatches, or -1 (binary search over m_idSlots).
    int slotOf(int microbatchId) const;
    DeviceFootprint computeFootprint(int microbatchId, RecomputeType type, int device) const;
    const std::vector<double>& modelState(RecomputeType type) const;

    const LayerCostModel& m_model;
    PipelineModel m_pipeline;
    std::vector<MicroBatch> m_microbatches;
    // (id, position in m_microbatches), ascending by id: the search looks ids up millions of
    // times, and a sorted contiguous array beats a tree there.
    std::vector<std::pair<int, int>> m_idSlots;
    SpecOptions m_options;
    // Costs at (position, type); computed on first use.
    mutable std::vector<Costs> m_costs;
    mutable std::vector<char> m_costsKnown;
    mutable std::map<RecomputeType, std::vector<double>> m_modelState;
    // The search asks for the same footprints and device states over and over (starting plans,
    // window fits, savings): computed once, at (micro-batch position, type, device).
    mutable std::vector<DeviceFootprint> m_footprints;
    mutable std::vector<char> m_footprintKnown;
    mutable std::map<RecomputeType, std::vector<double>> m_deviceState;
};

} // namespace stratex::planner
