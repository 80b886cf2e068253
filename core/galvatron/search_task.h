// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <vector>

#include "core/galvatron/search_settings.h"
#include "core/galvatron/strategy_space.h"

namespace stratex::galvatron {

// One unit of Galvatron main's outer search: a batch size, a chunk count, a pipeline degree, a
// TP/SP mode and a "global buffer TP" bound B on every layer's TP/SP degree.
struct SearchTask {
    int index = 0; // position in Galvatron's task order: ties go to the earlier task
    int gbsz = 0;
    int chunks = 0;
    int pp = 0;
    TpSpMode mode = TpSpMode::TpOnly;
    int buffer_tp = 1;

    int microBatch() const { return gbsz / chunks; }
};

// Galvatron's batch sizes: [settle_bsz], or max(min_bsz, bsz_scale), + bsz_scale, ... <= max_bsz.
std::vector<int> batchSizes(const SearchSettings& settings);

// The chunk counts tried for a batch size, ascending: settle_chunk if it divides the batch, else
// every divisor.
std::vector<int> chunkCounts(const SearchSettings& settings, int gbsz);

// Galvatron's order of the TP/SP modes within one (gbsz, chunks, pp).
inline constexpr std::array<TpSpMode, 3> kTaskModeOrder { TpSpMode::TpOnly, TpSpMode::SpOnly, TpSpMode::TpWithSp };

// The global buffer TP bounds B Galvatron tries for one (gbsz, chunks, pp) in a mode, in its task
// order. The largest is max(world / pp, 1) capped by max_tp_deg; SP-only tries only that one, the
// other modes every power of two from max(world / pp / maxDp, 1) up to it with B * pp <= world.
// Shared by the task list and by evaluate(), which must size a given plan's buffer as the search
// would have.
std::vector<int> globalBufferTpDegrees(TpSpMode mode, int world, int pp, int maxDp, int maxTpDeg);

// The task list in Galvatron's order (docs/galvatron-search.md §2.5).
std::vector<SearchTask> buildTasks(const SearchSettings& settings, const StrategySpace& space);

// Largest data-parallel degree a task admits: min(gbsz / chunks, world / pp), at least 1.
int maxDataParallel(const SearchTask& task, int world);

// Indices into space.layers / space.embeddings of the strategies a task may use (§2.6): pp equal,
// TP/SP degree <= B, dp <= maxDataParallel, the mode's TP/SP kinds. With UnevenBatch::Skip also
// leaves out strategies whose dp does not divide the micro-batch. Vocabulary TP needs sequence
// parallelism (Galvatron asserts): without it those embedding strategies are left out.
struct TaskCandidates {
    std::vector<int> layers;
    std::vector<int> embeddings;
};
TaskCandidates taskCandidates(const SearchTask& task, const StrategySpace& space, const SearchSettings& settings);

} // namespace stratex::galvatron
