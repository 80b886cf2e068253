// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string_view>

#include "core/galvatron/cost_settings.h"
#include "core/galvatron/strategy.h"
#include "core/profile/memory_model.h"
#include "core/profile/time_model.h"

namespace stratex::galvatron {

// Which kinds of TP/SP a search task lets layers use (Galvatron main's tp_sp_mode).
enum class TpSpMode { TpOnly, SpOnly, TpWithSp };
std::string_view tpSpModeName(TpSpMode mode);

// What to do with a batch that does not split evenly over chunks x dp.
enum class UnevenBatch {
    Honest, // cost the busiest replica's micro-batch, ceil(gbsz / (chunks * dp)) (default)
    Skip, // leave such strategies out of the search
    Galvatron, // Galvatron main's gbsz // chunks // dp: costs fewer samples than it trains on
};
std::string_view unevenBatchName(UnevenBatch policy);

// Galvatron main's search settings under their Galvatron names, with the defaults of its
// search_dist.yaml (docs/galvatron-search.md §1.1). Context parallelism stays disabled, as
// in that YAML; fine_grained_mode is 1 (per-layer DP).
struct SearchSettings {
    // hardware_info
    int num_nodes = 1;
    int num_gpus_per_node = 8;
    int memory_constraint_gb = 38;
    // Stratex: the share of memory_constraint held back for the caching allocator; -1 is
    // Galvatron's rule (20 % above 20 GB, none at or below).
    double allocator_reserve_fraction = -1;

    // model_info, common_train_info (seq_length 8192 and llama2-7b's shape, as the YAML)
    galvatron::ModelShape model { "llama2-7b", 8192, 4096, 32, 32, 32000 };
    bool sequence_parallel = true;
    bool global_memory_buffer = true;

    // parallelism_info
    galvatron::MixedPrecision mixed_precision = galvatron::MixedPrecision::Bf16;
    galvatron::DpType default_dp_type = galvatron::DpType::Zero2; // ddp or zero2: what "not ZeRO-3" means
    galvatron::PipelineType pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    bool async_grad_reduce = true;

    // batch_size_info
    int min_bsz = 64;
    int max_bsz = 64;
    int bsz_scale = 8;
    int settle_bsz = -1; // > 0: search this batch size only
    int settle_chunk = -1; // != -1: search this number of chunks only (if it divides the batch)

    // search_space_info
    bool disable_dp = false;
    bool disable_tp = false;
    bool disable_sp = false;
    bool disable_pp = false;
    bool disable_ckpt = false;
    bool disable_fsdp = false; // no ZeRO-3
    bool disable_embedding_lmhead_tp = false;
    bool disable_embedding_lmhead_sp = false;
    int max_tp_deg = 8;
    int max_pp_deg = 8;
    int max_sp_deg = 8;

    // profiling_info
    profile::TimeProfileMode time_profile_mode = profile::TimeProfileMode::Sequence;
    profile::MemoryProfileMode memory_profile_mode = profile::MemoryProfileMode::Static;

    // debug_info
    double costmodel_coe = 1.0;

    // Stratex: batches that do not divide evenly (Galvatron main miscounts them).
    UnevenBatch uneven_batch = UnevenBatch::Honest;

    // Stratex: run even beyond the work budget (search_work.h). The GUI sets it after asking;
    // the CLI never does. The hard limit on tasks holds regardless.
    bool lift_work_budget = false;

    int world() const { return num_nodes * num_gpus_per_node; }
    galvatron::CostSettings costSettings() const;

    // Throws stratex::Error with a one-line reason for settings the search cannot run with.
    void validate() const;
};

} // namespace stratex::galvatron
