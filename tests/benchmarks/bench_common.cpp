// SPDX-License-Identifier: GPL-3.0-or-later
// Reading JSON: a computation profile of N time keys, parsed and loaded. The parse must stay linear
// in the input (issue 12: nlohmann's ordered_json inserts by a linear scan, so 80k keys took
// 5-8 s), and the loader's walk over the members with it.
#include <benchmark/benchmark.h>
#include <string>

#include "core/common/json_reader.h"
#include "core/profile/computation_profile.h"

using namespace stratex;

namespace {

std::string wideProfile(int keys)
{
    std::string text = "{";
    for (int i = 0; i < keys; ++i)
        text += (i ? ",\n\"layertype_0_bsz" : "\n\"layertype_0_bsz") + std::to_string(i + 1) + "_seq2048\": 12.5";
    return text + "\n}\n";
}

void BM_JsonParseWideObject(benchmark::State& state)
{
    const std::string text = wideProfile(int(state.range(0)));
    for (auto _ : state) {
        const JsonDocument document = JsonDocument::parse(text, "wide.json");
        benchmark::DoNotOptimize(document.root().size());
    }
    state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(text.size()));
}
BENCHMARK(BM_JsonParseWideObject)->RangeMultiplier(4)->Range(1 << 12, 1 << 16)->Unit(benchmark::kMillisecond);

void BM_LoadWideComputationProfile(benchmark::State& state)
{
    const std::string text = wideProfile(int(state.range(0)));
    for (auto _ : state) {
        const JsonDocument document = JsonDocument::parse(text, "wide.json");
        const profile::ComputationProfile loaded = profile::ComputationProfile::fromJson(document.root());
        benchmark::DoNotOptimize(loaded.processed.size());
    }
}
BENCHMARK(BM_LoadWideComputationProfile)->RangeMultiplier(4)->Range(1 << 12, 1 << 16)->Unit(benchmark::kMillisecond);

} // namespace
