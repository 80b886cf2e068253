// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_compare.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/planner/planner.h"

namespace stratex::planner {

namespace {

std::string paddedLeft(const std::string& text, std::size_t width)
{
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

} // namespace

std::vector<PlanCompareRow> comparePlannerModes(const std::vector<Sample>& pool, const std::vector<int>& globalBatches,
    const LayerCostModel& model, const PlannerConfig& config, ProgressSink& progress)
{
    for (int batch : globalBatches) {
        if (batch < 1 || static_cast<std::size_t>(batch) > pool.size()) {
            throw Error("global batch " + std::to_string(batch) + " needs between 1 and the "
                + std::to_string(pool.size()) + " samples available");
        }
    }
    std::vector<PlanCompareRow> rows;
    const double steps = 2.0 * double(globalBatches.size());
    int step = 0;
    for (int batch : globalBatches) {
        const std::vector<Sample> samples(pool.begin(), pool.begin() + batch);
        PlanCompareRow row;
        row.global_batch = batch;
        PlanResult normal;
        PlanResult fast;
        for (const PlannerMode mode : { PlannerMode::Normal, PlannerMode::Fast }) {
            SubProgress sub(progress, step / steps, (step + 1) / steps);
            ++step;
            PlannerConfig modeConfig = config;
            modeConfig.mode = mode;
            (mode == PlannerMode::Normal ? normal : fast) = planGlobalBatch(samples, model, modeConfig, sub);
        }
        row.microbatches = normal.global_microbatches();
        row.normal_time_ms = normal.planning_time_ms;
        row.fast_time_ms = fast.planning_time_ms;
        row.speedup = fast.planning_time_ms > 0 ? normal.planning_time_ms / fast.planning_time_ms : 0;
        row.normal_feasible = normal.feasible;
        row.fast_feasible = fast.feasible;
        row.normal_makespan_ms = normal.makespan_ms;
        row.fast_makespan_ms = fast.makespan_ms;
        row.normal_simulations = normal.candidates_simulated;
        row.fast_simulations = fast.candidates_simulated;
        if (normal.feasible && fast.feasible && normal.makespan_ms > 0)
            row.quality_loss_percent = (fast.makespan_ms - normal.makespan_ms) / normal.makespan_ms * 100;
        if (!normal.feasible)
            row.note = "normal: " + normal.infeasible_reason;
        else if (!fast.feasible)
            row.note = "fast: " + fast.infeasible_reason;
        rows.push_back(row);
    }
    return rows;
}

std::string planCompareCsv(const std::vector<PlanCompareRow>& rows)
{
    std::string csv = "batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,fast_makespan_ms,"
                      "quality_loss_percent\n";
    for (const PlanCompareRow& row : rows) {
        const bool both = row.normal_feasible && row.fast_feasible;
        csv += std::to_string(row.global_batch) + "," + std::to_string(row.microbatches) + ","
            + fixed(row.normal_time_ms, 3) + "," + fixed(row.fast_time_ms, 3) + "," + fixed(row.speedup, 3) + ","
            + (row.normal_feasible ? fixed(row.normal_makespan_ms, 3) : "") + ","
            + (row.fast_feasible ? fixed(row.fast_makespan_ms, 3) : "") + ","
            + (both ? fixed(row.quality_loss_percent, 3) : "") + "\n";
    }
    return csv;
}

nlohmann::ordered_json planCompareJson(const std::vector<PlanCompareRow>& rows)
{
    using Json = nlohmann::ordered_json;
    auto number = [](double value) { return std::round(value * 1000) / 1000; };
    Json array = Json::array();
    for (const PlanCompareRow& row : rows) {
        Json entry;
        entry["batch"] = row.global_batch;
        entry["microbatches"] = row.microbatches;
        entry["normal_time_ms"] = number(row.normal_time_ms);
        entry["fast_time_ms"] = number(row.fast_time_ms);
        entry["speedup"] = number(row.speedup);
        entry["normal_makespan_ms"] = row.normal_feasible ? Json(number(row.normal_makespan_ms)) : Json();
        entry["fast_makespan_ms"] = row.fast_feasible ? Json(number(row.fast_makespan_ms)) : Json();
        entry["quality_loss_percent"]
            = row.normal_feasible && row.fast_feasible ? Json(number(row.quality_loss_percent)) : Json();
        entry["normal_feasible"] = row.normal_feasible;
        entry["fast_feasible"] = row.fast_feasible;
        entry["normal_simulations"] = row.normal_simulations;
        entry["fast_simulations"] = row.fast_simulations;
        if (!row.note.empty())
            entry["note"] = row.note;
        array.push_back(entry);
    }
    Json json;
    json["rows"] = array;
    return json;
}

std::string planCompareText(const std::vector<PlanCompareRow>& rows)
{
    const std::vector<std::string> header { "batch", "micro-batches", "normal ms", "fast ms", "speedup",
        "normal makespan", "fast makespan", "quality loss %" };
    std::vector<std::vector<std::string>> cells { header };
    for (const PlanCompareRow& row : rows) {
        const bool both = row.normal_feasible && row.fast_feasible;
        cells.push_back({ std::to_string(row.global_batch), std::to_string(row.microbatches),
            fixed(row.normal_time_ms, 1), fixed(row.fast_time_ms, 1), fixed(row.speedup, 2) + "x",
            row.normal_feasible ? fixed(row.normal_makespan_ms, 2) : "-",
            row.fast_feasible ? fixed(row.fast_makespan_ms, 2) : "-",
            both ? fixed(row.quality_loss_percent, 2) : "-" });
    }
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& line : cells) {
        for (std::size_t c = 0; c < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());
    }
    std::string text;
    for (const auto& line : cells) {
        for (std::size_t c = 0; c < line.size(); ++c)
            text += (c ? "  " : "") + paddedLeft(line[c], width[c]);
        text += "\n";
    }
    for (const PlanCompareRow& row : rows) {
        if (!row.note.empty())
            text += "batch " + std::to_string(row.global_batch) + ": " + row.note + "\n";
    }
    return text;
}

} // namespace stratex::planner
