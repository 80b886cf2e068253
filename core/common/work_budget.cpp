// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/work_budget.h"

#include <atomic>
#include <cstdio>

#include "core/common/number_format.h"

namespace stratex {

namespace {

// Below 10x one decimal says how far; beyond, whole numbers read better.
std::string timesText(double multiple)
{
    return multiple < 10 ? fixed(multiple, 1) : groupedCount(multiple);
}

} // namespace

std::string WorkEstimate::describe() const
{
    std::string text = "This " + job + " is " + size + ":";
    if (exceedsMemory() || !exceedsTime()) {
        if (memory_budget_mb > 0)
            text += " about " + groupedCount(memory_mb) + " MB of memory, " + timesText(memory_mb / memory_budget_mb)
                + " times its memory budget (" + groupedCount(memory_budget_mb) + " MB)";
        if (!exceedsTime())
            return text + " (see the README, Limits).";
        text += ", and";
    }
    return text + " about " + timesText(budgetMultiple())
        + " times its work budget (about a minute on one core; see the README, Limits).";
}

namespace {
std::atomic<bool> g_lifted { false };
} // namespace

void setWorkBudgetsLifted(bool lifted)
{
    g_lifted = lifted;
}

bool workBudgetsLifted()
{
    return g_lifted;
}

void requireWithinBudget(const WorkEstimate& estimate, const std::string& advice, bool lifted)
{
    if (estimate.exceedsBudget() && !lifted && !workBudgetsLifted())
        throw WorkBudgetExceeded(estimate, advice);
}

WorkBudgetExceeded::WorkBudgetExceeded(WorkEstimate estimate, const std::string& advice)
    : Error(estimate.describe() + " " + advice)
    , m_estimate(std::move(estimate))
{
}

std::string groupedCount(double value)
{
    char digits[64];
    std::snprintf(digits, sizeof digits, "%.0f", value);
    std::string text = digits;
    const int first = text.empty() || text[0] != '-' ? 0 : 1;
    for (int at = int(text.size()) - 3; at > first; at -= 3)
        text.insert(std::size_t(at), ",");
    return text;
}

} // namespace stratex
