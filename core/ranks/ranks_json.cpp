// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/ranks_json.h"

#include <charconv>

namespace stratex::ranks {

using Json = nlohmann::ordered_json;

Json sizesJson(const RankGrid& grid)
{
    const ParallelSizes& s = grid.sizes();
    return Json { { "tp", s.tp }, { "cp", s.cp }, { "ep", s.ep }, { "dp", s.dp }, { "pp", s.pp }, { "etp", s.etp },
        { "edp", s.edp } };
}

namespace {
void appendInt(std::string& out, int value)
{
    char buffer[16];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

void appendGroups(std::string& out, const GroupList& groups)
{
    out += '[';
    for (int g = 0; g < groups.count(); ++g) {
        if (g > 0)
            out += ',';
        out += '[';
        const auto members = groups.group(g);
        for (std::size_t m = 0; m < members.size(); ++m) {
            if (m > 0)
                out += ',';
            appendInt(out, members[m]);
        }
        out += ']';
    }
    out += ']';
}
} // namespace

std::string gridJson(const RankGrid& grid)
{
    std::string out;
    // Each rank appears once per group kind: about 7 characters per entry.
    out.reserve(std::size_t(grid.world()) * kGroupKindCount * 7 + 1024);
    out += "{\"world\":";
    appendInt(out, grid.world());
    out += ",\"order\":";
    out += Json(grid.orderName()).dump();
    out += ",\"sizes\":";
    out += sizesJson(grid).dump();
    out += ",\"groups\":{";
    bool first = true;
    for (GroupKind kind : kAllGroupKinds) {
        if (!first)
            out += ',';
        first = false;
        out += '"';
        out += groupKindName(kind);
        out += "\":";
        appendGroups(out, grid.allGroups(kind));
    }
    out += "}}";
    return out;
}

Json rankJson(const RankGrid& grid, int rank)
{
    const RankCoordinates c = grid.coordinates(rank);
    Json groups = Json::object();
    for (GroupKind kind : kAllGroupKinds) {
        const std::vector<int> members = grid.groupOf(kind, rank);
        groups[std::string(groupKindName(kind))] = members.empty() ? Json(nullptr) : Json(members);
    }
    return Json { { "world", grid.world() }, { "order", grid.orderName() }, { "sizes", sizesJson(grid) },
        { "rank", c.rank }, { "node", c.node }, { "local_rank", c.localRank },
        { "coordinates",
            { { "tp", c.tp }, { "cp", c.cp }, { "dp", c.dp }, { "pp", c.pp }, { "ep", c.ep }, { "etp", c.etp },
                { "edp", c.edp } } },
        { "groups", std::move(groups) } };
}

Json tracerJson(const std::vector<TraceConfigPlan>& plans)
{
    Json configs = Json::array();
    for (const TraceConfigPlan& plan : plans) {
        Json entry { { "index", plan.index } };
        if (plan.input.parseError.empty()) {
            entry["world"] = plan.input.world;
            entry["pp"] = plan.input.pp;
            entry["tp"] = plan.input.tp;
        } else {
            entry["line"] = plan.input.source;
        }
        if (plan.valid)
            entry["dp"] = plan.dp;
        entry["valid"] = plan.valid;
        if (plan.valid) {
            entry["ranks"] = plan.ranks;
            entry["original_ranks"] = plan.originalRanks;
            entry["selected_ranks"] = plan.ranks.size();
            entry["saving_percent"] = plan.savingPercent;
            entry["log_dir"] = plan.logDir;
            entry["micro_batches"] = plan.microBatches;
            entry["global_batch"] = plan.globalBatch;
        } else {
            entry["error"] = plan.error;
        }
        configs.push_back(std::move(entry));
    }
    return Json { { "configs", std::move(configs) } };
}

} // namespace stratex::ranks
