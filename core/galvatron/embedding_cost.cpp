// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/embedding_cost.h"

#include <cmath>

#include "core/galvatron/comm_keys.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/zero_ratio.h"

namespace stratex::galvatron {

namespace {

// Compute overlapped with communication: while both run they slow down by κ; the compute's
// remainder then runs at full speed (or the communication alone when it is longer).
double overlapped(double comm, double comp, double kappa)
{
    const double slowed = comp * kappa;
    return slowed > comm ? comm + (slowed - comm) / kappa : comm;
}

} // namespace

EmbeddingTime embeddingTime(const CostModel& model, const EmbeddingStrategy& e, int gbsz, int chunks)
{
    const CostSettings& settings = model.settings();
    const CostInputs& in = model.inputs();
    const int pp = e.pp;
    const int tpsp = e.tpsp();
    const int sdp = e.sdp();
    const double kappa = in.overlap_coe;
    EmbeddingTime result;
    result.sync_s.assign(std::size_t(pp), 0.0);
    result.no_sync_s.assign(std::size_t(pp), 0.0);
    const std::int64_t lbsz = model.localBatch(gbsz, chunks, e.dp);
    result.local_batch = lbsz;

    double gt = 0;
    if (in.time.other.kind == profile::TimeModel::Kind::Linear)
        gt = in.time.other.fit.slope * ((double(lbsz) / tpsp) / e.cp) + in.time.other.fit.intercept;
    else
        gt = ((in.time.other.constant_ms * double(lbsz)) / tpsp) / e.cp;
    result.compute_ms = gt;
    std::vector<double> fct(static_cast<std::size_t>(pp), 0.0);
    if (pp == 1) {
        fct[0] = gt;
    } else {
        fct[0] = gt / 2;
        fct[std::size_t(pp - 1)] = gt / 2;
    }

    const double dpc = (in.allreduce.at(gradientSyncKey(sdp, e.tp)) * (sdp - 1)) / sdp;
    result.dpc_ms_per_mb = dpc;
    const double fac = settings.mixed() ? 0.5 : 1.0;
    std::vector<double> msg(static_cast<std::size_t>(pp), 0.0);
    if (pp == 1) {
        msg[0] = (in.memory.off.modelStates(e.tp) / 4) * fac;
    } else {
        msg[0] = (in.memory.first.modelStates(e.tp) / 4) * fac;
        msg[std::size_t(pp - 1)] = (in.memory.last.modelStates(e.tp) / 4) * fac;
    }
    const bool zero3 = e.dp_type == DpType::Zero3;
    const double ff = zero3 ? 0.5 : 0.0;
    const double bf = zero3 ? 1.0 : 0.5;

    double t1 = 0;
    if (e.tp > 1) {
        const double messageMb = double(lbsz * settings.model.seq_length * settings.model.hidden_size
                                     * std::int64_t(settings.mixed() ? 2 : 4))
            / 1024 / 1024;
        t1 = in.collectives.allgatherFor(e.tp).lookup(messageMb);
    }
    std::vector<double> tpt(static_cast<std::size_t>(pp), 0.0);
    if (pp == 1) {
        tpt[0] = t1 + t1;
    } else {
        tpt[0] = t1;
        tpt[std::size_t(pp - 1)] = t1;
    }

    result.stages.assign(std::size_t(pp), EmbeddingStageSteps {});
    const std::size_t last = std::size_t(pp - 1);
    for (std::size_t i : { std::size_t(0), last }) {
        EmbeddingStageSteps& steps = result.stages[i];
        const double comm = msg[i] * dpc;
        steps.compute_ms = fct[i];
        steps.message_mb = msg[i];
        steps.forward_comm_ms = comm * ff;
        steps.backward_comm_ms = comm * bf;
        steps.forward_ms = overlapped(steps.forward_comm_ms, fct[i], kappa);
        steps.backward_ms = overlapped(steps.backward_comm_ms, fct[i] * 2, kappa);
        steps.backward_no_sync_ms = overlapped(comm * (bf - 0.5), fct[i] * 2, kappa);
        steps.vocab_tp_ms = tpt[i];
        result.sync_s[i] = 0.001 * ((steps.forward_ms + steps.backward_ms) + tpt[i]);
        result.no_sync_s[i] = 0.001 * ((steps.forward_ms + steps.backward_no_sync_ms) + tpt[i]);
    }
    return result;
}

EmbeddingMemory embeddingMemory(const CostModel& model, const EmbeddingStrategy& e, int gbsz, int chunks)
{
    const CostSettings& settings = model.settings();
    const profile::MemoryModels& memory = model.inputs().memory;
    const int pp = e.pp;
    const std::size_t last = std::size_t(pp - 1);
    const std::int64_t lbsz = model.localBatch(gbsz, chunks, e.dp);
    const double phi = zeroRatio(e.dp_type, e.sdp(), chunks, settings.mixed(), settings.async_grad_reduce);

    EmbeddingMemory result;
    result.model_states_mb.assign(std::size_t(pp), 0.0);
    result.activation_mb.assign(std::size_t(pp), 0.0);
    if (pp == 1) {
        result.model_states_mb[0] = memory.off.modelStates(e.tp) * phi;
        result.activation_mb[0] = memory.off.activation(e.tpsp()) * double(1 * lbsz);
    } else {
        const bool flush = settings.pipeline_type == PipelineType::PipeDreamFlush;
        const std::int64_t firstInFlight = flush ? pp : chunks;
        const std::int64_t lastInFlight = flush ? 1 : chunks;
        result.model_states_mb[0] = memory.first.modelStates(e.tp) * phi;
        result.model_states_mb[last] = memory.last.modelStates(e.tp) * phi;
        result.activation_mb[0] = memory.first.activation(e.tpsp()) * double(firstInFlight * lbsz);
        result.activation_mb[last] = memory.last.activation(e.tpsp()) * double(lastInFlight * lbsz);
    }
    for (int i = 0; i < pp; ++i) {
        const double total
            = ((0 + result.model_states_mb[std::size_t(i)]) + result.activation_mb[std::size_t(i)]) + kPytorchContextMb;
        result.total_mb.push_back(total);
        result.weight_mb.push_back(weightMb(total));
    }
    return result;
}

} // namespace stratex::galvatron
