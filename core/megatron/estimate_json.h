// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include "core/megatron/estimate.h"

namespace stratex::megatron {

// An estimate as the CLI's JSON and plan files carry it: the strategy, the iteration's time and
// where it goes, throughput, and each stage's times and memory breakdown (units in the key names).
nlohmann::ordered_json toJson(const Estimate& estimate);

} // namespace stratex::megatron
