// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace stratex::sim {

// The pipeline schedules the simulator runs (docs/dynapipe-planner.md §3 and §10).
enum class ScheduleKind {
    GPipe, // all forwards, then all backwards
    OneFOneB, // "1F1B": warm-up min(p-s, m) forwards, then B/F alternation, then B cool-down
    Interleaved1F1B, // "interleaved-1F1B": Megatron's virtual-stage order
    ZbH1, // "ZB-H1": 1F1B with the backward split into B (input grad) and W (weight grad)
    Cyclic, // "cyclic": lock-step cycles, optionally memory-throttled
    WaitFreeCyclic, // "wait-free-cyclic": the cyclic per-executor order, replayed without barriers
    Fifo, // "fifo": event-driven, first come first served per executor
    // "DualPipeV": DeepSeek's V-shaped schedule (deepseek-ai/DualPipe, dualpipev.py) on a V
    // placement, two chunks per device, backward split into B and W where it fills bubbles
    DualPipeV,
    // "ZB-V": the zero-bubble V schedule of Qi et al. 2024 §6, in the order PyTorch's
    // ScheduleZBVZeroBubble runs it (torch/distributed/pipelining/schedules.py), on a V placement
    ZbV,
    // "flexible-interleaved": interleaved 1F1B whose chunks run N contiguous micro-batches, N
    // tunable (SimulationOptions::microbatch_group_size): the Llama 3 schedule (Dubey et al. 2024,
    // "The Llama 3 Herd of Models", §3.3.2 and Figure 6), also Megatron-Core's
    // --microbatch-group-size-per-virtual-pipeline-stage (docs/dynapipe-planner.md §3)
    FlexibleInterleaved,
};

inline constexpr std::array<ScheduleKind, 10> kAllScheduleKinds { ScheduleKind::GPipe, ScheduleKind::OneFOneB,
    ScheduleKind::Interleaved1F1B, ScheduleKind::ZbH1, ScheduleKind::Cyclic, ScheduleKind::WaitFreeCyclic,
    ScheduleKind::Fifo, ScheduleKind::DualPipeV, ScheduleKind::ZbV, ScheduleKind::FlexibleInterleaved };

// The public names of the CLI contract: "GPipe", "1F1B", "interleaved-1F1B", "ZB-H1", "cyclic",
// "wait-free-cyclic", "fifo", "DualPipeV", "ZB-V", "flexible-interleaved".
std::string_view scheduleName(ScheduleKind kind);
std::optional<ScheduleKind> parseScheduleName(std::string_view name); // exact, case-sensitive
// Like parseScheduleName, but throws stratex::Error listing the known names.
ScheduleKind scheduleFromName(std::string_view name);
std::string knownScheduleNames(); // "GPipe, 1F1B, ..." for messages

// True for the schedules that split a backward into B (input gradient) and W (weight gradient)
// ops: ZB-H1, DualPipeV and ZB-V. A W may then run last on its device.
bool splitsBackward(ScheduleKind kind);

} // namespace stratex::sim
