// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli plan: DynaPipe-style execution planning of one global batch -- micro-batches from
// the DP, schedule, recompute per micro-batch, simulated makespan and memory, instruction lists.
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/plan_options.h"
#include "core/common/atomic_file.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"
#include "core/export/chrome_trace.h"
#include "core/planner/planner.h"
#include "core/planner/planner_json.h"

namespace stratex::cli {

namespace {

using namespace stratex::planner;
using namespace stratex::sim;

std::string networkText(const PlanResult& plan, const PlannerConfig& config)
{
    if (!plan.communication_modelled)
        return "  network: transfers between stages are free (no link options; see --intra-node-gbps)\n";
    auto link = [](double gbps, double latencyUs) {
        return (gbps > 0 ? fixed(gbps, 0) + " Gbit/s" : std::string("unlimited")) + " + " + fixed(latencyUs, 1) + " us";
    };
    return "  network: activations of hidden " + std::to_string(plan.hidden_size) + " (2 bytes), intra-node "
        + link(config.comm.intra_node_bw_gbps, config.comm.intra_node_lat_us) + ", inter-node "
        + link(config.comm.inter_node_bw_gbps, config.comm.inter_node_lat_us) + ", "
        + (config.gpus_per_node > 0 ? std::to_string(config.gpus_per_node) + " GPUs per node"
                                    : std::string("one node"))
        + "\n";
}

std::string planText(const PlanResult& plan, const PlannerConfig& config)
{
    const double memoryMb = config.device_memory_mb;
    std::string text = std::string(plan.feasible ? "Plan" : "No feasible plan") + " ("
        + std::string(plannerModeName(plan.mode)) + " mode"
        + (plan.requested_mode == PlannerMode::Auto ? ", chosen automatically" : "") + ")\n";
    if (!plan.feasible)
        text += "  reason: " + plan.infeasible_reason + "\n";
    text += "  planning time: " + fixed(plan.planning_time_ms, 1) + " ms (micro-batching "
        + fixed(plan.microbatching_time_ms, 1) + " ms), " + std::to_string(plan.candidates_simulated)
        + " simulations\n";
    text += "  samples: " + std::to_string(plan.microbatching.order.size()) + " -> "
        + std::to_string(plan.global_microbatches()) + " micro-batches (DP recompute "
        + std::string(recomputeTypeName(plan.microbatching.recompute)) + ")\n";
    text += "  makespan: " + fixed(plan.makespan_ms, 3) + " ms\n";
    text += networkText(plan, config);
    text += "  peak memory (MB) per device, limit " + fixed(memoryMb, 0) + ":";
    for (double peak : plan.peak_memory_mb_per_device)
        text += " " + fixed(peak, 0);
    text += "\n";
    for (const GroupPlan& group : plan.groups) {
        text += "  group " + std::to_string(group.dp_group) + ": " + std::string(scheduleName(group.schedule))
            + ", recompute from " + std::string(recomputeTypeName(group.base_recompute)) + ", makespan "
            + fixed(group.makespan_ms, 3) + " ms" + (group.memory_throttled ? ", memory-throttled" : "")
            + (group.adjust_rounds ? ", " + std::to_string(group.adjust_rounds) + " recompute adjustment round(s)" : "")
            + (group.instructions.ranks.empty() ? ""
                    : group.deadlock.ok         ? ", instructions deadlock-free"
                                                : ", DEADLOCK: " + group.deadlock.problem)
            + "\n";
        for (const PlannedMicroBatch& planned : group.microbatches) {
            const MicroBatch& mb = planned.microbatch;
            text += "    mb " + std::to_string(mb.id) + ": " + std::to_string(mb.micro_batch_size) + " x "
                + std::to_string(mb.padded_seqlen)
                + (mb.padded_decoder_seqlen ? "/" + std::to_string(mb.padded_decoder_seqlen) : std::string())
                + ", recompute";
            for (RecomputeType type : planned.recompute_per_device)
                text += " " + std::string(recomputeTypeName(type));
            text += "\n";
        }
    }
    return text;
}

int runPlan(const QStringList& args)
{
    CliParser parser(QStringLiteral("plan"),
        QStringLiteral("Plans one global batch the DynaPipe way: variable-size micro-batches from a dynamic "
                       "program, then the fastest schedule, micro-batch order and per-micro-batch recompute that "
                       "fit the device memory, found by simulation. Prints the plan summary."));
    addPlanOptions(parser);
    parser.option(QStringLiteral("trace"), QStringLiteral("OUT.json"),
        QStringLiteral("Write the chosen plan's timeline as a Chrome trace (Perfetto)."));
    parser.option(QStringLiteral("plan"), QStringLiteral("OUT.json"),
        QStringLiteral("Write the whole plan as JSON, with the per-rank instruction lists."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print the plan summary as JSON."));
    parser.inputLimitOption();
    parser.workBudgetOption();
    parser.parse(args);
    PlanInputs inputs = readPlanOptions(parser);
    inputs.config.lift_work_budget = parser.liftsWorkBudget(); // the planner's budgets (planner_work.h)

    // Ctrl-C stops the planner within one simulation (exit 130, nothing printed or written).
    InterruptProgress progress;
    const PlanResult plan = planGlobalBatch(inputs.samples, *inputs.model, inputs.config, progress);
    progress.finish();

    // The trace and the plan are written as one set, and only for a feasible plan: a failed
    // command leaves no output (issue 26: an infeasible plan wrote both files and exited 1, and
    // `--plan MISSING_DIR/p.json` left the trace written).
    std::vector<exporting::ChromeTraceSection> sections;
    std::vector<PathToWrite> outputs;
    if (plan.feasible && parser.isSet(QStringLiteral("trace"))) {
        for (const GroupPlan& group : plan.groups) {
            if (!group.simulation.timeline.devices.empty()) {
                sections.push_back(
                    { (plan.groups.size() > 1 ? "dp group " + std::to_string(group.dp_group) + " " : std::string())
                            + std::string(scheduleName(group.schedule)),
                        &group.simulation.timeline });
            }
        }
        outputs.push_back({ parser.value(QStringLiteral("trace")).toStdString(),
            [&sections](const ContentSink& sink) { exporting::writeChromeTrace(sink, sections); } });
    }
    if (plan.feasible && parser.isSet(QStringLiteral("plan"))) {
        outputs.push_back({ parser.value(QStringLiteral("plan")).toStdString(),
            [&](const ContentSink& sink) { sink(jsonText(planJson(plan, inputs.config.device_memory_mb), 1, "the plan") + "\n"); } });
    }
    writePathsAtomically(outputs);
    if (parser.isSet(QStringLiteral("json")))
        printJson(planSummaryJson(plan, inputs.config.device_memory_mb));
    else
        printOut(planText(plan, inputs.config));
    if (!plan.feasible) // the exit code says it failed; stderr says why (stdout may be a pipe to a file)
        printErr("stratex-cli plan: no feasible plan: " + plan.infeasible_reason
            + (parser.isSet(QStringLiteral("trace")) || parser.isSet(QStringLiteral("plan")) ? " (nothing written)" : "")
            + "\n");
    return plan.feasible ? kExitOk : kExitInvalidInput;
}

const RegisterCommand registration({ QStringLiteral("plan"),
    QStringLiteral("Pipeline planner: micro-batches, schedule, recompute, makespan (DynaPipe)"), 50, runPlan });

} // namespace

} // namespace stratex::cli
