// SPDX-License-Identifier: GPL-3.0-or-later
// DynaPipe cost models on any bytes, and the model's answers for a few micro-batch shapes.
#include "core/common/json_reader.h"
#include "core/planner/dynapipe_cost_model.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "fuzz.json");
        const planner::DynapipeCostModel model = planner::DynapipeCostModel::fromJson(document.root());
        (void)model.tensorParallelSizes();
        (void)model.subModelList();
    });
    return 0;
}
