// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_file_export.h"

#include "core/export/galvatron_config.h"
#include "core/export/galvatron_plan_from_strategy.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/paddle_config.h"
#include "core/export/plan_file_checks.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/hardware/hardware_model.h"

namespace stratex::exporting {

ExportedFile exportPlanFile(ExportFormat format, const megatron::PlanFile& plan)
{
    const std::string title(exportFormatTitle(format));
    switch (format) {
    case ExportFormat::Galvatron: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "Galvatron");
        return { strategyFileText(g.plan, g.settings, plan.model, plan.cluster), false, std::move(g.warnings) };
    }
    case ExportFormat::PaddleConfig: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "PaddleNLP");
        return { paddleFineGrainedConfigText(g.plan), false, std::move(g.warnings) };
    }
    case ExportFormat::PaddleScript: {
        GalvatronPlan g = galvatronPlanFromStrategy(plan, "PaddleNLP");
        PaddleScript script = paddleScript(g.plan, g.settings, plan.model);
        g.warnings.insert(g.warnings.end(), script.warnings.begin(), script.warnings.end());
        return { std::move(script.text), true, std::move(g.warnings) };
    }
    case ExportFormat::Megatron: {
        const hardware::HardwareModel hardware(plan.cluster, hardware::efficiencyFor(plan.cluster));
        const MegatronPlanArgs args = megatronPlanArgs(plan, &hardware);
        return { megatronPlanScript(plan, args), true, args.warnings };
    }
    case ExportFormat::PytorchSchedule:
        requireValidStrategy(plan, title);
        return { pipelineScheduleCsv(plan.strategy), false, {} };
    case ExportFormat::Torchtitan: {
        TorchtitanConfig config = torchtitanPlanConfig(plan);
        return { std::move(config.text), false, std::move(config.warnings) };
    }
    }
    return {};
}

ExportedFile exportPlanFileText(ExportFormat format, std::string_view planFileText, const std::string& name)
{
    const megatron::PlanFile plan = megatron::PlanFile::parse(planFileText, name);
    ExportedFile file = exportPlanFile(format, plan);
    std::vector<std::string> warnings;
    for (const std::string& assumption : plan.assumptions)
        warnings.push_back("note: " + assumption);
    warnings.insert(warnings.end(), file.warnings.begin(), file.warnings.end());
    file.warnings = std::move(warnings);
    return file;
}

} // namespace stratex::exporting
