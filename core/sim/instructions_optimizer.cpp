// SPDX-License-Identifier: GPL-3.0-or-later
// Finish instructions, buffer slots and FreeBuffer for raw instruction lists (instructions.h).
#include <map>

#include "core/common/error.h"
#include "core/sim/instructions.h"

namespace stratex::sim {

namespace {

bool carriesBuffers(InstructionKind kind)
{
    switch (kind) {
    case InstructionKind::LoadInput:
    case InstructionKind::SendActivationStart:
    case InstructionKind::RecvActivationStart:
    case InstructionKind::SendGradStart:
    case InstructionKind::RecvGradStart:
    case InstructionKind::ForwardPass:
    case InstructionKind::BackwardPass:
        return true;
    default:
        return false;
    }
}

Instruction finishOf(const Instruction& start, InstructionKind kind)
{
    Instruction finish;
    finish.kind = kind;
    finish.microbatch = start.microbatch;
    finish.microbatch_id = start.microbatch_id;
    finish.stage = start.stage;
    return finish;
}

class RankOptimizer {
public:
    RankOptimizer(RankInstructions& rank, int nStages)
        : m_rank(rank)
        , m_nStages(nStages)
    {
    }

    void run()
    {
        std::vector<Instruction> withFinishes;
        withFinishes.reserve(m_rank.instructions.size() * 2);
        std::vector<Instruction> gradFinishes;
        for (Instruction instruction : m_rank.instructions) {
            const Key key { instruction.microbatch, instruction.stage };
            switch (instruction.kind) {
            case InstructionKind::RecvActivationStart:
            case InstructionKind::RecvGradStart: {
                instruction.buffer_ids = allocate(instruction.tensors);
                auto& inputs = m_inputs[key];
                inputs.insert(inputs.end(), instruction.buffer_ids.begin(), instruction.buffer_ids.end());
                m_pendingRecv[key] = instruction;
                break;
            }
            case InstructionKind::LoadInput: {
                instruction.buffer_ids = allocate(1);
                auto& inputs = m_inputs[key];
                inputs.insert(inputs.end(), instruction.buffer_ids.begin(), instruction.buffer_ids.end());
                break;
            }
            case InstructionKind::ForwardPass:
                appendRecvFinish(key, InstructionKind::RecvActivationFinish, withFinishes);
                instruction.buffer_ids = inputOf(key, instruction);
                m_outputs[key] = instruction.buffer_ids;
                break;
            case InstructionKind::BackwardPass: {
                appendRecvFinish(key, InstructionKind::RecvGradFinish, withFinishes);
                const Key forward { instruction.microbatch, m_nStages - 1 - instruction.stage };
                if (auto send = m_pendingSendFinish.find(forward); send != m_pendingSendFinish.end()) {
                    withFinishes.push_back(send->second);
                    m_pendingSendFinish.erase(send);
                }
                instruction.buffer_ids
                    = instruction.first_bw_layer ? take(m_outputs, forward, instruction) : inputOf(key, instruction);
                m_outputs[key] = instruction.buffer_ids;
                break;
            }
            case InstructionKind::SendActivationStart:
                instruction.buffer_ids = take(m_outputs, key, instruction);
                m_pendingSendFinish[key] = finishOf(instruction, InstructionKind::SendActivationFinish);
                break;
            case InstructionKind::SendGradStart:
                instruction.buffer_ids = take(m_outputs, key, instruction);
                gradFinishes.push_back(finishOf(instruction, InstructionKind::SendGradFinish));
                break;
            default:
                break;
            }
            withFinishes.push_back(std::move(instruction));
        }
        // Activation sends whose backward never runs here cannot exist in a complete schedule,
        // but never lose a Finish: wait for them at the end.
        for (auto& [key, finish] : m_pendingSendFinish)
            withFinishes.push_back(finish);
        withFinishes.insert(withFinishes.end(), gradFinishes.begin(), gradFinishes.end());
        m_rank.instructions = insertFrees(withFinishes);
        m_rank.num_pipe_buffers = m_nextBuffer;
    }

private:
    struct Key {
        int microbatch;
        int stage;
        bool operator<(const Key& other) const
        {
            return microbatch != other.microbatch ? microbatch < other.microbatch : stage < other.stage;
        }
    };

    std::vector<int> allocate(int count)
    {
        std::vector<int> ids;
        for (int i = 0; i < std::max(1, count); ++i)
            ids.push_back(m_nextBuffer++);
        return ids;
    }

    std::vector<int> take(const std::map<Key, std::vector<int>>& from, const Key& key, const Instruction& user) const
    {
        const auto found = from.find(key);
        if (found == from.end() || found->second.empty()) {
            throw Error("instruction list of rank " + std::to_string(m_rank.rank) + ": "
                + std::string(instructionName(user.kind)) + " of micro-batch " + std::to_string(user.microbatch)
                + " stage " + std::to_string(user.stage) + " has no input buffer");
        }
        return found->second;
    }

    // A compute op's input: received or loaded, or, when the stage before it ran on this rank
    // (a V placement's turn), that stage's output, which never leaves the device.
    std::vector<int> inputOf(const Key& key, const Instruction& user) const
    {
        if (const auto found = m_inputs.find(key); found != m_inputs.end() && !found->second.empty())
            return found->second;
        if (const auto local = m_outputs.find(Key { key.microbatch, key.stage - 1 });
            key.stage > 0 && local != m_outputs.end())
            return local->second;
        return take(m_inputs, key, user);
    }

    void appendRecvFinish(const Key& key, InstructionKind kind, std::vector<Instruction>& out)
    {
        if (auto recv = m_pendingRecv.find(key); recv != m_pendingRecv.end()) {
            out.push_back(finishOf(recv->second, kind));
            m_pendingRecv.erase(recv);
        }
    }

    std::vector<Instruction> insertFrees(const std::vector<Instruction>& list) const
    {
        std::vector<std::size_t> lastUse(static_cast<std::size_t>(m_nextBuffer), 0);
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!carriesBuffers(list[i].kind))
                continue;
            for (int id : list[i].buffer_ids)
                lastUse[static_cast<std::size_t>(id)] = i;
        }
        std::vector<std::vector<int>> freedAfter(list.size());
        for (int id = 0; id < m_nextBuffer; ++id)
            freedAfter[lastUse[static_cast<std::size_t>(id)]].push_back(id);
        std::vector<Instruction> result;
        result.reserve(list.size() + static_cast<std::size_t>(m_nextBuffer));
        for (std::size_t i = 0; i < list.size(); ++i) {
            result.push_back(list[i]);
            if (freedAfter[i].empty())
                continue;
            Instruction free;
            free.kind = InstructionKind::FreeBuffer;
            free.microbatch = list[i].microbatch;
            free.microbatch_id = list[i].microbatch_id;
            free.stage = list[i].stage;
            free.buffer_ids = freedAfter[i];
            result.push_back(std::move(free));
        }
        return result;
    }

    RankInstructions& m_rank;
    int m_nStages;
    int m_nextBuffer = 0;
    std::map<Key, std::vector<int>> m_inputs; // received or loaded buffers of a compute op
    std::map<Key, std::vector<int>> m_outputs; // buffers a compute op leaves for its send
    std::map<Key, Instruction> m_pendingRecv; // Recv*Start without its Finish yet
    std::map<Key, Instruction> m_pendingSendFinish; // by forward stage
};

} // namespace

void optimizeInstructions(ExecutionInstructions& plan)
{
    for (RankInstructions& rank : plan.ranks)
        RankOptimizer(rank, plan.n_stages).run();
}

} // namespace stratex::sim
