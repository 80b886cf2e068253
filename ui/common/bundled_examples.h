// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>

#include <QString>

#include "core/hardware/cluster_description.h"

namespace stratex::ui {

// The profile set the app ships (resources/examples, made by `stratex-cli profile synth`): an
// estimated llama2-13b on two nodes of eight A100-40GB. The search reads folders, so the files are
// copied out of the resources into the user's cache folder.
struct BundledProfiles {
    QString dir; // empty when the copy failed
    QString error;
    int memoryConstraintGb = 40; // the GPU's memory: the budget the example is searched with
    int globalBatch = 64;
    QString description; // "llama2-13b on 2 × 8 A100-40GB", from the set's stratex_synthesis.json
};

// What a search is about, as the first screen names it: "llama2-13b on 2 × 8 A100-40GB", or the
// model alone when the profiles name no cluster (measured ones).
QString modelOnCluster(const std::string& model, const std::optional<hardware::ClusterDescription>& cluster);

BundledProfiles extractBundledProfiles();

} // namespace stratex::ui
