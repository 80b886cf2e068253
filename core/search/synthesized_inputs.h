// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cost/cost_settings.h"
#include "core/model/model_description.h"
#include "core/profile/synth/cluster_description.h"
#include "core/search/search_inputs.h"

namespace stratex::search {

// A profile set synthesized in memory for the model and the cluster (profile synth's estimates,
// marked estimated and carrying their record), e.g. to cost a strategy file that names them.
SearchInputs synthesizedInputs(const model::ModelDescription& model, const profile::synth::ClusterDescription& cluster,
    cost::MixedPrecision precision);

} // namespace stratex::search
