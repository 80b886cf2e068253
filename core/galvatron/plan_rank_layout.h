// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/ranks/parallel_config.h"
#include "core/galvatron/plan.h"

namespace stratex::galvatron {

// The Megatron rank grid a plan runs on: its world and pipeline degree, and the TP (or Ulysses
// SP) degree most of its layers use (the smaller one on a tie); per-layer degrees are the search's
// finer choice, which one grid cannot show.
ranks::ParallelConfig planRankLayout(const Plan& plan, int gpusPerNode);

} // namespace stratex::galvatron
