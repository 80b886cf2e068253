// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face config.json files on any bytes, read by model::readHfConfig -- the entry
// `--hf-config FILE` and the Synthesize dialog's "From config.json…" reach through
// readHfConfigFile -- then the model it gives as the front ends use it: its JSON (what a
// synthesized set's record and a plan file carry) and its parameter count (profile synth's line).
// Seeds: tests/fuzz/seeds/hf_config (copies of five files of tests/data/hf-configs, whose README
// gives their sources) and the rest of tests/data/hf-configs (run-fuzz.sh).
#include "core/common/json_reader.h"
#include "core/model/hf_config.h"
#include "core/model/model_json.h"
#include "core/profile/synth/transformer_estimates.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "config.json");
        const model::HfModel hf = model::readHfConfig(document.root(), "fuzz");
        (void)model::toJson(hf.model).dump();
        (void)profile::synth::modelParameters(hf.model);
    });
    return 0;
}
