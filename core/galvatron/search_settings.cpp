// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_settings.h"

#include <cstdint>
#include <string>

#include "core/common/error.h"
#include "core/common/input_limits.h"

namespace stratex::galvatron {

namespace {

bool powerOfTwo(int value)
{
    return value > 0 && (value & (value - 1)) == 0;
}

void require(bool condition, const std::string& reason)
{
    if (!condition)
        throw Error(reason);
}

} // namespace

std::string_view tpSpModeName(TpSpMode mode)
{
    switch (mode) {
    case TpSpMode::TpOnly:
        return "tp_only";
    case TpSpMode::SpOnly:
        return "sp_only";
    case TpSpMode::TpWithSp:
        return "tp_with_sp";
    }
    return "tp_only";
}

std::string_view unevenBatchName(UnevenBatch policy)
{
    switch (policy) {
    case UnevenBatch::Honest:
        return "honest";
    case UnevenBatch::Skip:
        return "skip";
    case UnevenBatch::Galvatron:
        return "galvatron";
    }
    return "honest";
}

galvatron::CostSettings SearchSettings::costSettings() const
{
    galvatron::CostSettings settings;
    settings.world = world();
    settings.model = model;
    settings.mixed_precision = mixed_precision;
    settings.sequence_parallel = sequence_parallel;
    settings.global_memory_buffer = global_memory_buffer;
    settings.async_grad_reduce = async_grad_reduce;
    settings.pipeline_type = pipeline_type;
    settings.costmodel_coe = costmodel_coe;
    settings.batch_rounding
        = uneven_batch == UnevenBatch::Galvatron ? galvatron::BatchRounding::GalvatronFloor : galvatron::BatchRounding::Honest;
    return settings;
}

void SearchSettings::validate() const
{
    require(num_nodes >= 1 && num_gpus_per_node >= 1, "the cluster needs at least one node with one GPU");
    // world() multiplies in int: a settings file can ask for more nodes than the CLI allows.
    const std::int64_t world64 = std::int64_t(num_nodes) * num_gpus_per_node;
    require(world64 <= limits::kMaxWorld,
        "the world size (num_nodes x num_gpus_per_node = " + std::to_string(world64) + ") is unreasonably large");
    require(powerOfTwo(world()),
        "the world size (num_nodes x num_gpus_per_node = " + std::to_string(world())
            + ") must be a power of two: Galvatron's degrees and bandwidth tables are powers of two");
    require(memory_constraint_gb >= 1, "memory_constraint must be at least 1 GB");
    require(memory_constraint_gb <= limits::kMaxGpuMemoryGb,
        "memory_constraint is unreasonably large (at most " + std::to_string(limits::kMaxGpuMemoryGb) + " GB)");
    require(allocator_reserve_fraction == -1 || (allocator_reserve_fraction >= 0 && allocator_reserve_fraction <= 0.9),
        "allocator_reserve must be -1 (Galvatron's rule) or a fraction from 0 to 0.9");
    require(model.seq_length >= 1 && model.hidden_size >= 1 && model.num_layers >= 1 && model.num_heads >= 1
            && model.vocab_size >= 1,
        "seq_length, hidden_size, num_layers, num_heads and vocab_size must be positive");
    require(
        default_dp_type != galvatron::DpType::Zero3, "default_dp_type must be ddp or zero2 (ZeRO-3 is searched per layer)");
    if (settle_bsz <= 0) {
        require(min_bsz >= 1 && max_bsz >= 1 && bsz_scale >= 1, "min_bsz, max_bsz and bsz_scale must be positive");
        require(max_bsz >= std::max(min_bsz, bsz_scale),
            "no batch size to search: max_bsz " + std::to_string(max_bsz)
                + " is below max(min_bsz, bsz_scale) = " + std::to_string(std::max(min_bsz, bsz_scale)));
    }
    require(settle_chunk == -1 || settle_chunk >= 1, "settle_chunk must be -1 (search all) or positive");
    require(
        max_tp_deg >= 1 && max_pp_deg >= 1 && max_sp_deg >= 1, "max_tp_deg, max_pp_deg and max_sp_deg must be >= 1");
    require(costmodel_coe > 0, "costmodel_coe must be positive");
}

} // namespace stratex::galvatron
