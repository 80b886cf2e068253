// SPDX-License-Identifier: GPL-3.0-or-later
// Load-then-search: the bundled example's profile set with one of its files replaced by the
// fuzzer's bytes (the first byte picks the file), loaded as `stratex-cli search --profiles` loads
// it and searched with Galvatron's cost model. The settings are small (one batch of 8 in 4
// micro-batches, 8 GB, 8 layers, one thread) so an input finishes in well under a second; what is
// fuzzed is the profile values reaching the cost model and the knapsack.
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/common/progress.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_inputs.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;
namespace fs = std::filesystem;

namespace {

// The example's files, in the order the first byte picks them (byte % 7).
constexpr std::array<const char*, 7> kFiles { "computation_profiling_bf16_llama2-13b_all.json",
    "memory_profiling_bf16_llama2-13b_all.json", "allreduce_bandwidth_2nodes_8gpus_per_node.json",
    "p2p_bandwidth_2nodes_8gpus_per_node.json", "overlap_coefficient.json", "sp_time_2nodes_8gpus_per_node.json",
    "stratex_synthesis.json" };

// A scratch copy of the example, made once; each input rewrites one file and restores it after.
struct ScratchSet {
    fs::path dir;
    std::array<std::string, kFiles.size()> originals;

    ScratchSet()
    {
        dir = fs::temp_directory_path() / ("stratex-fuzz-search-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        for (std::size_t i = 0; i < kFiles.size(); ++i) {
            std::ifstream in(
                fs::path(STRATEX_RESOURCES_DIR) / "examples/llama2-13b-a100-40gb-2x8" / kFiles[i], std::ios::binary);
            originals[i].assign(std::istreambuf_iterator<char>(in), {});
            write(i, originals[i]);
        }
    }
    void write(std::size_t i, std::string_view content) const
    {
        std::ofstream(dir / kFiles[i], std::ios::binary | std::ios::trunc)
            .write(content.data(), std::streamsize(content.size()));
    }
};

galvatron::SearchSettings smallSearch()
{
    galvatron::SearchSettings settings;
    settings.num_nodes = 2;
    settings.num_gpus_per_node = 8;
    settings.memory_constraint_gb = 8;
    settings.model.num_layers = 8;
    settings.settle_bsz = 8;
    settings.settle_chunk = 4;
    return settings;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const ScratchSet scratch;
    if (size == 0)
        return 0;
    const std::size_t file = data[0] % kFiles.size();
    scratch.write(file, fuzz::text(data + 1, size - 1));
    fuzz::expectValueOrError([&] {
        profile::ProfileDiscovery discovery;
        discovery.profilesDir = scratch.dir;
        galvatron::SearchSettings settings = smallSearch();
        // The flags `search` would have been given: the set's record does not override them.
        const settings::SettingNames given { "num-nodes", "num-gpus-per-node", "memory-constraint", "num-layers",
            "settle-bsz", "settle-chunk" };
        const galvatron::SearchInputs inputs = galvatron::loadSearchInputs(discovery, settings, given);
        NullProgress progress;
        (void)galvatron::search(inputs, settings, progress, 1, 3);
    });
    scratch.write(file, scratch.originals[file]);
    return 0;
}
