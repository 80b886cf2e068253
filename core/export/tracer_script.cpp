// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/tracer_script.h"

#include <sstream>

#include "core/common/error.h"
#include "core/export/shell_quote.h"

namespace stratex::exporting {

using ranks::TraceConfigPlan;

std::string expandTracerTemplate(const std::string& commandTemplate)
{
    std::string out;
    out.reserve(commandTemplate.size() + 32);
    std::size_t i = 0;
    while (i < commandTemplate.size()) {
        // "${name}" is the user's own shell expansion: leave it alone.
        const bool shellExpansion = i > 0 && commandTemplate[i - 1] == '$';
        if (commandTemplate[i] == '{' && !shellExpansion) {
            const std::size_t close = commandTemplate.find('}', i);
            if (close != std::string::npos) {
                const std::string name = commandTemplate.substr(i + 1, close - i - 1);
                bool known = false;
                for (const char* placeholder : kTracerPlaceholders)
                    known = known || name == placeholder;
                if (known) {
                    out += "${" + name + "}";
                    i = close + 1;
                    continue;
                }
            }
        }
        out += commandTemplate[i++];
    }
    return out;
}

namespace {
std::string joined(const std::vector<int>& values)
{
    std::string text;
    for (int value : values) {
        if (!text.empty())
            text += ' ';
        text += std::to_string(value);
    }
    return text;
}

const char* selectionName(ranks::TraceSelection selection)
{
    return selection == ranks::TraceSelection::Dense ? "dense: one rank per pipeline stage (tp = cp = dp = 0)"
                                                     : "MoE: one rank per (pipeline stage, expert-parallel rank)";
}
} // namespace

std::string tracerScript(const std::vector<TraceConfigPlan>& plans, const ranks::TracerSettings& settings,
    const TracerScriptOptions& options)
{
    if (options.commandTemplate.find_first_not_of(" \t\r\n") == std::string::npos)
        throw Error("the tracer command template is empty; give the command to run per rank, e.g. "
                    "\"python pretrain_gpt.py --fake-wrank {rank} --fake-world-size {world}\"");

    int validCount = 0;
    long long selectedTotal = 0;
    long long originalTotal = 0;
    for (const TraceConfigPlan& plan : plans) {
        if (plan.valid) {
            ++validCount;
            selectedTotal += static_cast<long long>(plan.ranks.size());
            originalTotal += plan.originalRanks;
        }
    }

    std::ostringstream s;
    s << "#!/usr/bin/env bash\n"
      << "# Fake-rank workload tracer batch, written by stratex.\n"
      << "# Rank selection: " << selectionName(settings.selection) << ".\n"
      << "# Order " << commentLine(settings.order) << ", cp " << settings.cp << ", ep " << settings.ep
      << ", micro-batch size " << settings.microBatchSize << ", model " << commentLine(settings.model) << ".\n"
      << "# Command per rank: " << commentLine(options.commandTemplate) << "\n"
      << "# Logs go to $STRATEX_LOG_ROOT (default: " << commentLine(options.defaultLogRoot)
      << ")/<config log dir>/fake_rank_<rank>.log.\n"
      << "# A failing rank is counted and the batch goes on; the script exits 1 if any rank failed.\n"
      << "set -u\n\n"
      << "LOG_ROOT=\"${STRATEX_LOG_ROOT:-" << options.defaultLogRoot << "}\"\n"
      << "model=" << shellQuote(settings.model) << "\n"
      << "cp=" << settings.cp << "\n"
      << "ep=" << settings.ep << "\n"
      << "micro_batch_size=" << settings.microBatchSize << "\n"
      << "TOTAL_RUNS=0\n"
      << "TOTAL_FAILURES=0\n\n";

    s << "# One selected rank. Arguments: rank world pp tp dp log_dir config micro_batches global_batch.\n"
      << "trace_rank() {\n"
      << "    local rank=$1 world=$2 pp=$3 tp=$4 dp=$5 log_dir=$6 config=$7 micro_batches=$8 global_batch=$9\n"
      << "    " << expandTracerTemplate(options.commandTemplate) << "\n"
      << "}\n\n";

    s << "# One configuration. Arguments: config world pp tp dp log_dir micro_batches global_batch ranks...\n"
      << "run_config() {\n"
      << "    local config=$1 world=$2 pp=$3 tp=$4 dp=$5 log_dir=$6 micro_batches=$7 global_batch=$8\n"
      << "    shift 8\n"
      << "    local ranks=(\"$@\")\n"
      << "    local dir=\"${LOG_ROOT}/${log_dir}\"\n"
      << "    local failures=0 done_count=0 started=$SECONDS\n"
      << "    echo \"============================================================\"\n"
      << "    echo \"CONFIGURATION ${config}: WORLD_SIZE=${world}, PP=${pp}, TP=${tp}, DP=${dp}\"\n"
      << "    echo \"Tracing ${#ranks[@]} of ${world} ranks: ${ranks[*]}\"\n"
      << "    echo \"============================================================\"\n"
      << "    if ! mkdir -p \"$dir\"; then\n"
      << "        echo \"cannot create ${dir}: skipping configuration ${config}\" >&2\n"
      << "        TOTAL_FAILURES=$((TOTAL_FAILURES + ${#ranks[@]}))\n"
      << "        return\n"
      << "    fi\n"
      << "    for rank in \"${ranks[@]}\"; do\n"
      << "        done_count=$((done_count + 1))\n"
      << "        echo \"[config ${config}] rank ${rank} (${done_count}/${#ranks[@]}) -> "
         "${dir}/fake_rank_${rank}.log\"\n"
      << "        if trace_rank \"$rank\" \"$world\" \"$pp\" \"$tp\" \"$dp\" \"$dir\" \"$config\" \"$micro_batches\" "
         "\"$global_batch\" >\"${dir}/fake_rank_${rank}.log\" 2>&1; then\n"
      << "            :\n"
      << "        else\n"
      << "            local status=$?\n"
      << "            failures=$((failures + 1))\n"
      << "            echo \"  rank ${rank} failed with exit status ${status}; see ${dir}/fake_rank_${rank}.log\" >&2\n"
      << "        fi\n"
      << "    done\n"
      << "    TOTAL_RUNS=$((TOTAL_RUNS + ${#ranks[@]}))\n"
      << "    TOTAL_FAILURES=$((TOTAL_FAILURES + failures))\n"
      << "    echo \"Configuration ${config} done: $(( ${#ranks[@]} - failures ))/${#ranks[@]} ranks succeeded, "
         "${failures} failed, $((SECONDS - started)) s (traced ${#ranks[@]} instead of ${world} ranks)\"\n"
      << "    echo\n"
      << "}\n\n";

    s << "echo \"Megatron-LM workload tracer: " << validCount << " of " << plans.size() << " configurations valid, "
      << selectedTotal << " ranks to trace instead of " << originalTotal << "\"\n";
    for (const TraceConfigPlan& plan : plans) {
        if (plan.valid)
            continue;
        const std::string label = plan.input.parseError.empty() ? std::to_string(plan.input.world) + " "
                + std::to_string(plan.input.pp) + " " + std::to_string(plan.input.tp)
                                                                : plan.input.source;
        s << "echo "
          << shellQuote("Skipping configuration " + std::to_string(plan.index) + " (" + label + "): " + plan.error)
          << " >&2\n";
    }
    s << "\n";
    for (const TraceConfigPlan& plan : plans) {
        if (!plan.valid)
            continue;
        s << "run_config " << plan.index << ' ' << plan.input.world << ' ' << plan.input.pp << ' ' << plan.input.tp
          << ' ' << plan.dp << ' ' << shellQuote(plan.logDir) << ' ' << plan.microBatches << ' ' << plan.globalBatch
          << ' ' << joined(plan.ranks) << "\n";
    }
    s << "\necho \"All configurations done: $((TOTAL_RUNS - TOTAL_FAILURES))/${TOTAL_RUNS} ranks succeeded, "
         "${TOTAL_FAILURES} failed\"\n"
      << "[ \"$TOTAL_FAILURES\" -eq 0 ]\n";
    return s.str();
}

} // namespace stratex::exporting
