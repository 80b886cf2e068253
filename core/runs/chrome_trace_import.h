// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reader of a Chrome trace (JSON object with "traceEvents") written by the PyTorch profiler
// (torch.profiler with ProfilerActivity.CUDA; the file kineto's ChromeTraceLogger writes:
// pytorch/kineto libkineto/src/output_json.cpp @ 114171dfba68), one file per rank as
// torch.profiler.tensorboard_trace_handler writes them. What is read:
//
// * "distributedInfo": {"rank": r, "world_size": n, ...} names the file's rank (without it, each
//   GPU device of the file is taken as a rank); "deviceProperties"[0].name the GPU;
// * complete events ("ph": "X", "ts"/"dur" in microseconds) of "cat" "kernel", "gpu_memcpy",
//   "gpu_memset" on the GPU ("args": {"device", "stream", "External id", ...}); NCCL kernels by
//   name ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", "ncclKernel_SendRecv", ...) and, where
//   kineto linked them to c10d's record_param_comms, by "Collective name" and
//   "Process Group Description" (Megatron names its groups: TENSOR_MODEL_PARALLEL_GROUP,
//   PIPELINE_MODEL_PARALLEL_GROUP, DATA_PARALLEL_GROUP_WITH_CP, ... in parallel_state.py);
// * CPU ops ("cat" "cpu_op" / "user_annotation") with their "External id", which kernels carry
//   too: a kernel is backward when the op that launched it lies inside an
//   "autograd::engine::evaluate_function: ..." op of the same thread, other when inside an
//   "Optimizer.step#..." or "Optimizer.zero_grad#..." annotation, forward otherwise; kernels
//   without a launching op count as other;
// * "ProfilerStep#N" annotations count the iterations in the trace (1 when there are none).
//
// Everything else (flows, counters, metadata, instant events) is skipped.

#include <filesystem>
#include <string>
#include <string_view>

#include "core/common/json_reader.h"
#include "core/common/work_budget.h"
#include "core/runs/measured_run.h"

namespace stratex::runs {

// A trace is read whole and parsed into a document: about kTraceMemoryPerFileByte times the file
// in memory at the peak (issue 26 measured 12 times: a 200 MB trace took 2.4 GB).
inline constexpr double kTraceMemoryPerFileByte = 12;
// The memory parsing a JSON trace of `bytes` takes, against the job memory budget (work_limits.h);
// `name` is the file's, for the message.
WorkEstimate chromeTraceReadEstimate(const std::string& name, double bytes);
// Throws WorkBudgetExceeded beyond that budget unless workBudgetsLifted() (--lift-work-budget).
void requireBoundedTraceRead(const std::string& name, double bytes);

// Throws InputError naming the file and JSON key path of an event that is not what the format
// says (a kernel without a numeric "dur", "traceEvents" not an array), stratex::Error when
// the file cannot be read or is over the input limit, and WorkBudgetExceeded when reading it is
// beyond the memory budget (unless workBudgetsLifted()).
MeasuredRun readChromeTrace(const std::filesystem::path& file);
MeasuredRun parseChromeTrace(std::string_view text, const std::string& name);
MeasuredRun chromeTraceFromJson(const JsonDocument& document);

} // namespace stratex::runs
