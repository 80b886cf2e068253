// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/export/plan_export.h"
#include "core/megatron/plan_file.h"

namespace stratex::exporting {

// A Stratex plan file (megatron::PlanFile: a Megatron-space strategy with its model and cluster) for a
// training framework. Megatron-LM, torchtitan and PyTorch's schedule CSV take every dimension
// (megatron_plan_args.h, pytorch_plan_exports.h); Galvatron's strategy file and the PaddleNLP
// port's config and script take what Galvatron's per-layer strategies can say
// (galvatron_plan_from_strategy.h) and refuse the rest. Throws stratex::Error when the strategy
// breaks Megatron's rules or uses a dimension the target cannot express.
ExportedFile exportPlanFile(ExportFormat format, const megatron::PlanFile& plan);

// The export of a plan file's text (megatron::planFileText: what the Search page saves for a
// searched plan), read as `stratex-cli export --strategy FILE` reads the file once written:
// byte for byte the CLI's export of the saved plan. `name` stands for the file in errors. The
// defaults the file leaves to the reader (PlanFile::assumptions, which the CLI prints as notes)
// come first in the notes, as "note: ...".
ExportedFile exportPlanFileText(ExportFormat format, std::string_view planFileText, const std::string& name);

} // namespace stratex::exporting
