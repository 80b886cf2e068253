// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/synthesis_record.h"

#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/profile_synthesizer.h"

namespace stratex::profile::synth {

std::optional<SynthesisRecord> readSynthesisRecord(const std::filesystem::path& dir)
{
    if (dir.empty())
        return std::nullopt;
    const std::filesystem::path file = dir / kSynthesisFileName;
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error))
        return std::nullopt;
    const JsonDocument document = JsonDocument::load(file);
    const JsonView root = document.root();
    root.requireObject();
    SynthesisRecord record;
    record.file = file;
    record.precision = root["precision"].string();
    record.model = model::readModel(root["model"]);
    record.cluster = hardware::readCluster(root["cluster"]);
    return record;
}

} // namespace stratex::profile::synth
