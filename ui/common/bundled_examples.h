// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace stratex::ui {

// The profile set the app ships (resources/examples, made by `stratex-cli profile synth`): an
// estimated llama2-13b on two nodes of eight A100-40GB. The search reads folders, so the files are
// copied out of the resources into the user's cache folder.
struct BundledProfiles {
    QString dir; // empty when the copy failed
    QString error;
    int memoryConstraintGb = 40; // the GPU's memory: the budget the example is searched with
    int globalBatch = 64;
};

BundledProfiles extractBundledProfiles();

} // namespace stratex::ui
