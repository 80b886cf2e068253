// SPDX-License-Identifier: GPL-3.0-or-later
// Stratex plan files on any bytes: the model, the cluster and the Megatron-space strategy read as
// `evaluate` reads them (a small default model and cluster where the file has none), then costed
// by the stratex model, pipeline simulation included.
#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"
#include "core/megatron/estimate.h"
#include "core/megatron/strategy_json.h"
#include "core/hardware/cluster_json.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "fuzz.json");
        const JsonView root = document.root();
        root.requireObject();
        model::ModelDescription model = model::modelPreset("llama2-7b");
        if (const std::optional<JsonView> m = root.find("model"))
            model = model::readModel(*m);
        hardware::ClusterDescription cluster;
        cluster.gpu = hardware::gpuPreset("a100-80gb");
        if (const std::optional<JsonView> c = root.find("cluster"))
            cluster = hardware::readCluster(*c);
        const megatron::ParallelStrategy strategy
            = megatron::readStrategy(root["strategy"], model, static_cast<long long>(cluster.worldSize()));
        // The fuzzer's time limit is per input: keep to what evaluate of a small run costs.
        if (megatron::pipelineWork(strategy) > 4096 || model.num_layers > 256)
            return;
        (void)megatron::estimate(model, strategy, hardware::HardwareModel(cluster, hardware::efficiencyFor(cluster.gpu)));
    });
    return 0;
}
