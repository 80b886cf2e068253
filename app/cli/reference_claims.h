// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/runs/reference_run.h"
#include "core/runs/search_claims.h"

namespace stratex::cli {

// `reference --search-claims`: per flagship run, the search's pick and how much faster than the
// measured run it claims to be, with the experts' own layout's error beside it (issue 22).
int printSearchClaims(const std::vector<runs::ReferenceRun>& runs, const runs::SearchClaimOptions& options, bool json);

} // namespace stratex::cli
