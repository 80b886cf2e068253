// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/cost/layer_time.h"

#include "core/cost/comm_keys.h"

namespace stratex::cost {

namespace {

// Backward compute `b` overlapped with a gradient sync of `d` MB: both run κ times slower while
// they overlap; whichever ends first leaves the other to finish at full speed.
struct Overlap {
    double overlapped = 0;
    double rest = 0;
};

Overlap overlapSync(double d, double b, double dc, double dco, double kappa)
{
    const double a = d * dco;
    const double beta = b * kappa;
    if (a > beta)
        return { beta, (d - beta / dco) * dc };
    if (a < beta)
        return { a, b - a / kappa };
    return { beta, 0.0 };
}

} // namespace

LayerTime layerTime(const CostModel& model, const LayerStrategy& s, int gbsz, int chunks)
{
    const CostSettings& settings = model.settings();
    const CostInputs& in = model.inputs();
    const int L = settings.model.num_layers;
    const std::int64_t S = settings.model.seq_length;
    const std::int64_t H = settings.model.hidden_size;
    const int tpsp = s.tpsp();
    const int sdp = s.sdp();
    const double kappa = in.overlap_coe;
    const bool mixed = settings.mixed();

    LayerTime result;
    const std::int64_t lbsz = model.localBatch(gbsz, chunks, s.dp);
    result.local_batch = lbsz;

    // Compute, ms for all L layers (Galvatron scales by L and divides by L at the end).
    double fct = 0;
    if (in.time.layer.kind == profile::TimeModel::Kind::Linear)
        fct = (in.time.layer.fit.slope * (double(lbsz) / tpsp) + in.time.layer.fit.intercept) * L;
    else
        fct = ((in.time.layer.constant_ms * double(lbsz)) / tpsp) * L;
    double bct = fct * 2;
    if (s.checkpoint)
        bct = bct + fct;

    // Data-parallel gradient sync over the sdp group.
    const double parameterMb = in.memory.layer.parameter_size_mb / s.tp;
    double dpmsg = (double(2 * (sdp - 1)) * (parameterMb / sdp)) * L;
    if (mixed)
        dpmsg = dpmsg / 2;
    const double agmsg = dpmsg * 0.5;
    const double dc = in.allreduce.at(gradientSyncKey(sdp, s.tp));
    const double dco = dc * kappa;

    // TP / SP collectives from the latency tables.
    double tpc = 0;
    if (tpsp > 1) {
        const double messageMb = double(lbsz * S * H * (mixed ? 2 : 4)) / 1024 / 1024;
        if (s.tp == 1) {
            double n = 4 * L;
            if (s.checkpoint)
                n = n * 1.5;
            tpc = in.collectives.all2allFor(s.sp).lookup(messageMb) * n;
        } else {
            double n = 6 * L;
            if (s.checkpoint)
                n = n * 1.5;
            tpc = in.collectives.allgatherFor(s.tp).lookup(messageMb) * n;
        }
    }

    double p2p = 0;
    if (s.pp > 1) {
        double p2pmsg = double(std::int64_t(s.pp) * 2 * lbsz * S * H * 4) / 1024 / 1024;
        if (mixed)
            p2pmsg = p2pmsg / 2;
        p2p = p2pmsg * in.p2p.at(s.pp);
    }

    const double zero3Gather = agmsg * dc;
    double results[2] = {};
    Overlap syncOverlap;
    for (int sync = 1; sync >= 0; --sync) {
        const double d = dpmsg * sync;
        const Overlap ov = overlapSync(d, bct, dc, dco, kappa);
        if (sync == 1)
            syncOverlap = ov;
        double r = 0;
        if (tpsp == 1 && s.dp > 1)
            r = (fct + ov.overlapped) + ov.rest;
        else if (s.dp == 1 && tpsp > 1)
            r = (fct + bct) + tpc;
        else if (s.dp == 1 && tpsp == 1)
            r = fct + bct;
        else
            r = ((fct + ov.overlapped) + ov.rest) + tpc;
        if (s.dp_type == DpType::Zero3)
            r = r + zero3Gather;
        if (s.pp > 1)
            r = r + p2p;
        r = r * (0.001 * settings.costmodel_coe);
        r = r / L;
        results[sync] = r;
    }
    result.sync_s = results[1];
    result.no_sync_s = results[0];

    result.forward_ms = fct / L;
    result.backward_ms = bct / L;
    result.dp_message_mb = dpmsg / L;
    if (s.dp > 1) {
        // How much of the overlapped window is sync beyond plain backward, and what is exposed.
        result.dp_sync_overlapped_ms = syncOverlap.overlapped / L;
        result.dp_sync_exposed_ms = (syncOverlap.overlapped + syncOverlap.rest - bct) / L;
    }
    result.tp_comm_ms = tpc / L;
    result.zero3_gather_ms = s.dp_type == DpType::Zero3 ? zero3Gather / L : 0;
    result.p2p_ms = p2p / L;
    return result;
}

} // namespace stratex::cost
