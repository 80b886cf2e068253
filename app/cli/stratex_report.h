// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/megatron/estimate.h"

namespace stratex::cli {

// One estimate of the stratex model as text: the plan, its time and where it goes, throughput and
// each stage's times and memory breakdown. Shared by `search` (its best plan) and `evaluate`.
std::string estimateText(const megatron::Estimate& estimate);
// "tp8 pp16 ...: 12.345 s/iter, 1234 tokens/s/GPU, MFU 41.2 %, peak 71234 MB".
std::string estimateLine(const megatron::Estimate& estimate);

} // namespace stratex::cli
