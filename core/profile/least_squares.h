// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace stratex::profile {

// y = slope * x + intercept.
struct LinearFit {
    double slope = 0;
    double intercept = 0;

    double at(double x) const { return slope * x + intercept; }
    bool operator==(const LinearFit&) const = default;
};

// y = a * x^2 + b * x + c.
struct QuadraticFit {
    double a = 0;
    double b = 0;
    double c = 0;

    // Evaluated as ((a * x) * x + b * x) + c, the order docs/galvatron-search.md §1.3 gives.
    double at(double x) const { return ((a * x) * x + b * x) + c; }
};

// Closed-form ordinary least squares. Galvatron fits with SciPy's curve_fit (MINPACK
// Levenberg-Marquardt from p0 = 1), which stops within ~1e-8 relative of the exact optimum;
// docs/galvatron-search.md §1.3 (option b) records that every plan stays the same and costs
// move by at most ~1e-10 relative. Callers that need Galvatron's exact bits inject coefficients.
// fitLine uses the textbook normal-equation formula with numpy's pairwise sums, so it gives the
// same bits as the reference oracle's `--fit ols` (tools/galvatron-oracle, docs/oracle.md).
// `ok` is false without two distinct x (three for the quadratic).
struct LinearFitResult {
    bool ok = false;
    LinearFit fit;
};
struct QuadraticFitResult {
    bool ok = false;
    QuadraticFit fit;
};

LinearFitResult fitLine(const std::vector<double>& x, const std::vector<double>& y);
QuadraticFitResult fitQuadratic(const std::vector<double>& x, const std::vector<double>& y);

} // namespace stratex::profile
