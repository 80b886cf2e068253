// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/cost_settings.h"
#include "core/model/model_description.h"
#include "core/hardware/cluster_description.h"
#include "core/galvatron/search_inputs.h"

namespace stratex::galvatron {

// A profile set synthesized in memory for the model and the cluster (profile synth's estimates,
// marked estimated and carrying their record), e.g. to cost a strategy file that names them.
SearchInputs synthesizedInputs(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    galvatron::MixedPrecision precision);

} // namespace stratex::galvatron
