// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_memory.h"

#include <algorithm>

#include "core/common/error.h"

namespace stratex::planner {

double modelStateMb(double fp16ParamMb, const OptimizerStateConfig& config)
{
    if (config.zero_stage < 0 || config.zero_stage > 3)
        throw Error("ZeRO stage must be 0, 1, 2 or 3, not " + std::to_string(config.zero_stage));
    const double dp = std::max(1, config.dp_size);
    const double param = config.zero_stage >= 3 ? 1 / dp : 1;
    const double grad = config.zero_stage >= 2 ? 1 / dp : 1;
    const double optimizer = config.zero_stage >= 1 ? 6 / dp : 6;
    return fp16ParamMb * (param + grad + optimizer);
}

double bottleneckModelStateMb(const ModelParameterSizes& params, int layersPerStage, int chunksPerDevice,
    const OptimizerStateConfig& config, bool encoderDecoder)
{
    double paramMb = params.embedding_param_mb;
    if (chunksPerDevice > 1 && !encoderDecoder) {
        paramMb += params.encoder_layer_param_mb * chunksPerDevice * layersPerStage;
    } else if (chunksPerDevice > 1) {
        paramMb
            += (params.encoder_layer_param_mb + params.decoder_layer_param_mb) * (chunksPerDevice / 2) * layersPerStage;
    } else {
        paramMb += layersPerStage * std::max(params.encoder_layer_param_mb, params.decoder_layer_param_mb);
    }
    return modelStateMb(paramMb, config);
}

ActivationLimits activationLimits(
    double deviceMemoryMb, double modelStateMb, int numStages, double perMicroBatchMemoryFraction)
{
    ActivationLimits limits;
    limits.model_state_mb = modelStateMb;
    limits.available_mb = deviceMemoryMb - modelStateMb;
    limits.preferred_stored_mb = perMicroBatchMemoryFraction > 0 ? perMicroBatchMemoryFraction * limits.available_mb
                                                                 : limits.available_mb / std::max(1, numStages);
    return limits;
}

} // namespace stratex::planner
