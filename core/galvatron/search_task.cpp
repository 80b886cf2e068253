// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_task.h"

#include <algorithm>
#include <cstdint>

namespace stratex::galvatron {

std::vector<int> batchSizes(const SearchSettings& settings)
{
    if (settings.settle_bsz > 0)
        return { settings.settle_bsz };
    std::vector<int> sizes;
    for (int b = std::max(settings.min_bsz, settings.bsz_scale); b <= settings.max_bsz; b += settings.bsz_scale)
        sizes.push_back(b);
    return sizes;
}

std::vector<int> chunkCounts(const SearchSettings& settings, int gbsz)
{
    if (settings.settle_chunk != -1) {
        if (settings.settle_chunk > 0 && gbsz % settings.settle_chunk == 0)
            return { settings.settle_chunk };
        return {};
    }
    // Divisors up to the square root and their partners: a batch of 2^20 has 21 divisors, and
    // trying all 2^20 counts made a wide batch range hang before the search began.
    std::vector<int> small;
    std::vector<int> large;
    for (int i = 1; std::int64_t(i) * i <= gbsz; ++i) {
        if (gbsz % i != 0)
            continue;
        small.push_back(i);
        if (i != gbsz / i)
            large.push_back(gbsz / i);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

int maxDataParallel(const SearchTask& task, int world)
{
    return std::max(std::min(task.gbsz / task.chunks, world / task.pp), 1);
}

std::vector<int> globalBufferTpDegrees(TpSpMode mode, int world, int pp, int maxDp, int maxTpDeg)
{
    int maxTp = std::max(world / pp, 1);
    if (maxTp > maxTpDeg)
        maxTp = maxTpDeg;
    if (mode == TpSpMode::SpOnly)
        return { maxTp };
    std::vector<int> degrees;
    const int minTp = std::max(world / pp / maxDp, 1);
    for (int b = minTp; b <= maxTp; ++b) {
        if ((b & (b - 1)) == 0 && b * pp <= world)
            degrees.push_back(b);
    }
    return degrees;
}

std::vector<SearchTask> buildTasks(const SearchSettings& settings, const StrategySpace& space)
{
    const int world = settings.world();
    std::vector<SearchTask> tasks;
    for (int gbsz : batchSizes(settings)) {
        for (int chunks : chunkCounts(settings, gbsz)) {
            for (int pp : space.pipelineDegrees) {
                if (pp > chunks || pp > settings.model.num_layers)
                    continue;
                SearchTask probe;
                probe.gbsz = gbsz;
                probe.chunks = chunks;
                probe.pp = pp;
                const int maxDp = maxDataParallel(probe, world);
                for (TpSpMode mode : kTaskModeOrder) {
                    for (int b : globalBufferTpDegrees(mode, world, pp, maxDp, settings.max_tp_deg)) {
                        SearchTask task = probe;
                        task.index = int(tasks.size());
                        task.mode = mode;
                        task.buffer_tp = b;
                        tasks.push_back(task);
                    }
                }
            }
        }
    }
    return tasks;
}

TaskCandidates taskCandidates(const SearchTask& task, const StrategySpace& space, const SearchSettings& settings)
{
    const int maxDp = maxDataParallel(task, settings.world());
    const int microBatch = task.microBatch();
    const auto admits = [&](const auto& s) {
        if (s.pp != task.pp || s.tpsp() > task.buffer_tp || s.dp > maxDp)
            return false;
        if (task.mode == TpSpMode::TpOnly && s.sp != 1)
            return false;
        if (task.mode == TpSpMode::SpOnly && s.tp != 1)
            return false;
        if (settings.uneven_batch == UnevenBatch::Skip && microBatch % s.dp != 0)
            return false;
        return true;
    };
    TaskCandidates candidates;
    for (std::size_t i = 0; i < space.layers.size(); ++i) {
        if (admits(space.layers[i]))
            candidates.layers.push_back(int(i));
    }
    for (std::size_t i = 0; i < space.embeddings.size(); ++i) {
        const galvatron::EmbeddingStrategy& e = space.embeddings[i];
        if (admits(e) && (e.tp == 1 || settings.sequence_parallel))
            candidates.embeddings.push_back(int(i));
    }
    return candidates;
}

} // namespace stratex::galvatron
