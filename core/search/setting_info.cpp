// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/search/setting_info.h"

namespace stratex::search {

const std::vector<SettingInfo>& searchSettingInfo()
{
    static const std::vector<SettingInfo> info = {
        { "num-nodes", "num_nodes", "N", "Nodes in the cluster (default 1)." },
        { "num-gpus-per-node", "num_gpus_per_node", "G", "GPUs per node (default 8)." },
        { "memory-constraint", "memory_constraint", "GB",
            "GPU memory per device in GB (default 38). Above 20 GB Galvatron keeps 20 % as allocator reserve." },
        { "min-bsz", "min_bsz", "B", "Smallest global batch size of the range (default 64)." },
        { "max-bsz", "max_bsz", "B", "Largest global batch size of the range (default 64)." },
        { "bsz-scale", "bsz_scale", "S",
            "Step of the batch-size range (default 8); the range starts at max(min, step)." },
        { "settle-bsz", "settle_bsz", "B", "Search this global batch size only (default -1: the range)." },
        { "settle-chunk", "settle_chunk", "C",
            "Search this number of micro-batches only (default -1: every divisor)." },
        { "max-tp-deg", "max_tp_deg", "T", "Largest tensor-parallel degree (default 8)." },
        { "max-pp-deg", "max_pp_deg", "P", "Largest pipeline degree (default 8)." },
        { "max-sp-deg", "max_sp_deg", "S", "Largest Ulysses sequence-parallel degree (default 8)." },
        { "disable-dp", "disable_dp", "", "No data parallelism (dp = 1)." },
        { "disable-tp", "disable_tp", "", "No Megatron tensor parallelism." },
        { "disable-sp", "disable_sp", "", "No Ulysses sequence parallelism." },
        { "disable-pp", "disable_pp", "", "No pipeline parallelism." },
        { "disable-ckpt", "disable_ckpt", "", "No activation checkpointing." },
        { "disable-fsdp", "disable_fsdp", "", "No ZeRO-3 (FSDP) layers." },
        { "disable-embedding-lmhead-tp", "disable_embedding_lmhead_tp", "",
            "No vocabulary tensor parallelism for embedding / LM head." },
        { "disable-embedding-lmhead-sp", "disable_embedding_lmhead_sp", "", "No Ulysses SP for embedding / LM head." },
        { "default-dp-type", "default_dp_type", "ddp|zero2", "Data parallelism of non-ZeRO-3 layers (default zero2)." },
        { "pipeline-type", "pipeline_type", "pipedream_flush|gpipe",
            "Pipeline schedule (default pipedream_flush, 1F1B)." },
        { "async-grad-reduce", "async_grad_reduce", "0|1",
            "Reduce gradients once after the last micro-batch (default 1); changes the ZeRO memory ratios." },
        { "mixed-precision", "mixed_precision", "bf16|fp16|fp32", "Training precision (default bf16)." },
        { "sequence-parallel", "sequence_parallel", "0|1",
            "Megatron sequence parallelism with TP (default 1): the '_sp' memory profile keys." },
        { "global-memory-buffer", "global_memory_buffer", "0|1",
            "Charge Megatron's global memory buffer (default 1)." },
        { "time-profile-mode", "time_profile_mode", "static|batch|sequence",
            "How forward times are read: first key, linear fit over batch sizes (>= 8), or quadratic fit over "
            "sequence lengths at bsz 1 (default sequence, as Galvatron's search_dist.yaml)." },
        { "memory-profile-mode", "memory_profile_mode", "static|sequence",
            "Memory at the exact sequence length, or activations scaled from the longest profiled one (default "
            "static)." },
        { "seq-length", "seq_length", "S",
            "Sequence length (default: the memory profile's, when it holds one, else 8192)." },
        { "hidden-size", "hidden_size", "H", "Hidden size (default 4096)." },
        { "num-layers", "num_layers", "L", "Transformer layers (default 32)." },
        { "num-heads", "num_attention_heads", "A", "Attention heads (default 32)." },
        { "vocab-size", "vocab_size", "V", "Vocabulary size (default 32000)." },
        { "model-name", "model_size", "NAME",
            "Model name, e.g. llama2-7b: picks computation_profiling_{prec}_NAME_all.json among several and names "
            "output files (default: from the profile's file name)." },
        { "uneven-batch", "", "honest|skip|galvatron", unevenBatchExplanation() },
        { "costmodel-coe", "debug_costmodel_coe", "X", "Galvatron's debug factor on per-layer time (default 1.0)." },
    };
    return info;
}

const SettingInfo* findSettingInfo(std::string_view flag)
{
    for (const SettingInfo& info : searchSettingInfo()) {
        if (info.flag == flag)
            return &info;
    }
    return nullptr;
}

std::string_view unevenBatchExplanation()
{
    return "Batches that do not divide evenly: Galvatron main costs a micro-batch per replica as gbsz // chunks // dp "
           "(integer division), i.e. for fewer samples than it trains on. By default (--uneven-batch honest) such a "
           "batch is costed for its busiest replica, ceil(gbsz / (chunks x dp)) samples; 'skip' leaves such "
           "strategies out, 'galvatron' reproduces Galvatron's floor. Where the division is exact all three give "
           "Galvatron's results bit for bit.";
}

} // namespace stratex::search
