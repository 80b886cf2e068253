// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/layer_time.h"

#include "core/galvatron/comm_keys.h"

namespace stratex::galvatron {

namespace {

// Backward compute `b` overlapped with a gradient sync of `d` MB: both run κ times slower while
// they overlap; whichever ends first leaves the other to finish at full speed.
struct Overlap {
    double load = 0;
    double backwardLoad = 0;
    double overlapped = 0;
    double rest = 0;
};

Overlap overlapSync(double d, double b, double dc, double dco, double kappa)
{
    Overlap result;
    result.load = d * dco;
    result.backwardLoad = b * kappa;
    if (result.load > result.backwardLoad) {
        result.overlapped = result.backwardLoad;
        result.rest = (d - result.backwardLoad / dco) * dc;
    } else if (result.load < result.backwardLoad) {
        result.overlapped = result.load;
        result.rest = b - result.load / kappa;
    } else {
        result.overlapped = result.backwardLoad;
        result.rest = 0.0;
    }
    return result;
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
    LayerTimeSteps& steps = result.steps;
    const std::int64_t lbsz = model.localBatch(gbsz, chunks, s.dp);
    result.local_batch = lbsz;

    double fct = 0;
    if (in.time.layer.kind == profile::TimeModel::Kind::Linear)
        fct = (in.time.layer.fit.slope * (double(lbsz) / tpsp) + in.time.layer.fit.intercept) * L;
    else
        fct = ((in.time.layer.constant_ms * double(lbsz)) / tpsp) * L;
    double bct = fct * 2;
    if (s.checkpoint)
        bct = bct + fct;
    steps.fct_ms = fct;
    steps.bct_ms = bct;

    const double parameterMb = in.memory.layer.parameter_size_mb / s.tp;
    double dpmsg = (double(2 * (sdp - 1)) * (parameterMb / sdp)) * L;
    if (mixed)
        dpmsg = dpmsg / 2;
    const double agmsg = dpmsg * 0.5;
    const double dc = in.allreduce.at(gradientSyncKey(sdp, s.tp));
    const double dco = dc * kappa;
    steps.dp_message_mb = dpmsg;
    steps.zero3_message_mb = agmsg;
    steps.dc_ms_per_mb = dc;
    steps.dco_ms_per_mb = dco;

    double tpc = 0;
    if (tpsp > 1) {
        const double messageMb = double(lbsz * S * H * (mixed ? 2 : 4)) / 1024 / 1024;
        double n = (s.tp == 1 ? 4 : 6) * L;
        if (s.checkpoint)
            n = n * 1.5;
        const profile::LatencyTable& table
            = s.tp == 1 ? in.collectives.all2allFor(s.sp) : in.collectives.allgatherFor(s.tp);
        tpc = table.lookup(messageMb) * n;
        steps.tp_message_mb = messageMb;
        steps.tp_collectives = n;
    }
    steps.tp_comm_ms = tpc;

    double p2p = 0;
    if (s.pp > 1) {
        double p2pmsg = double(std::int64_t(s.pp) * 2 * lbsz * S * H * 4) / 1024 / 1024;
        if (mixed)
            p2pmsg = p2pmsg / 2;
        p2p = p2pmsg * in.p2p.at(s.pp);
        steps.p2p_message_mb = p2pmsg;
    }
    steps.p2p_ms = p2p;

    const double zero3Gather = agmsg * dc;
    steps.zero3_gather_ms = s.dp_type == DpType::Zero3 ? zero3Gather : 0;
    double results[2] = {};
    for (int sync = 1; sync >= 0; --sync) {
        const double d = dpmsg * sync;
        const Overlap ov = overlapSync(d, bct, dc, dco, kappa);
        if (sync == 1) {
            steps.sync_load_ms = ov.load;
            steps.backward_load_ms = ov.backwardLoad;
            steps.overlapped_ms = ov.overlapped;
            steps.rest_ms = ov.rest;
        }
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
        (sync == 1 ? steps.sync_total_ms : steps.no_sync_total_ms) = r;
        r = r * (0.001 * settings.costmodel_coe);
        r = r / L;
        results[sync] = r;
    }
    result.sync_s = results[1];
    result.no_sync_s = results[0];
    return result;
}

} // namespace stratex::galvatron
