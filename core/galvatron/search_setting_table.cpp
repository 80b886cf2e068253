// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/search_setting_table.h"

#include "core/common/input_limits.h"
#include "core/model/model_setting_rows.h"

namespace stratex::galvatron {

namespace {

using settings::row;
using settings::SettingKind;
using settings::SettingSpec;
using S = SearchSettings;
using galvatron::ModelShape;

constexpr double kMaxBatch = limits::kMaxBatch;

SettingSpec integer(std::string_view flag, std::string_view peer, std::string_view group, std::string_view label,
    std::string_view valueName, double minimum, double maximum, std::string_view help)
{
    SettingSpec spec
        = settings::settingSpec(SettingKind::Integer, flag, group, label, valueName, help, minimum, maximum);
    spec.peerName = peer;
    return spec;
}

SettingSpec flag(std::string_view flag, std::string_view group, std::string_view label, std::string_view help)
{
    SettingSpec spec = settings::settingSpec(SettingKind::Flag, flag, group, label, "", help);
    spec.peerName = flag;
    return spec;
}

SettingSpec choice(
    std::string_view flag, std::string_view peer, std::string_view group, std::string_view label, std::string_view help)
{
    SettingSpec spec = settings::settingSpec(SettingKind::Choice, flag, group, label, "", help);
    spec.peerName = peer;
    return spec;
}

SettingSpec onOff(
    std::string_view flag, std::string_view peer, std::string_view group, std::string_view label, std::string_view help)
{
    SettingSpec spec = choice(flag, peer, group, label, help);
    spec.kind = SettingKind::Switch;
    return spec;
}

// A model shape flag: the spec profile synth uses (model::modelSettingSpec), under Galvatron's name.
SettingSpec modelSpec(std::string_view flag, std::string_view peer)
{
    SettingSpec spec = model::modelSettingSpec(flag);
    spec.peerName = peer;
    return spec;
}

SettingSpec fromProfiles(SettingSpec spec, std::string_view openText = {})
{
    spec.fromProfiles = true;
    spec.openText = openText;
    return spec;
}

SettingSpec special(SettingSpec spec, std::string_view text)
{
    spec.specialText = text;
    return spec;
}

std::vector<settings::Setting<S>> rows()
{
    constexpr std::string_view cluster = "Cluster";
    constexpr std::string_view batch = "Batch";
    constexpr std::string_view space = "Search space";
    constexpr std::string_view training = "Training";
    constexpr std::string_view profiling = "Profiling and engine";

    SettingSpec reserve = integer("allocator-reserve", "", cluster, "Allocator reserve", "FRACTION", -1, 0.9,
        "Fraction of GPU memory held back for the caching allocator and fragmentation, e.g. 0.1; -1 keeps "
        "Galvatron's rule: 20 % above 20 GB, nothing at or below.");
    reserve.kind = SettingKind::Real;
    reserve.specialText = "Galvatron's rule";

    SettingSpec coe = integer("costmodel-coe", "debug_costmodel_coe", profiling, "Cost factor", "X", 0.01, 100,
        "Galvatron's debug factor on per-layer time.");
    coe.kind = SettingKind::Real;

    SettingSpec name = fromProfiles(integer("model-name", "model_size", "Profiles", "Model name", "NAME", 0, 0,
                                        "Model name, e.g. llama2-7b: picks computation_profiling_{prec}_NAME_all.json "
                                        "among several and names output files."),
        "from the profile's file name");
    name.kind = SettingKind::Text;
    name.defaultText = "from the profile's file name";
    SettingSpec seq = fromProfiles(modelSpec("seq-length", "seq_length"), "from the profile");
    seq.defaultText = "the synthesized set's, else the memory profile's when it holds one, else 8192";

    return {
        row(fromProfiles(integer(
                "num-nodes", "num_nodes", cluster, "Nodes", "N", 1, limits::kMaxNodes, "Nodes in the cluster.")),
            &S::num_nodes),
        row(fromProfiles(integer("num-gpus-per-node", "num_gpus_per_node", cluster, "GPUs per node", "G", 1,
                limits::kMaxGpusPerNode, "GPUs per node.")),
            &S::num_gpus_per_node),
        row(fromProfiles(integer("memory-constraint", "memory_constraint", cluster, "Memory per GPU (GB)", "GB", 1,
                limits::kMaxGpuMemoryGb,
                "GPU memory per device in GB as GPUs count them, binary: 80 is 80 GiB (a synthesized set: its GPU's); "
                "--allocator-reserve holds part of it back.")),
            &S::memory_constraint_gb),
        row(reserve, &S::allocator_reserve_fraction),
        row(special(integer("settle-bsz", "settle_bsz", batch, "Global batch", "B", -1, kMaxBatch,
                        "Search this global batch size only; -1 searches the range."),
                "range below"),
            &S::settle_bsz),
        row(integer("min-bsz", "min_bsz", batch, "Range from", "B", 1, kMaxBatch,
                "Smallest global batch size of the range."),
            &S::min_bsz),
        row(integer(
                "max-bsz", "max_bsz", batch, "Range to", "B", 1, kMaxBatch, "Largest global batch size of the range."),
            &S::max_bsz),
        row(integer("bsz-scale", "bsz_scale", batch, "Range step", "S", 1, kMaxBatch,
                "Step of the batch-size range; the range starts at max(min, step)."),
            &S::bsz_scale),
        row(special(integer("settle-chunk", "settle_chunk", batch, "Micro-batches", "C", -1, kMaxBatch,
                        "Search this number of micro-batches only; -1 searches every divisor."),
                "every divisor"),
            &S::settle_chunk),
        settings::choiceRow(choice("uneven-batch", "", batch, "Uneven batches", unevenBatchExplanation()),
            &S::uneven_batch, unevenBatchName, { UnevenBatch::Honest, UnevenBatch::Skip, UnevenBatch::Galvatron }),
        row(integer("max-tp-deg", "max_tp_deg", space, "Max TP", "T", 1, 1024, "Largest tensor-parallel degree."),
            &S::max_tp_deg),
        row(integer("max-pp-deg", "max_pp_deg", space, "Max PP", "P", 1, 1024, "Largest pipeline degree."),
            &S::max_pp_deg),
        row(integer("max-sp-deg", "max_sp_deg", space, "Max Ulysses SP", "S", 1, 1024,
                "Largest Ulysses sequence-parallel degree."),
            &S::max_sp_deg),
        row(flag("disable-dp", space, "no data parallelism", "No data parallelism (dp = 1)."), &S::disable_dp),
        row(flag("disable-tp", space, "no tensor parallelism", "No Megatron tensor parallelism."), &S::disable_tp),
        row(flag("disable-sp", space, "no Ulysses SP", "No Ulysses sequence parallelism."), &S::disable_sp),
        row(flag("disable-pp", space, "no pipeline parallelism", "No pipeline parallelism."), &S::disable_pp),
        row(flag("disable-ckpt", space, "no checkpointing", "No activation checkpointing."), &S::disable_ckpt),
        row(flag("disable-fsdp", space, "no ZeRO-3", "No ZeRO-3 (FSDP) layers."), &S::disable_fsdp),
        row(flag("disable-embedding-lmhead-tp", space, "no vocab TP",
                "No vocabulary tensor parallelism for embedding / LM head."),
            &S::disable_embedding_lmhead_tp),
        row(flag("disable-embedding-lmhead-sp", space, "no vocab SP", "No Ulysses SP for embedding / LM head."),
            &S::disable_embedding_lmhead_sp),
        settings::choiceRow(
            fromProfiles(choice("mixed-precision", "mixed_precision", training, "Precision", "Training precision.")),
            &S::mixed_precision, galvatron::mixedPrecisionName,
            { galvatron::MixedPrecision::Bf16, galvatron::MixedPrecision::Fp16, galvatron::MixedPrecision::Fp32 }),
        settings::choiceRow(choice("default-dp-type", "default_dp_type", training, "Default DP",
                                "Data parallelism of non-ZeRO-3 layers."),
            &S::default_dp_type, galvatron::dpTypeName, { galvatron::DpType::Zero2, galvatron::DpType::Ddp }),
        settings::choiceRow(choice("pipeline-type", "pipeline_type", training, "Pipeline",
                                "Pipeline schedule: pipedream_flush is 1F1B."),
            &S::pipeline_type, galvatron::pipelineTypeName,
            { galvatron::PipelineType::PipeDreamFlush, galvatron::PipelineType::GPipe }),
        row(onOff("async-grad-reduce", "async_grad_reduce", training, "async gradient reduce",
                "Reduce gradients once after the last micro-batch; changes the ZeRO memory ratios."),
            &S::async_grad_reduce),
        row(onOff("sequence-parallel", "sequence_parallel", training, "Megatron sequence parallel",
                "Megatron sequence parallelism with TP: the '_sp' memory profile keys."),
            &S::sequence_parallel),
        row(onOff("global-memory-buffer", "global_memory_buffer", training, "global memory buffer",
                "Charge Megatron's global memory buffer."),
            &S::global_memory_buffer),
        settings::choiceRow(choice("time-profile-mode", "time_profile_mode", profiling, "Time profile",
                                "How forward times are read: first key, linear fit over batch sizes (>= 8), or "
                                "quadratic fit over sequence lengths at bsz 1 (sequence is Galvatron's "
                                "search_dist.yaml default)."),
            &S::time_profile_mode, profile::timeProfileModeName,
            { profile::TimeProfileMode::Sequence, profile::TimeProfileMode::Batch, profile::TimeProfileMode::Static }),
        settings::choiceRow(choice("memory-profile-mode", "memory_profile_mode", profiling, "Memory profile",
                                "Memory at the exact sequence length, or activations scaled from the longest "
                                "profiled one."),
            &S::memory_profile_mode, profile::memoryProfileModeName,
            { profile::MemoryProfileMode::Static, profile::MemoryProfileMode::Sequence }),
        row(seq, &S::model, &ModelShape::seq_length),
        row(fromProfiles(modelSpec("hidden-size", "hidden_size")), &S::model, &ModelShape::hidden_size),
        row(fromProfiles(modelSpec("num-layers", "num_layers")), &S::model, &ModelShape::num_layers),
        row(fromProfiles(modelSpec("num-heads", "num_attention_heads")), &S::model, &ModelShape::num_heads),
        row(fromProfiles(modelSpec("vocab-size", "vocab_size")), &S::model, &ModelShape::vocab_size),
        row(name, &S::model, &ModelShape::name),
        row(coe, &S::costmodel_coe),
    };
}

} // namespace

const settings::SettingTable<SearchSettings>& searchSettingTable()
{
    static const settings::SettingTable<SearchSettings> table(rows());
    return table;
}

std::string_view unevenBatchExplanation()
{
    return "Batches that do not divide evenly: Galvatron main costs a micro-batch per replica as gbsz // chunks // dp "
           "(integer division), i.e. for fewer samples than it trains on. 'honest' costs such a batch for its busiest "
           "replica, ceil(gbsz / (chunks x dp)) samples; 'skip' leaves such strategies out, 'galvatron' reproduces "
           "Galvatron's floor. Where the division is exact all three give Galvatron's results bit for bit.";
}

} // namespace stratex::galvatron
