// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/ranks/tracer_plan.h"

namespace stratex::exporting {

// Placeholders a tracer command template may use; each becomes the value for the rank and
// config being traced.
inline constexpr const char* kTracerPlaceholders[] = { "rank", "world", "pp", "tp", "dp", "cp", "ep", "model", "config",
    "log_dir", "micro_batches", "micro_batch_size", "global_batch" };

struct TracerScriptOptions {
    std::string
        commandTemplate; // shell code run once per selected rank, e.g. "python pretrain_gpt.py --fake-wrank {rank}"
    std::string defaultLogRoot = "logs"; // overridable at run time with STRATEX_LOG_ROOT
};

// A bash script in the spirit of the seed tracer's update_pretrain_gpt.sh: for every valid config
// it creates the log directory and runs the command once per selected rank into
// fake_rank_<rank>.log, prints progress and a per-config summary, and keeps going when a rank
// fails. Invalid configs are listed and skipped. Exits 1 when any rank failed.
// Throws stratex::Error for an empty template.
std::string tracerScript(const std::vector<ranks::TraceConfigPlan>& plans, const ranks::TracerSettings& settings,
    const TracerScriptOptions& options);

// The template with every {placeholder} replaced by a reference to the script's variable.
std::string expandTracerTemplate(const std::string& commandTemplate);

} // namespace stratex::exporting
