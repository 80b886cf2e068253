// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_file_export.h"

#include "core/common/error.h"
#include "core/export/galvatron_config.h"
#include "core/export/galvatron_plan_from_strategy.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/paddle_config.h"
#include "core/export/plan_file_checks.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/torchtitan_module.h"
#include "core/hardware/hardware_model.h"

namespace stratex::exporting {

namespace {

// "schedule": "gpipe" (PlanFile::gpipe): Galvatron (pipeline_type "gpipe"), PaddleNLP ("FThenB") and
// torchtitan ("GPipe") run it; the others are refused rather than given 1F1B silently.
void refuseGpipe(const megatron::PlanFile& plan, const std::string& title, const std::string& why)
{
    if (plan.gpipe)
        throw Error((plan.file.empty() ? std::string("the plan") : plan.file) + ": not exported to " + title
            + ": \"schedule\": \"gpipe\" cannot be expressed (" + why + "); plan with \"1f1b\"");
}

} // namespace

ExportedFile exportPlanFile(ExportFormat format, const megatron::PlanFile& plan)
{
    const std::string title(exportFormatTitle(format));
    if (format == ExportFormat::Megatron)
        refuseGpipe(plan, title,
            "Megatron-LM has no GPipe schedule: megatron/core/pipeline_parallel/schedules.py runs 1F1B and "
            "interleaved 1F1B");
    if (format == ExportFormat::PytorchSchedule)
        refuseGpipe(plan, title,
            "the CSV is the cost model's simulated order, which has no GPipe; torch's ScheduleGPipe needs no CSV: "
            "export to torchtitan");
    switch (format) {
    case ExportFormat::Galvatron: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "Galvatron");
        return { galvatronPlanFileText(g, plan), false, std::move(g.notes) };
    }
    case ExportFormat::PaddleConfig: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "PaddleNLP");
        return { paddleFineGrainedConfigText(g.plan), false, std::move(g.notes) };
    }
    case ExportFormat::PaddleScript: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "PaddleNLP");
        PaddleScript script = paddleScript(g.plan, g.settings, plan.model, {}, g.notes);
        return { std::move(script.text), true, std::move(script.notes) };
    }
    case ExportFormat::Megatron: {
        const hardware::HardwareModel hardware(plan.cluster, hardware::efficiencyFor(plan.cluster));
        const MegatronPlanArgs args = megatronPlanArgs(plan, &hardware);
        return { megatronPlanScript(plan, args), true, args.notes };
    }
    case ExportFormat::PytorchSchedule:
        requireValidStrategy(plan, title);
        return { pipelineScheduleCsv(plan.strategy), false, {} };
    case ExportFormat::Torchtitan: {
        TorchtitanConfig config = torchtitanModule(plan); // main (torchtitan_module.h)
        return { std::move(config.text), false, std::move(config.notes) };
    }
    case ExportFormat::MegatronBridge: {
        MegatronBridgeRecipe recipe = megatronBridgePlanRecipe(plan); // refuses GPipe and ZB-H1 itself
        return { megatronBridgeRecipeText(recipe), false, std::move(recipe.notes) };
    }
    }
    return {};
}

ExportedFile exportPlanFileText(ExportFormat format, std::string_view planFileText, const std::string& name)
{
    const megatron::PlanFile plan = megatron::PlanFile::parse(planFileText, name);
    ExportedFile file = exportPlanFile(format, plan);
    std::vector<ExportNote> notes;
    for (const std::string& assumption : plan.assumptions)
        notes.push_back({ ExportNoteKind::Approximation, "strategy", "note: " + assumption });
    notes.insert(notes.end(), file.notes.begin(), file.notes.end());
    file.notes = std::move(notes);
    return file;
}

} // namespace stratex::exporting
