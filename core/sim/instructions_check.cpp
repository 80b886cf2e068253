// SPDX-License-Identifier: GPL-3.0-or-later
// Deadlock freedom of per-rank instruction lists (instructions.h).
#include <map>
#include <tuple>

#include "core/sim/instructions.h"

namespace stratex::sim {

namespace {

bool isSendStart(InstructionKind kind)
{
    return kind == InstructionKind::SendActivationStart || kind == InstructionKind::SendGradStart;
}

bool isRecvStart(InstructionKind kind)
{
    return kind == InstructionKind::RecvActivationStart || kind == InstructionKind::RecvGradStart;
}

bool isGrad(InstructionKind kind)
{
    return kind == InstructionKind::SendGradStart || kind == InstructionKind::RecvGradStart
        || kind == InstructionKind::SendGradFinish || kind == InstructionKind::RecvGradFinish;
}

std::string describe(int rank, const Instruction& instruction)
{
    return "rank " + std::to_string(rank) + " " + std::string(instructionName(instruction.kind)) + "(mb "
        + std::to_string(instruction.microbatch) + ", stage " + std::to_string(instruction.stage)
        + (instruction.peer >= 0 ? ", peer " + std::to_string(instruction.peer) : std::string()) + ")";
}

// A Start's place in its (sender, receiver) channel: the i-th send from a to b pairs with the
// i-th receive on b from a.
struct ChannelSlot {
    int peer = -1;
    std::size_t index = 0;
};

using StartKey = std::tuple<bool, int, int>; // (grad, microbatch, stage)

} // namespace

DeadlockCheck checkDeadlockFree(const ExecutionInstructions& plan)
{
    const std::size_t ranks = plan.ranks.size();
    auto channel = [ranks](std::size_t from, std::size_t to) { return from * ranks + to; };
    std::vector<std::vector<const Instruction*>> sends(ranks * ranks);
    std::vector<std::vector<const Instruction*>> recvs(ranks * ranks);
    std::vector<std::map<StartKey, ChannelSlot>> sendSlots(ranks);
    std::vector<std::map<StartKey, ChannelSlot>> recvSlots(ranks);

    for (std::size_t r = 0; r < ranks; ++r) {
        for (const Instruction& instruction : plan.ranks[r].instructions) {
            if (!isSendStart(instruction.kind) && !isRecvStart(instruction.kind))
                continue;
            if (instruction.peer < 0 || static_cast<std::size_t>(instruction.peer) >= ranks
                || static_cast<std::size_t>(instruction.peer) == r)
                return { false, describe(static_cast<int>(r), instruction) + " has an invalid peer" };
            const auto peer = static_cast<std::size_t>(instruction.peer);
            const StartKey key { isGrad(instruction.kind), instruction.microbatch, instruction.stage };
            if (isSendStart(instruction.kind)) {
                auto& list = sends[channel(r, peer)];
                sendSlots[r][key] = { instruction.peer, list.size() };
                list.push_back(&instruction);
            } else {
                auto& list = recvs[channel(peer, r)];
                recvSlots[r][key] = { instruction.peer, list.size() };
                list.push_back(&instruction);
            }
        }
    }

    // (1) Both sides of every channel see the same transfers in the same order.
    for (std::size_t from = 0; from < ranks; ++from) {
        for (std::size_t to = 0; to < ranks; ++to) {
            const auto& s = sends[channel(from, to)];
            const auto& r = recvs[channel(from, to)];
            for (std::size_t i = 0; i < std::max(s.size(), r.size()); ++i) {
                if (i >= s.size())
                    return { false, describe(static_cast<int>(to), *r[i]) + " has no matching send" };
                if (i >= r.size())
                    return { false, describe(static_cast<int>(from), *s[i]) + " has no matching receive" };
                const bool match = isGrad(s[i]->kind) == isGrad(r[i]->kind) && s[i]->microbatch == r[i]->microbatch
                    && s[i]->stage + 1 == r[i]->stage && s[i]->tensors == r[i]->tensors;
                if (!match) {
                    return { false,
                        "transfer " + std::to_string(i) + " from rank " + std::to_string(from) + " to rank "
                            + std::to_string(to) + ": " + describe(static_cast<int>(from), *s[i]) + " meets "
                            + describe(static_cast<int>(to), *r[i]) };
                }
            }
        }
    }

    // (2) Run every rank: Starts never block; a Finish waits for the peer's matching Start.
    std::vector<std::size_t> next(ranks, 0);
    std::vector<std::size_t> sendsPosted(ranks * ranks, 0);
    std::vector<std::size_t> recvsPosted(ranks * ranks, 0);
    bool progress = true;
    while (progress) {
        progress = false;
        for (std::size_t r = 0; r < ranks; ++r) {
            const auto& list = plan.ranks[r].instructions;
            while (next[r] < list.size()) {
                const Instruction& instruction = list[next[r]];
                const StartKey key { isGrad(instruction.kind), instruction.microbatch, instruction.stage };
                bool blocked = false;
                switch (instruction.kind) {
                case InstructionKind::SendActivationStart:
                case InstructionKind::SendGradStart:
                    ++sendsPosted[channel(r, static_cast<std::size_t>(instruction.peer))];
                    break;
                case InstructionKind::RecvActivationStart:
                case InstructionKind::RecvGradStart:
                    ++recvsPosted[channel(static_cast<std::size_t>(instruction.peer), r)];
                    break;
                case InstructionKind::RecvActivationFinish:
                case InstructionKind::RecvGradFinish: {
                    const auto slot = recvSlots[r].find(key);
                    if (slot == recvSlots[r].end())
                        return { false,
                            describe(static_cast<int>(r), instruction) + " finishes a receive never started" };
                    const auto c = channel(static_cast<std::size_t>(slot->second.peer), r);
                    blocked = sendsPosted[c] <= slot->second.index;
                    break;
                }
                case InstructionKind::SendActivationFinish:
                case InstructionKind::SendGradFinish: {
                    const auto slot = sendSlots[r].find(key);
                    if (slot == sendSlots[r].end())
                        return { false, describe(static_cast<int>(r), instruction) + " finishes a send never started" };
                    const auto c = channel(r, static_cast<std::size_t>(slot->second.peer));
                    blocked = recvsPosted[c] <= slot->second.index;
                    break;
                }
                default:
                    break;
                }
                if (blocked)
                    break;
                ++next[r];
                progress = true;
            }
        }
    }
    std::string stuck;
    for (std::size_t r = 0; r < ranks; ++r) {
        if (next[r] < plan.ranks[r].instructions.size())
            stuck += (stuck.empty() ? "" : "; ") + describe(static_cast<int>(r), plan.ranks[r].instructions[next[r]]);
    }
    if (!stuck.empty())
        return { false, "deadlock: " + stuck };
    return {};
}

} // namespace stratex::sim
