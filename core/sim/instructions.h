// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Per-rank instruction lists from a simulated schedule (docs/dynapipe-planner.md §6): what each
// pipeline rank executes, in order, to reproduce the simulated schedule.
//
// Generation: every compute op the simulation started appends [LoadInput] ForwardPass,
// BackwardPass (or WeightPass under ZB-H1) to its rank; every transfer appends Send*Start to the
// sender and Recv*Start (peer = sender) to the receiver at the moment it started, so both sides
// see transfers in the same order. optimizeInstructions() then adds Recv*Finish right before the
// consuming compute op, SendActivationFinish right before the backward of the same micro-batch
// and stage, all SendGradFinish at the end, assigns buffer slots (every Recv and LoadInput gets
// new slots; compute and send reuse them) and frees each buffer after its last use.
//
// Stage numbers count compute stages only: the forward of merged stage k is stage k, its
// backward 2n-1-k (rank 1 of 3 holds {1, 4}). A transfer's Send is numbered with the sending
// stage, its Recv with the sending stage + 1.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/sim/simulator.h"

namespace stratex::sim {

enum class InstructionKind : std::uint8_t {
    LoadInput,
    FreeBuffer,
    SendActivationStart,
    SendActivationFinish,
    RecvActivationStart,
    RecvActivationFinish,
    SendGradStart,
    SendGradFinish,
    RecvGradStart,
    RecvGradFinish,
    ForwardPass,
    BackwardPass,
    WeightPass, // ZB-H1's weight-gradient pass (not in DynaPipe, which never splits B)
};

std::string_view instructionName(InstructionKind kind); // "ForwardPass", ...

struct Instruction {
    InstructionKind kind = InstructionKind::ForwardPass;
    int microbatch = 0; // position in the simulated (fed) order: the executor's index
    int microbatch_id = 0; // the stable MicrobatchSpec::id
    int stage = 0;
    std::vector<int> buffer_ids; // empty for Finish instructions
    int peer = -1; // Send*/Recv* Start: the other rank
    bool first_bw_layer = false; // BackwardPass of the last stage: reuses the forward buffers
    int tensors = 0; // Send*/Recv* Start and LoadInput: tensors moved (decoder layers pass 2)
};

struct RankInstructions {
    int rank = 0;
    std::vector<int> assigned_stages; // ascending
    std::vector<Instruction> instructions;
    int num_pipe_buffers = 0; // slots the list uses (0 before optimizeInstructions)
};

struct ExecutionInstructions {
    int n_stages = 0; // compute stages: 2 x merged stages
    int n_microbatches = 0;
    std::vector<RankInstructions> ranks;
};

// The raw lists: compute and Start instructions only, no buffers. Needs a result simulated with
// build_timeline (its global start order); throws stratex::Error otherwise or when infeasible.
ExecutionInstructions rawInstructions(const SimulationResult& result, const SimulationInput& input);

// Adds Finish and FreeBuffer instructions and buffer slots (see the header comment). Throws
// stratex::Error when a compute op's input never arrives (an inconsistent list).
void optimizeInstructions(ExecutionInstructions& plan);

// rawInstructions + optimizeInstructions.
ExecutionInstructions buildInstructions(const SimulationResult& result, const SimulationInput& input);

struct DeadlockCheck {
    bool ok = true;
    std::string problem; // first mismatch or the ranks stuck and where
};

// Deadlock freedom of optimized (or raw) lists: (1) for every pair of ranks the sends from one
// match the receives of the other in order (kind, micro-batch, stage + 1, tensor count);
// (2) executing all ranks with non-blocking Starts, Recv*Finish waiting for the peer's matching
// Send*Start and Send*Finish waiting for the peer's matching Recv*Start, every rank reaches its end.
DeadlockCheck checkDeadlockFree(const ExecutionInstructions& plan);

// {"n_stages":..,"n_microbatches":..,"ranks":[{"rank":..,"assigned_stages":[..],
//  "num_pipe_buffers":..,"instructions":[{"op":"ForwardPass","microbatch":..,"stage":..,...}]}]}
nlohmann::ordered_json instructionsJson(const ExecutionInstructions& plan);

} // namespace stratex::sim
