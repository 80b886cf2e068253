// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/mla_shapes.h"

namespace stratex::model {

int qkHeadDim(const ModelDescription& model)
{
    return model.mla ? model.mla->qk_nope_head_dim + model.mla->qk_rope_head_dim : model.headDim();
}

int vHeadDim(const ModelDescription& model)
{
    return model.mla ? model.mla->v_head_dim : model.headDim();
}

double mlaAttentionParameters(const ModelDescription& model)
{
    const MlaDescription& mla = *model.mla;
    const double h = model.hidden_size;
    const double heads = model.num_heads;
    const double qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    const double upQuery = mla.q_lora_rank > 0 ? mla.q_lora_rank * heads * qk : h * heads * qk;
    const double upKeyValue = double(mla.kv_lora_rank) * heads * (mla.qk_nope_head_dim + mla.v_head_dim);
    const double output = heads * mla.v_head_dim * h;
    return attentionReplicatedParameters(model) + upQuery + upKeyValue + output;
}

double attentionReplicatedParameters(const ModelDescription& model)
{
    if (!model.mla)
        return 0;
    const MlaDescription& mla = *model.mla;
    const double h = model.hidden_size;
    const double query = mla.q_lora_rank > 0 ? h * mla.q_lora_rank + mla.q_lora_rank : 0; // W_DQ, its norm
    return query + h * (mla.kv_lora_rank + mla.qk_rope_head_dim) + mla.kv_lora_rank; // W_DKV + W_KR, its norm
}

} // namespace stratex::model
