// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared fixture access for the planner suites: the DynaPipe cost models and the DP ground
// truth, copied into tests/data/dynapipe.

#include <regex>
#include <string>

#include "core/common/bounded_read.h"
#include "core/common/json_reader.h"
#include "core/planner/dynapipe_cost_model.h"

#include "support/test_paths.h"

namespace stratex::test {

inline std::string dynapipeFixture(const char* name)
{
    return fixture(QStringLiteral("dynapipe/") + QString::fromUtf8(name)).toStdString();
}

inline const planner::DynapipeCostModel& gptCostModel()
{
    static const planner::DynapipeCostModel model
        = planner::DynapipeCostModel::load(dynapipeFixture("gpt_6.7b_cost_model.json"));
    return model;
}

inline const planner::DynapipeCostModel& t5CostModel()
{
    static const planner::DynapipeCostModel model
        = planner::DynapipeCostModel::load(std::vector<std::filesystem::path> {
            dynapipeFixture("t5_11b_cost_model_tp1_none.json"), dynapipeFixture("t5_11b_cost_model_tp1_full.json") });
    return model;
}

// dp_ground_truth.json writes infeasible objectives as the bare token Infinity (Python's json
// module), which is not JSON: read those as null.
inline const JsonDocument& dpGroundTruth()
{
    static const JsonDocument document = [] {
        const std::string path = dynapipeFixture("dp_ground_truth.json");
        const std::string text = std::regex_replace(readTextFile(path), std::regex(R"(\bInfinity\b)"), "null");
        return JsonDocument::parse(text, path);
    }();
    return document;
}

} // namespace stratex::test
