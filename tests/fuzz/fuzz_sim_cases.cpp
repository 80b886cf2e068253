// SPDX-License-Identifier: GPL-3.0-or-later
// Simulation-case files on any bytes, then the simulation of every case they hold (bounded by the
// layer-cost limit): load-then-simulate, as `stratex-cli simulate` does.
#include "core/common/json_reader.h"
#include "core/sim/sim_cases.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "fuzz.json");
        const std::vector<sim::SimulationCase> cases = sim::readSimulationCases(document.root());
        for (const sim::SimulationCase& simCase : cases) {
            fuzz::expectValueOrError([&] {
                sim::SimulationOptions options = simCase.options;
                options.build_timeline = true;
                (void)sim::simulationResultJson(sim::simulate(simCase.input, simCase.schedule, options)).dump();
            });
        }
    });
    return 0;
}
