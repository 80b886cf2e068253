// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/plan_evidence.h"

#include <algorithm>

#include "core/common/number_format.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/hsdp.h"

namespace stratex::megatron {

namespace {

void raise(int& maximum, int value) { maximum = std::max(maximum, value); }

void widen(int& low, int& high, int value, bool first)
{
    low = first ? value : std::min(low, value);
    high = first ? value : std::max(high, value);
}

std::string billions(double value) { return fixed(value, value < 10 ? 1 : 0); }

std::string zeroName(int zero) { return zero == 0 ? std::string("plain DDP (ZeRO-0)") : "ZeRO-" + std::to_string(zero); }

std::size_t index(CpCommType value) { return std::size_t(value); }
std::size_t index(PipelineSchedule value) { return std::size_t(value); }

bool cpExchangeOutside(const EvidenceCoverage& c, const ParallelStrategy& s)
{
    return s.cp > 1 && s.cp > c.max_cp_by_comm[index(s.cp_comm_type)];
}

bool scheduleOutside(const EvidenceCoverage& c, const ParallelStrategy& s)
{
    return s.pp > 1 && !c.schedules[index(s.schedule)];
}

} // namespace

std::string groupedCount(long long value)
{
    std::string digits = std::to_string(value < 0 ? -value : value);
    for (int at = int(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(std::size_t(at), ",");
    return value < 0 ? "-" + digits : digits;
}

void addToCoverage(EvidenceCoverage& c, const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    const ParallelStrategy& s)
{
    const bool first = c.runs == 0;
    ++c.runs;
    raise(c.max_tp, s.tp);
    raise(c.max_pp, s.pp);
    raise(c.max_cp, s.cp);
    raise(c.max_ep, s.ep);
    if (s.cp > 1)
        raise(c.max_cp_by_comm[index(s.cp_comm_type)], s.cp);
    if (s.pp > 1)
        c.schedules[index(s.schedule)] = true;
    if (s.zero >= 0 && s.zero < int(c.max_dp_by_zero.size()))
        raise(c.max_dp_by_zero[std::size_t(s.zero)], s.dp);
    if (isHybridSharded(s))
        raise(c.max_hsdp_replicas, s.dpReplicas());
    widen(c.min_world, c.max_world, cluster.worldSize(), first);
    const double params = model::countParameters(model).total / 1e9;
    c.min_params_b = first ? params : std::min(c.min_params_b, params);
    c.max_params_b = first ? params : std::max(c.max_params_b, params);
    widen(c.min_seq_length, c.max_seq_length, model.seq_length, first);
    (model.moe ? c.moe : c.dense) = true;
    const std::string family = hardware::presetFamily(cluster.gpu.name);
    if (std::ranges::find(c.gpu_families, family) == c.gpu_families.end()) {
        c.gpu_families.push_back(family);
        std::ranges::sort(c.gpu_families);
    }
}

EvidenceCheck::EvidenceCheck(const EvidenceCoverage& c, const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster)
    : m_coverage(c)
    , m_moe(model.moe.has_value())
{
    auto note = [this](std::string text) { m_sharedNotes.push_back(std::move(text)); };
    if (c.runs == 0) {
        note("no reference run to compare with");
        return;
    }
    const int world = cluster.worldSize();
    if (world < c.min_world || world > c.max_world)
        note(groupedCount(world) + " GPUs: reference runs span " + groupedCount(c.min_world) + "-"
            + groupedCount(c.max_world) + " GPUs");
    const double params = model::countParameters(model).total / 1e9;
    if (params < c.min_params_b * (1 - 1e-9) || params > c.max_params_b * (1 + 1e-9))
        note("a model of " + billions(params) + " B parameters: reference runs span " + billions(c.min_params_b) + "-"
            + billions(c.max_params_b) + " B");
    if (model.seq_length < c.min_seq_length || model.seq_length > c.max_seq_length)
        note("sequence length " + groupedCount(model.seq_length) + ": reference runs span "
            + groupedCount(c.min_seq_length) + "-" + groupedCount(c.max_seq_length) + " tokens");
    if (model.moe && !c.moe)
        note("a MoE model: no reference run is MoE");
    if (!model.moe && !c.dense)
        note("a dense model: no reference run is dense");
    const std::string family = hardware::presetFamily(cluster.gpu.name);
    if (std::ranges::find(c.gpu_families, family) == c.gpu_families.end())
        note("GPU " + cluster.gpu.name + ": no reference run on the " + family + " family");
}

bool EvidenceCheck::extrapolated(const ParallelStrategy& s) const
{
    const EvidenceCoverage& c = m_coverage;
    if (!m_sharedNotes.empty())
        return true;
    if (s.tp > c.max_tp || s.pp > c.max_pp || s.cp > c.max_cp || (m_moe && s.ep > c.max_ep))
        return true;
    if (isHybridSharded(s) && s.dpReplicas() > c.max_hsdp_replicas)
        return true;
    if (cpExchangeOutside(c, s) || scheduleOutside(c, s))
        return true;
    return s.dp > 1 && s.zero >= 0 && s.zero < int(c.max_dp_by_zero.size())
        && s.dp > c.max_dp_by_zero[std::size_t(s.zero)];
}

PlanEvidence EvidenceCheck::evidence(const ParallelStrategy& s) const
{
    const EvidenceCoverage& c = m_coverage;
    PlanEvidence out;
    if (c.runs > 0) {
        const auto degree = [&](const char* name, int value, int maximum) {
            if (value > maximum)
                out.notes.push_back(std::string(name) + " " + groupedCount(value) + ": no reference run uses " + name
                    + " beyond " + groupedCount(maximum));
        };
        degree("TP", s.tp, c.max_tp);
        degree("PP", s.pp, c.max_pp);
        degree("CP", s.cp, c.max_cp);
        if (s.cp <= c.max_cp && cpExchangeOutside(c, s)) {
            const int covered = c.max_cp_by_comm[index(s.cp_comm_type)];
            out.notes.push_back("CP " + groupedCount(s.cp) + " over " + std::string(cpCommTypeName(s.cp_comm_type))
                + ": no reference run exchanges context that way"
                + (covered > 0 ? " beyond CP " + groupedCount(covered) : std::string()));
        }
        if (scheduleOutside(c, s))
            out.notes.push_back("the " + std::string(pipelineScheduleName(s.schedule)) + " schedule: no reference run uses it");
        if (m_moe)
            degree("EP", s.ep, c.max_ep);
        if (s.dp > 1 && s.zero >= 0 && s.zero < int(c.max_dp_by_zero.size())) {
            const int covered = c.max_dp_by_zero[std::size_t(s.zero)];
            if (s.dp > covered)
                out.notes.push_back(zeroName(s.zero) + " across " + groupedCount(s.dp) + " ranks: no reference run uses "
                    + zeroName(s.zero) + (covered > 0 ? " beyond " + groupedCount(covered) + " ranks" : std::string()));
        }
        if (isHybridSharded(s) && s.dpReplicas() > c.max_hsdp_replicas)
            out.notes.push_back("HSDP (" + zeroName(s.zero) + " sharded over " + groupedCount(s.dpShard()) + " of "
                + groupedCount(s.dp) + " data-parallel ranks, " + groupedCount(s.dpReplicas())
                + " replicas): no reference run uses HSDP"
                + (c.max_hsdp_replicas > 0 ? " beyond " + groupedCount(c.max_hsdp_replicas) + " replicas" : std::string()));
    }
    out.notes.insert(out.notes.end(), m_sharedNotes.begin(), m_sharedNotes.end());
    out.extrapolated = !out.notes.empty();
    return out;
}

PlanEvidence planEvidence(const EvidenceCoverage& coverage, const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const ParallelStrategy& strategy)
{
    return EvidenceCheck(coverage, model, cluster).evidence(strategy);
}

} // namespace stratex::megatron
