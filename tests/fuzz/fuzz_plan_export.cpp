// SPDX-License-Identifier: GPL-3.0-or-later
// Stratex plan files on any bytes, through every export as `export --strategy PLAN --to ...` runs
// them: read, checked (Megatron's rules, the degree products of core/common/checked_math.h),
// costed and written. Issue 26: wrapped products were divided by (SIGFPE) in all six exports.
#include "core/export/plan_file_export.h"
#include "core/megatron/plan_file.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const megatron::PlanFile plan = megatron::PlanFile::parse(fuzz::text(data, size), "fuzz.json");
        // The fuzzer's time limit is per input: keep to what exporting a small run costs.
        if (megatron::pipelineWork(plan.strategy) > 4096 || plan.model.num_layers > 256)
            return;
        for (const exporting::ExportFormat format : exporting::exportFormats()) {
            try {
                (void)exporting::exportPlanFile(format, plan);
            } catch (const Error&) {
                // A format that cannot express the plan refuses it by name; the others still run.
            }
        }
    });
    return 0;
}
