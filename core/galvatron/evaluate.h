// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/galvatron/cost_model.h"
#include "core/galvatron/embedding_cost.h"
#include "core/galvatron/layer_memory.h"
#include "core/galvatron/layer_time.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/pipeline_cost.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::galvatron {

struct LayerBreakdown {
    int layer = 0;
    int stage = 0;
    galvatron::LayerStrategy strategy;
    galvatron::LayerTime time;
    galvatron::LayerMemory memory;
};

struct StageBreakdown {
    int stage = 0;
    int first_layer = 0;
    int layers = 0;
    double time_sync_s = 0; // R_i: layers with gradient sync
    double time_no_sync_s = 0; // C_i: layers without sync plus the embedding's no-sync time
    double embedding_time_s = 0; // the embedding / LM head part of C_i
    double exposed_sync_s = 0; // R_i - (C_0 + ... + C_i)
    int layer_memory_mb = 0; // sum of the layers' ceil'd weights
    int embedding_memory_mb = 0; // embedding / LM head incl. the 1024 MB context
    int global_buffer_mb = 0;
    int memory_cost_mb = 0; // incl. the allocator reserve, as Galvatron reports it
    int memory_remaining_mb = 0; // of the DP budget; negative: does not fit
};

// A plan costed with the full breakdown. plan carries the filled-in costs (time, throughput,
// memory per stage) exactly as the search reports them for the same plan.
struct Evaluation {
    Plan plan;
    std::vector<LayerBreakdown> layers;
    std::vector<StageBreakdown> stages;
    galvatron::PipelineCost pipeline;
    galvatron::EmbeddingTime embedding_time;
    galvatron::EmbeddingMemory embedding_memory;
    galvatron::MemoryBudget budget;
    bool fits = true; // every stage within the budget
    std::vector<std::string> notes;
};

// Costs `plan` (its strategies, division, gbsz, chunks, pipeline type) with Galvatron's model. The
// global memory buffer depends on the search task a plan comes from: a searched plan keeps its
// task's mode and buffer TP; for other plans (strategy files) the first task in Galvatron's order
// whose filters admit the plan is used, so the search's own answers evaluate to the same numbers.
Evaluation evaluate(const galvatron::CostModel& model, const SearchSettings& settings, const Plan& plan);

} // namespace stratex::galvatron
