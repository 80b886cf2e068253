// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reader of a Megatron-LM training log (the stdout of pretrain_gpt.py and friends), in the
// formats of NVIDIA/Megatron-LM core_r0.8.0 (baf94af3) to d98e8a64ddf3 (2026-08):
//
// * the argument dump (megatron/training/arguments.py _print_args; see megatron_args.h);
// * the per-iteration line of megatron/training/training.py training_log():
//     " [2025-03-11 10:03:26.613417] iteration        3/       8 | consumed samples:          192 |
//      elapsed time per iteration (ms): 5472.9 | throughput per GPU (TFLOP/s/GPU): 150.5 | ..."
//   (one line; the timestamp has no microseconds before 2025);
// * the memory report of megatron/training/utils.py (utils/common_utils.py at HEAD) report_memory:
//     "[Rank 8] (after 2 iterations) memory (MB) | allocated: 27104.55 | max allocated: 40366.77 |
//      reserved: 45290.00 | max reserved: 45290.00"  (MiB; one line per data-parallel rank 0);
// * the timers of megatron/core/timers.py Timers.log, per iteration (normalised by log_interval):
//     "(min, max) time across ranks (ms):" then "    forward-compute ....: (1691.25, 1932.66)";
//     "max time across ranks (ms):" then "    forward-compute ....: 1932.66";
//     "times across ranks (ms):" then "  forward-compute:" and "     rank  3: 1700.12" lines
//   (--timing-log-option minmax, max, all). Blocks before the first iteration line (setup timers)
//   are not per-iteration and are skipped.
//
// Lines may carry a launcher's prefix (srun --label "3: ", torchrun "[default0]:"): markers are
// found anywhere in a line, and the lines of a block lose the prefix its header line had.

#include <filesystem>
#include <string>
#include <string_view>

#include "core/runs/measured_run.h"

namespace stratex::runs {

struct LogOptions {
    // Iterations up to this number are warm-up (allocator growth, NCCL set-up, compilation) and not
    // averaged; the first logged line is never averaged either (it holds the start-up).
    int warmup_iterations = 2;
};

// Throws InputError naming the file and line of a line that starts like one of the formats above
// and does not continue like it (a cut-off iteration line, a memory line without its values), and
// stratex::Error when the file cannot be read or is over the input limit.
MeasuredRun readMegatronLog(const std::filesystem::path& file, const LogOptions& options = {});
MeasuredRun parseMegatronLog(std::string_view text, const std::string& name, const LogOptions& options = {});

// True when `text` (the start of a file) looks like a Megatron log: it holds an argument dump
// header, an iteration line or a memory report.
bool looksLikeMegatronLog(std::string_view text);

} // namespace stratex::runs
