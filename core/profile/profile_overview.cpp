// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/profile_overview.h"

#include <algorithm>
#include <map>

#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

// "layertype_0_bsz8_seq2048" / "layertype_other_bsz8_seq2048" -> (kind, bsz, seq); multi-type
// ("seq[512,512]") and legacy keys without both numbers are not shown.
struct TimeKey {
    bool other = false;
    int layerType = -1;
    int bsz = 0;
    int seq = 0;
};

std::optional<TimeKey> parseTimeKey(std::string_view key)
{
    if (!startsWith(key, "layertype_"))
        return std::nullopt;
    TimeKey parsed;
    const std::vector<std::string_view> parts = splitUnderscore(key.substr(10));
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string_view part = parts[i];
        if (i == 0 && part == "other")
            parsed.other = true;
        else if (i == 0)
            parsed.layerType = parseAllDigits(part).value_or(-1);
        else if (startsWith(part, "bsz"))
            parsed.bsz = parseAllDigits(part.substr(3)).value_or(0);
        else if (startsWith(part, "seq"))
            parsed.seq = parseAllDigits(part.substr(3)).value_or(0);
    }
    if ((!parsed.other && parsed.layerType != 0) || parsed.bsz <= 0 || parsed.seq <= 0)
        return std::nullopt;
    return parsed;
}

template <typename Map> std::vector<std::pair<int, double>> sorted(const Map& map)
{
    return { map.begin(), map.end() };
}

void describeComputation(const ComputationProfile& computation, int seqLength, ProfileOverview& overview)
{
    std::map<int, std::map<int, double>> layerBySeqThenBsz;
    std::map<int, std::map<int, double>> otherBySeqThenBsz;
    for (const TimeEntry& entry : computation.processed) {
        if (const auto key = parseTimeKey(entry.key))
            (key->other ? otherBySeqThenBsz : layerBySeqThenBsz)[key->seq].emplace(key->bsz, entry.value_ms);
    }
    if (layerBySeqThenBsz.empty())
        return;
    // The batch sweep at the target length, else at the length with the most batch sizes.
    int sweepSeq = seqLength;
    if (!layerBySeqThenBsz.contains(sweepSeq)) {
        sweepSeq = layerBySeqThenBsz.begin()->first;
        for (const auto& [seq, byBsz] : layerBySeqThenBsz) {
            if (byBsz.size() >= layerBySeqThenBsz[sweepSeq].size())
                sweepSeq = seq;
        }
    }
    overview.seq_length = sweepSeq;
    overview.layer_ms_per_sample_by_bsz = sorted(layerBySeqThenBsz[sweepSeq]);
    overview.other_ms_per_sample_by_bsz = sorted(otherBySeqThenBsz[sweepSeq]);
    // Galvatron's batch mode fits the time of a micro-batch (per-sample time x bsz) against bsz.
    std::vector<double> x;
    std::vector<double> y;
    for (const auto& [bsz, ms] : overview.layer_ms_per_sample_by_bsz) {
        x.push_back(bsz);
        y.push_back(ms * bsz);
    }
    if (const LinearFitResult fit = fitLine(x, y); fit.ok && x.size() >= 2)
        overview.layer_batch_fit = fit.fit;
    // Sequence mode: bsz 1 at every length, quadratic in the length.
    x.clear();
    y.clear();
    for (const auto& [seq, byBsz] : layerBySeqThenBsz) {
        if (const auto one = byBsz.find(1); one != byBsz.end()) {
            overview.layer_ms_per_sample_by_seq.emplace_back(seq, one->second);
            x.push_back(seq);
            y.push_back(one->second);
        }
    }
    if (const QuadraticFitResult fit = fitQuadratic(x, y); fit.ok)
        overview.layer_seq_fit = fit.fit;
}

void describeMemory(const MemoryProfile& memory, int seqLength, ProfileOverview& overview)
{
    const LayerMemoryGroup* group = memory.findLayer(0, true);
    if (!group)
        group = memory.findLayer(0, false);
    if (!group || group->bySeq.empty())
        return;
    const LayerMemoryEntry* entry = &group->bySeq.front().second;
    for (const auto& [key, candidate] : group->bySeq) {
        if (parseAllDigits(key) == seqLength)
            entry = &candidate;
    }
    overview.parameter_mb = entry->parameter_size_mb;
    overview.activation_mb_per_sample_by_tp = sorted(entry->activation_mb_per_sample);
    overview.checkpoint_mb_per_sample = entry->checkpoint_mb_per_sample;
}

void describeHardware(const HardwareProfiles& hardware, ProfileOverview& overview)
{
    for (const auto& [size, bandwidth] : hardware.allreduce.byGroupSize) {
        ProfileOverview::GroupBandwidth group;
        group.size = size;
        group.consecutive_gb_per_s = bandwidth.consecutive ? bandwidth.consecutive : bandwidth.unspecified;
        group.strided_gb_per_s = bandwidth.strided;
        overview.allreduce.push_back(group);
    }
    overview.p2p_gb_per_s_by_stages = sorted(hardware.p2p.bandwidthByPipelineDegree);
    overview.overlap_slowdown = hardware.overlap.overlap_coe;
}

} // namespace

ProfileOverview describeProfiles(const ProfileSet& profiles, int seqLength)
{
    ProfileOverview overview;
    overview.model_name = profiles.modelName;
    overview.seq_length = seqLength;
    describeComputation(profiles.model.computation, seqLength, overview);
    describeMemory(profiles.model.memory, overview.seq_length, overview);
    describeHardware(profiles.hardware, overview);
    return overview;
}

} // namespace stratex::profile
