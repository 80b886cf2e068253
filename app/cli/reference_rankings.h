// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/runs/measured_rankings.h"
#include "core/runs/reference_run.h"

namespace stratex::cli {

// `reference --rankings`: per setting with two or more measured runs, the runs in measured and in
// predicted order, and whether the measured best is predicted first or within 1 % of the predicted
// best (issue 22; core/runs/measured_rankings.h, docs/evidence.md "Ranking of measured layouts").
int printMeasuredRankings(const std::vector<runs::ReferenceRun>& runs, const runs::RankingOptions& options, bool json);

} // namespace stratex::cli
