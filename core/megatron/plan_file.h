// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/json_reader.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/hardware/cluster_description.h"

namespace stratex::megatron {

inline constexpr std::string_view kPlanFileFormat = "stratex-plan";

// A Megatron-space plan as Stratex writes it (`search --cost-model stratex --out`) and reads it
// (`evaluate`, `export`, File > Open Strategy):
//   { "format": "stratex-plan", "version": 1, "model": {...}, "cluster": {...},
//     "strategy": {...}, "prediction": {...} }
// Stratex writes every part. A user writing a published run's strategy by hand may leave out
// "model" and "cluster" and give them on the command line (a synthesized profile set, --model,
// --cluster, --gpu) instead. "prediction" is what Stratex predicted when it wrote the file, for
// people and diffs; readers ignore it and cost the plan anew.
// PartialPlanFile is the file as written, model and cluster optional; PlanFile (below) a complete one.
class PartialPlanFile {
public:
    static PartialPlanFile load(const std::filesystem::path& path);
    // The same from a file's text; `name` stands for the file in errors (load's path).
    static PartialPlanFile parse(std::string_view text, std::string name);

    const std::string& file() const { return m_file; }
    const std::optional<model::ModelDescription>& model() const { return m_model; }
    const std::optional<hardware::ClusterDescription>& cluster() const { return m_cluster; }

    // The strategy on `model` and `worldSize` GPUs (its defaults depend on them); the defaults
    // taken are added to `assumptions`. InputError naming the file and key for a bad value.
    ParallelStrategy strategy(const model::ModelDescription& model, long long worldSize,
        std::vector<std::string>* assumptions = nullptr) const;

private:
    friend struct PlanFile;
    static PartialPlanFile readDocument(std::shared_ptr<const JsonDocument> document, std::string file);
    std::string m_file;
    std::optional<model::ModelDescription> m_model;
    std::optional<hardware::ClusterDescription> m_cluster;
    std::shared_ptr<const JsonDocument> m_document;
};

// A complete plan: what exports and the GUI need. load() requires the file's "model" and
// "cluster" (an InputError naming the missing key otherwise).
struct PlanFile {
    std::string file;
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    ParallelStrategy strategy;
    std::vector<std::string> assumptions; // defaults taken for strategy keys the file leaves out
    // "schedule": "gpipe": the strategy is costed as 1F1B (readStrategy); the exports run GPipe
    // where the target has it and refuse it elsewhere.
    bool gpipe = false;

    static PlanFile load(const std::filesystem::path& path);
    // The same from a file's text (planFileText): read exactly as load reads the file once written.
    static PlanFile parse(std::string_view text, std::string name);

private:
    static PlanFile fromPartial(const PartialPlanFile& partial);
};

nlohmann::ordered_json planFileJson(const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const Estimate& prediction);
// The plan file as Stratex writes it (planFileJson, two-space indent, a final newline): the Search
// page's Save Plan and its exports of a searched plan use this one text.
std::string planFileText(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    const Estimate& prediction);

// Whether `path` holds a plan file (an object whose "format" is "stratex-plan"); false for anything
// unreadable or else (opening it reports what is wrong).
bool isPlanFile(const std::filesystem::path& path);

} // namespace stratex::megatron
