// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_compare.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/common/number_format.h"
#include "core/planner/planner_work.h"

namespace stratex::planner {

namespace {

std::string paddedLeft(const std::string& text, std::size_t width)
{
    return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

} // namespace

MakespanSpread makespanSpread(const std::vector<double>& makespansMs, int seeds)
{
    MakespanSpread spread;
    spread.seeds = seeds;
    std::vector<double> sorted = makespansMs;
    std::sort(sorted.begin(), sorted.end());
    spread.feasible = static_cast<int>(sorted.size());
    if (sorted.empty())
        return spread;
    spread.min_ms = sorted.front();
    spread.max_ms = sorted.back();
    const std::size_t n = sorted.size();
    spread.median_ms = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return spread;
}

PlanCompareRow planCompareRow(int globalBatch, const ModePair& pair)
{
    PlanCompareRow row;
    row.global_batch = globalBatch;
    row.microbatches = pair.normal.global_microbatches();
    row.normal_time_ms = pair.normal.planning_time_ms;
    row.fast_time_ms = pair.fast.planning_time_ms;
    row.speedup = pair.speedup;
    row.normal_makespan_ms = pair.normal.makespan_ms;
    row.fast_makespan_ms = pair.fast.makespan_ms;
    row.quality_loss_percent = pair.quality_loss_percent;
    row.normal_feasible = pair.normal.feasible;
    row.fast_feasible = pair.fast.feasible;
    row.comparable = pair.comparable;
    row.normal_simulations = pair.normal.candidates_simulated;
    row.fast_simulations = pair.fast.candidates_simulated;
    row.note = pair.note;
    row.normal_timing_runs = pair.normal_timing_runs;
    row.fast_timing_runs = pair.fast_timing_runs;
    row.recommended = recommendMode(pair);
    return row;
}

AutoThreshold autoThreshold(const std::vector<PlanCompareRow>& rows)
{
    std::vector<const PlanCompareRow*> decided;
    for (const PlanCompareRow& row : rows) {
        if (row.recommended.decided)
            decided.push_back(&row);
    }
    AutoThreshold out;
    if (decided.empty()) {
        out.text = "auto: fast above " + std::to_string(out.fast_above_microbatches)
            + " micro-batches (the default: no batch compared)";
        return out;
    }
    // Equal micro-batch counts: the larger batch last, so the order is total and deterministic.
    std::stable_sort(decided.begin(), decided.end(), [](const PlanCompareRow* a, const PlanCompareRow* b) {
        return a->microbatches < b->microbatches;
    });
    out.measured = true;
    out.largest_measured_microbatches = decided.back()->microbatches;
    const PlanCompareRow* lastNormal = nullptr;
    for (const PlanCompareRow* row : decided) {
        if (row->recommended.mode == PlannerMode::Normal)
            lastNormal = row;
    }
    if (!lastNormal) {
        out.fast_above_microbatches = std::max(0, decided.front()->microbatches - 1);
        out.text = "auto: fast above " + std::to_string(out.fast_above_microbatches)
            + " micro-batches (fast recommended for every batch compared)";
    } else {
        out.fast_above_microbatches = lastNormal->microbatches;
        out.text = "auto: fast above " + std::to_string(out.fast_above_microbatches) + " micro-batches ("
            + (lastNormal == decided.back() ? "normal recommended up to the largest batch compared"
                                            : "normal recommended up to batch " + std::to_string(lastNormal->global_batch))
            + ")";
    }
    return out;
}

std::vector<PlanCompareRow> comparePlannerModes(const std::vector<Sample>& pool, const std::vector<int>& globalBatches,
    const LayerCostModel& model, const PlannerConfig& config, ProgressSink& progress, int seeds)
{
    if (seeds < 1)
        throw Error("the number of seeds must be at least 1, got " + std::to_string(seeds));
    for (int batch : globalBatches) {
        if (batch < 1 || static_cast<std::size_t>(batch) > pool.size()) {
            throw Error("global batch " + std::to_string(batch) + " needs between 1 and the "
                + std::to_string(pool.size()) + " samples available");
        }
    }
    // The whole comparison's work before its first planning (each planning has its own budgets).
    requireBoundedPlanCompare(globalBatches, seeds, config);
    std::vector<PlanCompareRow> rows;
    const double steps = double(globalBatches.size());
    for (std::size_t i = 0; i < globalBatches.size(); ++i) {
        const int batch = globalBatches[i];
        const std::vector<Sample> samples(pool.begin(), pool.begin() + batch);
        const double from = double(i) / steps;
        const double share = 1.0 / steps / seeds;
        SubProgress sub(progress, from, from + share);
        PlanCompareRow row = planCompareRow(batch, planBothModes(samples, model, config, sub));
        if (seeds > 1) {
            std::vector<double> normal;
            std::vector<double> fast;
            auto add = [&](const ModePair& pair) {
                if (pair.normal.feasible)
                    normal.push_back(pair.normal.makespan_ms);
                if (pair.fast.feasible)
                    fast.push_back(pair.fast.makespan_ms);
            };
            if (row.normal_feasible)
                normal.push_back(row.normal_makespan_ms);
            if (row.fast_feasible)
                fast.push_back(row.fast_makespan_ms);
            for (int k = 1; k < seeds; ++k) {
                PlannerConfig seeded = config;
                seeded.seed = config.seed + static_cast<std::uint64_t>(k);
                SubProgress step(progress, from + share * k, from + share * (k + 1));
                add(planBothModes(samples, model, seeded, step));
            }
            row.normal_spread = makespanSpread(normal, seeds);
            row.fast_spread = makespanSpread(fast, seeds);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

namespace {

bool hasSpreads(const std::vector<PlanCompareRow>& rows)
{
    return std::any_of(rows.begin(), rows.end(), [](const PlanCompareRow& row) { return row.normal_spread.seeds > 1; });
}

std::string spreadCsv(const MakespanSpread& spread)
{
    if (spread.feasible == 0)
        return ",,";
    return fixed(spread.min_ms, 3) + "," + fixed(spread.median_ms, 3) + "," + fixed(spread.max_ms, 3);
}

} // namespace

std::string planCompareCsv(const std::vector<PlanCompareRow>& rows)
{
    const bool spreads = hasSpreads(rows);
    std::string csv = "batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,fast_makespan_ms,"
                      "quality_loss_percent";
    if (spreads) {
        csv += ",seeds,normal_makespan_min_ms,normal_makespan_median_ms,normal_makespan_max_ms,fast_makespan_min_ms,"
               "fast_makespan_median_ms,fast_makespan_max_ms";
    }
    csv += "\n";
    for (const PlanCompareRow& row : rows) {
        csv += std::to_string(row.global_batch) + "," + std::to_string(row.microbatches) + ","
            + fixed(row.normal_time_ms, 3) + "," + fixed(row.fast_time_ms, 3) + "," + fixed(row.speedup, 3) + ","
            + (row.normal_feasible ? fixed(row.normal_makespan_ms, 3) : "") + ","
            + (row.fast_feasible ? fixed(row.fast_makespan_ms, 3) : "") + ","
            + (row.comparable ? fixed(row.quality_loss_percent, 3) : "");
        if (spreads) {
            csv += "," + std::to_string(row.normal_spread.seeds) + "," + spreadCsv(row.normal_spread) + ","
                + spreadCsv(row.fast_spread);
        }
        csv += "\n";
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
        entry["quality_loss_percent"] = row.comparable ? Json(number(row.quality_loss_percent)) : Json();
        entry["normal_feasible"] = row.normal_feasible;
        entry["fast_feasible"] = row.fast_feasible;
        entry["normal_simulations"] = row.normal_simulations;
        entry["fast_simulations"] = row.fast_simulations;
        entry["normal_timing_runs"] = row.normal_timing_runs;
        entry["fast_timing_runs"] = row.fast_timing_runs;
        entry["recommended_mode"]
            = row.recommended.decided ? Json(std::string(plannerModeName(row.recommended.mode))) : Json();
        if (!row.note.empty())
            entry["note"] = row.note;
        if (row.normal_spread.seeds > 1) {
            auto spread = [&](const MakespanSpread& s) {
                Json json;
                json["min"] = s.feasible ? Json(number(s.min_ms)) : Json();
                json["median"] = s.feasible ? Json(number(s.median_ms)) : Json();
                json["max"] = s.feasible ? Json(number(s.max_ms)) : Json();
                json["spread_percent"] = s.feasible ? Json(number(s.spreadPercent())) : Json();
                json["feasible"] = s.feasible;
                return json;
            };
            entry["seeds"] = row.normal_spread.seeds;
            entry["normal_makespan_spread_ms"] = spread(row.normal_spread);
            entry["fast_makespan_spread_ms"] = spread(row.fast_spread);
        }
        array.push_back(entry);
    }
    Json json;
    json["rows"] = array;
    const AutoThreshold threshold = autoThreshold(rows);
    json["auto_fast_above_microbatches"] = threshold.measured ? Json(threshold.fast_above_microbatches) : Json();
    return json;
}

std::string planCompareText(const std::vector<PlanCompareRow>& rows)
{
    const std::vector<std::string> header { "batch", "micro-batches", "normal ms", "fast ms", "speedup",
        "normal makespan", "fast makespan", "quality loss %", "recommended" };
    std::vector<std::vector<std::string>> cells { header };
    for (const PlanCompareRow& row : rows) {
        cells.push_back({ std::to_string(row.global_batch), std::to_string(row.microbatches),
            fixed(row.normal_time_ms, 1), fixed(row.fast_time_ms, 1), fixed(row.speedup, 2) + "x",
            row.normal_feasible ? fixed(row.normal_makespan_ms, 2) : "-",
            row.fast_feasible ? fixed(row.fast_makespan_ms, 2) : "-",
            row.comparable ? fixed(row.quality_loss_percent, 2) : "-",
            row.recommended.decided ? std::string(plannerModeName(row.recommended.mode)) : "-" });
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
    if (!rows.empty()) {
        int runs = 1;
        for (const PlanCompareRow& row : rows)
            runs = std::max({ runs, row.normal_timing_runs, row.fast_timing_runs });
        text += runs > 1 ? "planning times: the median of up to " + std::to_string(runs) + " runs of each mode\n"
                         : std::string("planning times: one run of each mode\n");
        text += autoThreshold(rows).text + "\n";
    }
    auto spreadText = [](const MakespanSpread& s) {
        if (s.feasible == 0)
            return std::string("no plan");
        return fixed(s.min_ms, 2) + " .. " + fixed(s.max_ms, 2) + " ms (median " + fixed(s.median_ms, 2) + ", spread "
            + fixed(s.spreadPercent(), 2) + " %" + (s.feasible < s.seeds ? ", " + std::to_string(s.feasible) + " feasible" : "")
            + ")";
    };
    for (const PlanCompareRow& row : rows) {
        if (row.normal_spread.seeds > 1) {
            text += "batch " + std::to_string(row.global_batch) + " over " + std::to_string(row.normal_spread.seeds)
                + " seeds: normal " + spreadText(row.normal_spread) + "; fast " + spreadText(row.fast_spread) + "\n";
        }
    }
    return text;
}

} // namespace stratex::planner
