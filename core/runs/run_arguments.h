// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The argument dump Megatron-LM prints at start (megatron/training/arguments.py _print_args,
// NVIDIA/Megatron-LM @ d98e8a64ddf3, the same since core_r0.8.0):
//
//   ------------------------ arguments ------------------------
//     accumulate_allreduce_grads_in_fp32 .............. True
//     ...
//   -------------------- end of arguments ---------------------
//
// One "  name <dots> value" line per argparse destination, the dots padding the name to 48
// characters, values as Python's str() prints them (None, True, 4096, RMSNorm, [1, 2]).
// Turned into Stratex's model and strategy; what a log does not say is listed, never guessed. The one
// reader of Megatron arguments: the exports' round trip reads their arguments through it too.
// Megatron's meaning of each argument, and what a strategy cannot hold costed as the nearest it
// can, with a note: neither bf16 nor fp16 (fp32 training) as bf16; --recompute-method block as
// uniform; a --pipeline-model-parallel-layout whose chunks are not a strategy's division as the
// even division. A layout a strategy can hold gives its first / last stage layers and vpp.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model_description.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::runs {

struct ArgumentValue {
    std::string value; // as printed; "None" kept as is
    int line = 0; // 1-based line of the log
};

struct ArgumentDump {
    std::map<std::string, ArgumentValue, std::less<>> values;
    int first_line = 0; // the header line; 0 when the log has no dump
    std::string file;

    bool present() const { return first_line > 0; }
    // The value, or nullopt when the argument is missing or None.
    std::optional<std::string> find(std::string_view name) const;
};

// What the model and the strategy were, read from the dump, with every argument Stratex needed
// and did not find (empty when both are complete) and what was derived rather than read.
struct RunArguments {
    std::optional<model::ModelDescription> model;
    std::optional<megatron::ParallelStrategy> strategy;
    std::optional<int> world_size;
    std::string rank_order = "tp-cp-ep-dp-pp"; // "tp-cp-ep-pp-dp" with --use-tp-pp-dp-mapping
    std::vector<std::string> missing;
    std::vector<std::string> notes;
};

// The arguments Stratex needs from a dump to cost a run, in the order an error lists them.
const std::vector<std::string_view>& requiredArguments();

// Throws InputError naming the file and line of a value of the wrong form (a layer count that is
// not a whole number, a parallel size of 0, ...).
RunArguments runArguments(const ArgumentDump& dump);

} // namespace stratex::runs
