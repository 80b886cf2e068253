// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/megatron/estimate.h"
#include "core/megatron/model_time_evidence.h"
#include "core/megatron/plan_evidence.h"

namespace stratex::cli {

// One estimate of the stratex model as text: the plan, its time and where it goes, throughput and
// each stage's times and memory breakdown. Shared by `search` (its best plan) and `evaluate`.
std::string estimateText(const megatron::Estimate& estimate);
// "tp8 pp16 ...: 12.345 s/iter, 1234 tokens/s/GPU, MFU 41.2 %, peak 71234 MB".
std::string estimateLine(const megatron::Estimate& estimate);

// "evidence: covered by the reference runs" or "extrapolated: note; note" (one line, no newline).
std::string evidenceLine(const megatron::PlanEvidence& evidence);
// {"extrapolated": bool, "notes": [...]}: a plan's "evidence" in the JSON of search and evaluate.
nlohmann::ordered_json evidenceJson(const megatron::PlanEvidence& evidence);
// The plan's memory margin (megatron::memoryMargin, docs/memory-model.md "Memory margin"): its
// note as a line, and as JSON.
std::string memoryMarginLine(const megatron::Estimate& estimate);
nlohmann::ordered_json memoryMarginJson(const megatron::Estimate& estimate);
// How far the measured runs of the plan's model were predicted (megatron::modelTimeEvidence,
// docs/evidence.md "Measured runs of the model"): its note as a line, and as JSON.
std::string modelTimeLine(const model::ModelDescription& model);
nlohmann::ordered_json modelTimeJson(const model::ModelDescription& model);

} // namespace stratex::cli
