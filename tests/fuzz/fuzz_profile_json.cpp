// SPDX-License-Identifier: GPL-3.0-or-later
// Galvatron profile loaders (computation, memory, all-reduce, p2p, overlap, sp_time) and the
// synthesis record on any bytes: the JSON reader first, then every loader on the document.
#include "core/common/json_reader.h"
#include "core/profile/computation_profile.h"
#include "core/profile/hardware_profile.h"
#include "core/profile/memory_profile.h"
#include "core/profile/sp_time_profile.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    fuzz::expectValueOrError([&] {
        const JsonDocument document = JsonDocument::parse(fuzz::text(data, size), "fuzz.json");
        const JsonView root = document.root();
        fuzz::expectValueOrError([&] { (void)profile::ComputationProfile::fromJson(root).layerTypes(); });
        fuzz::expectValueOrError([&] { (void)profile::MemoryProfile::fromJson(root); });
        fuzz::expectValueOrError([&] { (void)profile::AllreduceProfile::fromJson(root); });
        fuzz::expectValueOrError([&] { (void)profile::P2pProfile::fromJson(root); });
        fuzz::expectValueOrError([&] { (void)profile::OverlapProfile::fromJson(root); });
        fuzz::expectValueOrError([&] { (void)profile::SpTimeProfile::fromJson(root); });
    });
    return 0;
}
