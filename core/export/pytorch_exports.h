// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/export/export_note.h"
#include "core/model/model_description.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// One compute action of torch.distributed.pipelining's schedule IR (schedules.py, _Action): a
// stage, F (forward) or B (full backward), a micro-batch. Written "{stage}{type}{micro-batch}",
// e.g. "0F0", "1B3" (_Action.__repr__).
struct PipelineAction {
    int stage = 0;
    char type = 'F';
    int microbatch = 0;

    std::string text() const;
    auto operator<=>(const PipelineAction&) const = default;
};

// The plan's pipeline schedule per rank, one stage per rank: GPipe (every forward, then every
// backward, both in micro-batch order) or 1F1B (rank r runs min(m, p - r) warm-up forwards, then
// alternates backward and forward, then the remaining backwards), as Schedule1F1B / ScheduleGPipe
// order them.
std::vector<std::vector<PipelineAction>> pipelineOrder(const galvatron::Plan& plan);

// The schedule as the CSV PipelineScheduleMulti._load_csv and _PipelineScheduleRuntime._load_csv
// read in their default "compute_only" format: one row per pipeline rank, one action per cell
// (what torchtitan's parallelism.pipeline_parallel_schedule_csv points at).
std::string pipelineScheduleCsv(const galvatron::Plan& plan);
// The same CSV for any per-rank action lists (both plan types' pipelineOrder): one row per rank,
// actions comma-separated, rows ended by "\r\n" (csv.writer's default line terminator).
std::string pipelineScheduleCsv(const std::vector<std::vector<PipelineAction>>& ranks);

// A torchtitan job config (torchtitan v0.2's TOML, torchtitan/config/job_config.py; torchtitan main
// has moved to Python configs): [parallelism] degrees, schedule, micro-batch size and the exact
// layer division (module_fqns_per_model_part), [activation_checkpoint] and [training] batch sizes
// and sequence length, [model] when the model is one of torchtitan's llama3 flavours. What torchtitan
// cannot express is commented and is a note of the export (export_note.h).
struct TorchtitanConfig {
    std::string text;
    std::vector<ExportNote> notes; // every comment of the file, and the [model] note
};

// The model torchtitan v0.2 ships for a description (torchtitan/models/*/__init__.py flavours),
// matched by architecture, not name: llama3 "8B", "70B", "405B" (Stratex's llama3.1 presets and
// llama3-405b; torchtitan's llama3 TransformerModelArgs always apply Llama 3.1's RoPEScalingArgs,
// so llama3-8b / -70b match with a note that Llama 3 has no scaling) and deepseek_v3 "671B"
// (deepseek-v3-style: multi-latent attention with the same ranks). Nothing for others (llama 2, Qwen 2.5, Mixtral, GPT-3, a resized
// preset): torchtitan has no flavour of them.
struct TorchtitanModel {
    std::string name; // "llama3", "deepseek_v3"
    std::string flavor; // "8B", ...
    std::string note; // what differs, or ""
};
std::optional<TorchtitanModel> torchtitanModel(const model::ModelDescription& model);
// The note of a model torchtitan does not ship (its job config then trains the flavour it names
// by default, not this model) or ships with a difference; none for an exact flavour.
std::optional<ExportNote> torchtitanModelNote(const model::ModelDescription& model);
// The [model] section (or a comment saying why there is none): the shared lines of both exports.
std::string torchtitanModelSection(const model::ModelDescription& model, bool float8);
std::string tomlString(const std::string& text);
TorchtitanConfig torchtitanConfig(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model);

} // namespace stratex::exporting
