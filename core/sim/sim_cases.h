// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Simulation cases in the format of tests/data/dynapipe/schedule_ground_truth.json,
// the input of `stratex-cli simulate --cases FILE` (issue 4 §5):
//
//   {"cases": [{"schedule": "1F1B", "device_assignment": [0, 1],
//               "microbatches": [{"fw_us_per_layer": 1000, "bw_us_per_layer": 2000,
//                                 "stored_mb_per_layer": 100, "peak_mb_per_layer": 200}, ...]}]}
//
// Per micro-batch, each *_per_layer value is a number (every layer) or an array (one per
// layer). Optional per micro-batch: w_us_per_layer (ZB-H1's weight-gradient part of the
// backward, default half), w_stored_mb_per_layer, fw_comm_mb_per_layer, bw_comm_mb_per_layer,
// id. Optional per case: memory_limit_mb (the cyclic scheduler's limit), max_inflight_microbatches,
// model_state_mb_per_layer, first_decoder_layer, microbatch_group_size (flexible-interleaved's N), comm {node_of_device, intra_node_bw_gbps,
// inter_node_bw_gbps, intra_node_lat_us, inter_node_lat_us}. Other keys (desc, expected
// results) are ignored.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/json_reader.h"
#include "core/sim/simulator.h"

namespace stratex::sim {

struct SimulationCase {
    std::string description; // "desc", if any
    ScheduleKind schedule = ScheduleKind::WaitFreeCyclic;
    SimulationInput input;
    SimulationOptions options;
};

// Reads one case object. Throws InputError naming the file and JSON path for malformed values,
// unknown schedule names, inconsistent device assignments and schedules the assignment cannot
// run.
SimulationCase readSimulationCase(const JsonView& view);
// Reads the "cases" array of a document root.
std::vector<SimulationCase> readSimulationCases(const JsonView& root);
std::vector<SimulationCase> loadSimulationCases(const std::filesystem::path& file);

// {"makespan_us": .., "peak_memory_mb_per_device": [..]}; an infeasible run has makespan null and
// adds "feasible": false and "reason".
nlohmann::ordered_json simulationResultJson(const SimulationResult& result);

} // namespace stratex::sim
