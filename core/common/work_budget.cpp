// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/work_budget.h"

#include <cstdio>

#include "core/common/number_format.h"

namespace stratex {

std::string WorkEstimate::describe() const
{
    const double multiple = budgetMultiple();
    // Below 10x one decimal says how far; beyond, whole numbers read better.
    const std::string times = multiple < 10 ? fixed(multiple, 1) : groupedCount(multiple);
    return "This " + job + " is " + size + ": about " + times
        + " times its work budget (about a minute on one core; see the README, Limits).";
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
