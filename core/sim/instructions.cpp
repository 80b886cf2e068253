// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/instructions.h"

#include <algorithm>

#include "core/common/error.h"

namespace stratex::sim {

std::string_view instructionName(InstructionKind kind)
{
    switch (kind) {
    case InstructionKind::LoadInput:
        return "LoadInput";
    case InstructionKind::FreeBuffer:
        return "FreeBuffer";
    case InstructionKind::SendActivationStart:
        return "SendActivationStart";
    case InstructionKind::SendActivationFinish:
        return "SendActivationFinish";
    case InstructionKind::RecvActivationStart:
        return "RecvActivationStart";
    case InstructionKind::RecvActivationFinish:
        return "RecvActivationFinish";
    case InstructionKind::SendGradStart:
        return "SendGradStart";
    case InstructionKind::SendGradFinish:
        return "SendGradFinish";
    case InstructionKind::RecvGradStart:
        return "RecvGradStart";
    case InstructionKind::RecvGradFinish:
        return "RecvGradFinish";
    case InstructionKind::ForwardPass:
        return "ForwardPass";
    case InstructionKind::BackwardPass:
        return "BackwardPass";
    case InstructionKind::WeightPass:
        return "WeightPass";
    }
    return "?";
}

namespace {

// Decoder layers of an encoder-decoder model pass the encoder output along with their own.
int tensorsOutOf(int layer, int firstDecoderLayer)
{
    return firstDecoderLayer >= 0 && layer >= firstDecoderLayer ? 2 : 1;
}

Instruction make(InstructionKind kind, const TimelineOp& op, int stage)
{
    Instruction instruction;
    instruction.kind = kind;
    instruction.microbatch = op.position;
    instruction.microbatch_id = op.microbatch;
    instruction.stage = stage;
    return instruction;
}

} // namespace

ExecutionInstructions rawInstructions(const SimulationResult& result, const SimulationInput& input)
{
    if (!result.feasible)
        throw Error("no instruction lists for an infeasible simulation: " + result.failure);
    if (result.timeline.devices.empty())
        throw Error("instruction lists need a simulation run with build_timeline");
    const PipelineLayout& layout = result.layout;
    const int n = layout.stageCount();

    ExecutionInstructions plan;
    plan.n_stages = 2 * n;
    plan.n_microbatches = static_cast<int>(input.microbatches.size());
    plan.ranks.resize(static_cast<std::size_t>(layout.n_devices));
    for (int rank = 0; rank < layout.n_devices; ++rank)
        plan.ranks[static_cast<std::size_t>(rank)].rank = rank;
    for (int k = 0; k < n; ++k) {
        auto& stages
            = plan.ranks[static_cast<std::size_t>(layout.stages[static_cast<std::size_t>(k)].device)].assigned_stages;
        stages.push_back(k);
        stages.push_back(2 * n - 1 - k);
    }
    for (RankInstructions& rank : plan.ranks)
        std::sort(rank.assigned_stages.begin(), rank.assigned_stages.end());

    // Everything that starts, in the simulator's global start order (receives are implied by sends).
    std::vector<std::pair<const TimelineOp*, int>> started;
    for (const DeviceTimeline& device : result.timeline.devices) {
        for (const TimelineOp& op : device.compute)
            started.emplace_back(&op, device.device);
        for (const TimelineOp& op : device.comm) {
            if (op.kind == OpKind::Send)
                started.emplace_back(&op, device.device);
        }
    }
    std::sort(
        started.begin(), started.end(), [](const auto& a, const auto& b) { return a.first->order < b.first->order; });

    for (const auto& [op, device] : started) {
        const PipelineStage& stage = layout.stages[static_cast<std::size_t>(op->stage)];
        auto& list = plan.ranks[static_cast<std::size_t>(device)].instructions;
        const int forwardStage = op->stage;
        const int backwardStage = 2 * n - 1 - op->stage;
        switch (op->kind) {
        case OpKind::Forward: {
            const bool encoderInput = stage.first_layer == 0;
            const bool decoderInput = input.first_decoder_layer > 0 && input.first_decoder_layer >= stage.first_layer
                && input.first_decoder_layer <= stage.last_layer;
            for (int load = 0; load < int(encoderInput) + int(decoderInput); ++load) {
                Instruction instruction = make(InstructionKind::LoadInput, *op, forwardStage);
                instruction.tensors = 1;
                list.push_back(instruction);
            }
            list.push_back(make(InstructionKind::ForwardPass, *op, forwardStage));
            break;
        }
        case OpKind::Backward: {
            Instruction instruction = make(InstructionKind::BackwardPass, *op, backwardStage);
            instruction.first_bw_layer = op->stage == n - 1;
            list.push_back(instruction);
            break;
        }
        case OpKind::Weight:
            list.push_back(make(InstructionKind::WeightPass, *op, backwardStage));
            break;
        case OpKind::Send: {
            if (op->peer == device)
                break; // not on timelines (a V's turn keeps the tensor on its device); never here
            const int sendStage = op->grad ? backwardStage : forwardStage;
            const int boundaryLayer = op->grad ? stage.first_layer - 1 : stage.last_layer;
            Instruction send = make(
                op->grad ? InstructionKind::SendGradStart : InstructionKind::SendActivationStart, *op, sendStage);
            send.peer = op->peer;
            send.tensors = tensorsOutOf(boundaryLayer, input.first_decoder_layer);
            Instruction recv = send;
            recv.kind = op->grad ? InstructionKind::RecvGradStart : InstructionKind::RecvActivationStart;
            recv.stage = sendStage + 1;
            recv.peer = device;
            list.push_back(send);
            plan.ranks[static_cast<std::size_t>(op->peer)].instructions.push_back(recv);
            break;
        }
        case OpKind::Recv:
            break;
        }
    }
    return plan;
}

ExecutionInstructions buildInstructions(const SimulationResult& result, const SimulationInput& input)
{
    ExecutionInstructions plan = rawInstructions(result, input);
    optimizeInstructions(plan);
    return plan;
}

nlohmann::ordered_json instructionsJson(const ExecutionInstructions& plan)
{
    nlohmann::ordered_json json;
    json["n_stages"] = plan.n_stages;
    json["n_microbatches"] = plan.n_microbatches;
    nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
    for (const RankInstructions& rank : plan.ranks) {
        nlohmann::ordered_json r;
        r["rank"] = rank.rank;
        r["assigned_stages"] = rank.assigned_stages;
        r["num_pipe_buffers"] = rank.num_pipe_buffers;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const Instruction& instruction : rank.instructions) {
            nlohmann::ordered_json i;
            i["op"] = std::string(instructionName(instruction.kind));
            if (instruction.kind != InstructionKind::FreeBuffer) {
                i["microbatch"] = instruction.microbatch;
                i["microbatch_id"] = instruction.microbatch_id;
                i["stage"] = instruction.stage;
            }
            if (!instruction.buffer_ids.empty())
                i["buffers"] = instruction.buffer_ids;
            if (instruction.peer >= 0)
                i["peer"] = instruction.peer;
            if (instruction.first_bw_layer)
                i["first_bw_layer"] = true;
            list.push_back(std::move(i));
        }
        r["instructions"] = std::move(list);
        ranks.push_back(std::move(r));
    }
    json["ranks"] = std::move(ranks);
    return json;
}

} // namespace stratex::sim
