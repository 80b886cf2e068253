// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace stratex {

// How many plans a search keeps when the user names no number: `stratex-cli search --top` and the
// Search page's "Top plans" field both start from it. The kept plans enter the search's work
// estimate, so two defaults would give the same request two estimates (tst_front_end_parity,
// sameStratexSearchBudget).
inline constexpr int kDefaultTopPlans = 10;

} // namespace stratex
