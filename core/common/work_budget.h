// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The soft bound on how long a search or a plan may run. Unlike the hard limits of
// input_limits.h (beyond them memory would run out or integers overflow), work beyond its budget
// is only slow: the CLI refuses it (a script must not hang a machine unasked), the GUI asks
// "Run anyway?" and then runs it on a worker that can still be cancelled. Both read the same
// estimate from core, so they agree on what "too much" is. Memory counts as well as time: a job
// that would allocate more than limits::kMaxJobMemoryMb (a simulation's op graph, a trace read
// whole) is beyond its budget too, before anything is allocated (issue 26: a 2.7 GB simulation, a
// 200 MB trace taking 12 times its size).

#include <string>

#include "core/common/error.h"

namespace stratex {

struct WorkEstimate {
    std::string job; // "search", "plan in normal mode"
    std::string size; // what the work is, for a person: "about 12,345 tasks x 30 strategies ..."
    double work = 0; // in the job's own unit (see input_limits.h)
    double budget = 0; // same unit: about a minute on one core
    double memory_mb = 0; // the largest allocation expected, MB (1e6 bytes); 0: not estimated
    double memory_budget_mb = 0; // 0: no memory budget (the job's memory does not grow with its input)

    bool exceedsTime() const { return work > budget; }
    bool exceedsMemory() const { return memory_budget_mb > 0 && memory_mb > memory_budget_mb; }
    bool exceedsBudget() const { return exceedsTime() || exceedsMemory(); }
    double budgetMultiple() const { return budget > 0 ? work / budget : 0; }
    // One sentence: "This search is <size>: about 3.2 times its work budget (about a minute on one core)."
    // or, over memory, "This simulation is <size>: about 2,700 MB of memory, 2.7 times its memory
    // budget (1,000 MB)."
    std::string describe() const;
};

// The command-line flag that runs a job beyond its budget anyway (the GUI asks instead). Every
// command whose work is budgeted has it; a refusal names it.
inline constexpr const char* kLiftWorkBudgetFlag = "--lift-work-budget";

// The command line's --lift-work-budget for the whole process, as setMaxInputBytes is for the
// input limit: budgets checked deep in a call (an export's schedule, a trace read) honour it
// without a parameter through every layer. The GUI never sets it: it asks, job by job.
void setWorkBudgetsLifted(bool lifted);
bool workBudgetsLifted();

// Throws WorkBudgetExceeded (the estimate, then `advice`) when `estimate` exceeds its budget and
// neither `lifted` nor workBudgetsLifted().
void requireWithinBudget(const WorkEstimate& estimate, const std::string& advice, bool lifted = false);

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
