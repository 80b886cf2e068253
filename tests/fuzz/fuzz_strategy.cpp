// SPDX-License-Identifier: GPL-3.0-or-later
// Galvatron strategy files on any bytes, then the plan they describe for an 8-GPU, 32-layer
// cluster (the degrees, divisions and flags checked against it), as `stratex-cli export` does.
#include "core/common/json_reader.h"
#include "core/galvatron/search_settings.h"
#include "core/galvatron/strategy_file.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "fuzz.json");
        const galvatron::StrategyFile strategy = galvatron::StrategyFile::fromJson(document.root());
        galvatron::SearchSettings settings;
        settings.num_nodes = 1;
        settings.num_gpus_per_node = 8;
        settings.model.num_layers = 32;
        (void)galvatron::planFromStrategyFile(strategy, settings);
    });
    return 0;
}
