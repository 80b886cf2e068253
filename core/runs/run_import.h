// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Imports a measured run from the files a user has: each file's kind is found from its content
// (a Megatron-LM log, a PyTorch-profiler Chrome trace, a reference-run record), a directory is
// the traces in it (one *.json per rank, as tensorboard_trace_handler writes them), and several
// inputs of one run are merged (a log for the arguments, iteration time and memory; traces for
// the per-stage breakdown).

#include <filesystem>
#include <vector>

#include "core/runs/measured_run.h"
#include "core/runs/megatron_log.h"

namespace stratex::runs {

// A reference-run record (resources/reference-runs/README.md), with its optional
// measured.peak_memory_per_stage_gib list (one value per pipeline stage).
MeasuredRun readRecordRun(const std::filesystem::path& file);

// One file or directory. Throws InputError naming the file when its content is none of the three
// kinds (or is broken), stratex::Error when it cannot be read or a directory holds no *.json.
MeasuredRun importRun(const std::filesystem::path& path, const LogOptions& options = {});
MeasuredRun importRuns(const std::vector<std::filesystem::path>& paths, const LogOptions& options = {});

} // namespace stratex::runs
