// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/hardware/cluster_description.h"
#include "core/model/model_description.h"
#include "core/model/model_presets.h"
#include "core/settings/setting_table.h"

namespace stratex::profile::synth {

// What `stratex-cli profile synth` and the Synthesize dialog ask for: a model preset with
// overrides, a GPU preset with overrides, the cluster's shape and the precision.
struct SynthesisSettings {
    std::string model_preset = "llama2-7b";
    model::ModelDescription model = model::modelPreset("llama2-7b");
    std::string gpu_preset = "a100-80gb";
    hardware::ClusterDescription cluster { hardware::gpuPreset("a100-80gb"), 1, 8 };
    std::string precision = "bf16";
};

// Every synthesis setting, once. The preset rows come first: choosing a preset loads its shape
// (or datasheet), and the rows after it override single values.
const settings::SettingTable<SynthesisSettings>& synthesisSettingTable();

} // namespace stratex::profile::synth
