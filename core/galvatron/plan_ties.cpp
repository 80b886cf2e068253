// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/plan_ties.h"

namespace stratex::galvatron {

namespace {

// The words a plan is told apart by, in the order the table's columns show them.
std::vector<std::string> fieldWords(const Plan& p)
{
    const EmbeddingStrategy& e = p.embedding;
    return { "pp " + std::to_string(p.pp), std::string(tpSpModeName(p.tp_sp_mode)),
        "chunks " + std::to_string(p.chunks), "gbs " + std::to_string(p.gbsz),
        "buffer tp " + std::to_string(p.global_buffer_tp), "layers " + p.layerSummary(),
        "vtp " + std::to_string(p.vtp()) + (p.vsp() ? " vsp" : "") + (e.dp_type == DpType::Zero3 ? " vsdp" : "") };
}

} // namespace

std::vector<TiedPlans> groupExactTies(const std::vector<Plan>& plans)
{
    std::vector<TiedPlans> groups;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        bool joined = false;
        for (TiedPlans& group : groups) {
            const Plan& shown = plans[group.plan];
            if (shown.time_cost_s == plans[i].time_cost_s && shown.peakMemoryMb() == plans[i].peakMemoryMb()) {
                group.ties.push_back(i);
                joined = true;
                break;
            }
        }
        if (!joined)
            groups.push_back({ i, {} });
    }
    return groups;
}

std::string tieDifference(const Plan& plan, const Plan& tie)
{
    const std::vector<std::string> a = fieldWords(plan);
    const std::vector<std::string> b = fieldWords(tie);
    std::string out;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (a[i] != b[i])
            out += (out.empty() ? "" : " ") + b[i];
    }
    // Equal in every field shown (two tasks that built the same plan): say which task.
    return out.empty() ? "task " + std::to_string(tie.task_index) : out;
}

std::string tiesLine(const Plan& plan, const std::vector<const Plan*>& ties, std::size_t shown)
{
    if (ties.empty())
        return {};
    std::string out = "also:";
    for (std::size_t i = 0; i < ties.size() && i < shown; ++i)
        out += (i == 0 ? " " : ", ") + tieDifference(plan, *ties[i]);
    if (ties.size() > shown)
        out += " and " + std::to_string(ties.size() - shown) + " more";
    return out;
}

} // namespace stratex::galvatron
