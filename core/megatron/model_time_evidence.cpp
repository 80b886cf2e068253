// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/model_time_evidence.h"

#include "core/common/number_format.h"

namespace stratex::megatron {

std::string architectureKey(const model::ModelDescription& m)
{
    std::string key = "L" + std::to_string(m.num_layers) + " h" + std::to_string(m.hidden_size) + " f"
        + std::to_string(m.ffn_hidden_size) + " a" + std::to_string(m.num_heads) + "/" + std::to_string(m.num_kv_heads)
        + " d" + std::to_string(m.headDim()) + " " + std::string(model::mlpKindName(m.mlp));
    if (m.mla)
        key += " mla" + std::to_string(m.mla->q_lora_rank) + "/" + std::to_string(m.mla->kv_lora_rank);
    if (m.moe)
        key += " moe" + std::to_string(m.moe->num_experts) + "x" + std::to_string(m.moe->top_k) + " f"
            + std::to_string(m.moe->expert_ffn_hidden_size) + " s" + std::to_string(m.moe->shared_experts) + " d"
            + std::to_string(m.moe->first_dense_layers);
    return key;
}

ModelTimeEvidence modelTimeEvidence(const model::ModelDescription& model)
{
    ModelTimeEvidence e;
    const std::string key = architectureKey(model);
    const ModelTimeError* row = nullptr;
    for (const ModelTimeError& r : bundledModelTimeErrors()) {
        if (r.architecture == key)
            row = &r;
    }
    if (!row) {
        e.note = "time: no reference run measured this model; how far its time is off is that of runs like it "
                 "(docs/evidence.md, \"Measured runs of the model\")";
        return e;
    }
    e.runs = row->runs;
    e.lowest = row->lowest;
    e.highest = row->highest;
    e.mean = row->mean;
    e.off = e.highest > kModelTimeErrorBar || e.lowest < -kModelTimeErrorBar;
    // Records of one shape may name it differently (MPT-30B and Megatron's GPT 32B): all are named.
    const std::string which = " of this model (" + row->model_names + ")";
    if (e.runs == 1)
        e.note = "time: 1 measured run" + which + " was predicted " + signedPercent(e.lowest);
    else
        e.note = "time: " + std::to_string(e.runs) + " measured runs" + which + " were predicted "
            + signedPercent(e.lowest) + " to " + signedPercent(e.highest) + ", mean " + signedPercent(e.mean);
    e.note += " (> 0: too fast)";
    if (e.highest > kModelTimeErrorBar && e.lowest >= -kModelTimeErrorBar)
        e.note += "; this plan's time is likely optimistic too";
    else if (e.lowest < -kModelTimeErrorBar && e.highest <= kModelTimeErrorBar)
        e.note += "; this plan's time is likely pessimistic too";
    else if (e.off)
        e.note += "; this plan's time may be off as much";
    return e;
}

} // namespace stratex::megatron
