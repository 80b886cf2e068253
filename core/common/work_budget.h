// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The soft bound on how long a search or a plan may run. Unlike the hard limits of
// input_limits.h (beyond them memory would run out or integers overflow), work beyond its budget
// is only slow: the CLI refuses it (a script must not hang a machine unasked), the GUI asks
// "Run anyway?" and then runs it on a worker that can still be cancelled. Both read the same
// estimate from core, so they agree on what "too much" is.

#include <string>

#include "core/common/error.h"

namespace stratex {

struct WorkEstimate {
    std::string job; // "search", "plan in normal mode"
    std::string size; // what the work is, for a person: "about 12,345 tasks x 30 strategies ..."
    double work = 0; // in the job's own unit (see input_limits.h)
    double budget = 0; // same unit: about a minute on one core

    bool exceedsBudget() const { return work > budget; }
    double budgetMultiple() const { return budget > 0 ? work / budget : 0; }
    // One sentence: "This search is <size>: about 3.2 times its work budget (about a minute on one core)."
    std::string describe() const;
};

// Thrown before the long part of a job when its estimate exceeds the budget and the caller did
// not lift it; a front end that can ask catches it and runs again with the budget lifted.
class WorkBudgetExceeded : public Error {
public:
    explicit WorkBudgetExceeded(WorkEstimate estimate, const std::string& advice);
    const WorkEstimate& estimate() const { return m_estimate; }

private:
    WorkEstimate m_estimate;
};

// "16777216" -> "16,777,216": counts people read.
std::string groupedCount(double value);

} // namespace stratex
