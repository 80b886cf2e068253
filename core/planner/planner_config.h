// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/planner/chunk_placement.h"
#include "core/planner/microbatch_builder.h"
#include "core/sim/schedule_kind.h"
#include "core/sim/sim_spec.h"

namespace stratex::planner {

// How hard the planner searches (issue 4 §4, seed 002):
// - Normal: every candidate schedule x every recompute type, all micro-batch permutations,
//   recompute adjustment until it converges;
// - Fast: wait-free-cyclic only (or the first valid schedule where it cannot run), the weakest
//   recompute type as start (stronger ones only if nothing fits), permutations kept, one
//   memory-fitted starting plan per permutation, at most 3 adjustment rounds per permutation,
//   each raising at most 2 micro-batches;
// - Normal also runs fast mode's search first and keeps its plan unless it finds a faster one;
// - Auto: Fast when the global batch has more than auto_fast_above_microbatches micro-batches,
//   else Normal. The default is read from measured comparisons (docs/dynapipe-planner.md §11):
//   up to 134 micro-batches normal's planning hid behind the iteration and its plan was faster;
//   beyond, both modes found the same plan. The Planner page replaces it with its own comparison's.
enum class PlannerMode { Normal, Fast, Auto };

std::string_view plannerModeName(PlannerMode mode); // "normal", "fast", "auto"

// STRATEX_FAST_MODE: "1"/"true"/"yes"/"on" -> Fast, "0"/"false"/"no"/"off" -> Normal, "auto" ->
// Auto; unset, empty or anything else -> nothing (the caller's default applies).
std::optional<PlannerMode> plannerModeFromEnvironmentValue(const char* value);
std::optional<PlannerMode> plannerModeFromEnvironment(); // reads STRATEX_FAST_MODE

struct SearchLimits {
    bool all_schedules = true; // false: wait-free-cyclic only (or the first valid schedule)
    // false: the weakest recompute type as the uniform start, stronger ones only while nothing
    // fits (the per-micro-batch plan carries the recompute choice, as in the DynaPipe fork).
    bool all_recompute_types = true;
    // Starting plans per permutation: the uniform type raised to its alone-floor ("plain"), and
    // that plan raised until the in-flight windows fit (recompute_preplan.h) where a window model
    // exists. Normal mode adjusts from both and keeps the better; fast mode only from the second.
    bool plain_start = true;
    int max_adjust_rounds = 0; // per permutation; 0 = until convergence (bounded by the plan size)
    int microbatches_per_device = 1; // raised per over-limit device and round
    int max_microbatches_per_round = 0; // distinct micro-batches per round over all devices; 0 = any
    // Raise per device until the estimated saving covers its overflow (RecomputeAdjustOptions).
    bool cover_overflow = false;
    // Normal mode first runs fast mode's whole search and keeps its plan unless it finds a
    // strictly faster one, so it can never return a plan worse than fast mode's (issue 13).
    bool include_fast_search = false;
    // Stop a candidate once makespanLowerBoundUs of its plan, or the simulated makespan of its
    // overflowing plan, reaches the best makespan found: raising recompute only adds time, so it
    // could not win. Skips work, not plans (the bound is exact; the simulated makespan is in the
    // schedules' fixed op orders).
    bool prune_by_bound = true;
    // After a candidate's permutations, also try its best order with the q lightest micro-batches
    // at the head, q = 1..devices (warmupOrders): a few simulations, often 1-3 % off the makespan.
    bool warmup_orders = true;
};

SearchLimits searchLimits(PlannerMode resolvedMode);

struct PlannerConfig {
    // Pipeline: num_stages devices, each holding chunks_per_device stages of layers_per_stage
    // layers; dp_size data-parallel groups, each planned on its own.
    int num_stages = 1;
    int layers_per_stage = 1;
    int chunks_per_device = 1;
    ChunkPlacement placement = ChunkPlacement::Interleaved; // V needs chunks_per_device 2
    int dp_size = 1;
    int tp = 1;
    int zero_stage = 0;
    double device_memory_mb = 0;

    PlannerMode mode = PlannerMode::Auto;
    int auto_fast_above_microbatches = 134; // docs/dynapipe-planner.md §11
    std::uint64_t seed = 0;
    // Plan even beyond the work budget (planner_work.h). The GUI sets it after asking; the CLI
    // never does.
    bool lift_work_budget = false;

    // Schedules to consider; empty = DynaPipe's planner set for the placement (wait-free-cyclic,
    // plus 1F1B for a linear or interleaved-1F1B for an interleaved placement), ZB-H1 on a
    // linear placement and DualPipeV on a V placement.
    std::vector<sim::ScheduleKind> schedules;
    // Activation messages between pipeline stages: tokens x micro-batch size x hidden x 2 bytes,
    // sent over the link model below (DynaPipe's cluster model: lat_us + MB * 8000 / Gbit/s per
    // transfer, intra- or inter-node). hidden_size 0: the cost model's (LayerCostModel::
    // hiddenSize), and free messages when it does not say either. A bandwidth of 0 is an
    // infinitely fast link, so the defaults make every transfer free.
    int hidden_size = 0;
    sim::CommModel comm;
    // GPUs per node: places pipeline stages on nodes when comm.node_of_device is empty (Megatron's
    // default order: the stage is the slowest coordinate, so stage d of data-parallel group g
    // starts at rank (d x dp + g) x tp). 0: every stage on one node.
    int gpus_per_node = 0;
    // Micro-batch DP details (ordering, rounding, recompute order); the sizes above override its
    // pipeline fields.
    MicroBatchBuildConfig microbatching;
    // Build the per-rank instruction lists of the chosen plan.
    bool build_instructions = true;
};

// Auto resolved by the number of micro-batches of the whole global batch.
PlannerMode resolvePlannerMode(const PlannerConfig& config, int globalMicrobatches);

// The link model data-parallel group `dpGroup` plans with: config.comm, with its stages placed on
// nodes by gpus_per_node unless node_of_device is given.
sim::CommModel groupCommModel(const PlannerConfig& config, int dpGroup);

// True when some transfer between pipeline neighbours would take time (a latency, or a finite
// bandwidth with messages that have a size).
bool communicationModelled(const PlannerConfig& config, int hiddenSize);

} // namespace stratex::planner
