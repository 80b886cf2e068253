// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/least_squares.h"

#include <algorithm>
#include <cmath>

#include "core/profile/numpy_sum.h"

namespace stratex::profile {

namespace {

int distinctCount(std::vector<double> x)
{
    std::sort(x.begin(), x.end());
    return int(std::unique(x.begin(), x.end()) - x.begin());
}

double mean(const std::vector<double>& values)
{
    return numpySum(values) / double(values.size());
}

} // namespace

LinearFitResult fitLine(const std::vector<double>& x, const std::vector<double>& y)
{
    LinearFitResult result;
    if (x.size() != y.size() || distinctCount(x) < 2)
        return result;
    // m = (n Σxy - Σx Σy) / (n Σx² - (Σx)²), c = (Σy - m Σx) / n, every Σ numpy's.
    const double n = double(x.size());
    std::vector<double> xy(x.size());
    std::vector<double> xx(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        xy[i] = x[i] * y[i];
        xx[i] = x[i] * x[i];
    }
    const double sx = numpySum(x);
    const double sy = numpySum(y);
    const double sxy = numpySum(xy);
    const double sxx = numpySum(xx);
    result.fit.slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    result.fit.intercept = (sy - result.fit.slope * sx) / n;
    result.ok = std::isfinite(result.fit.slope) && std::isfinite(result.fit.intercept);
    return result;
}

QuadraticFitResult fitQuadratic(const std::vector<double>& x, const std::vector<double>& y)
{
    QuadraticFitResult result;
    if (x.size() != y.size() || distinctCount(x) < 3)
        return result;
    // Fit y = p0 + p1 u + p2 u^2 in the centred, scaled variable u = (x - mx) / s, which keeps
    // the normal equations well conditioned, then expand back to powers of x.
    const double mx = mean(x);
    double s = 0;
    for (double v : x)
        s = std::max(s, std::abs(v - mx));
    double m[3][4] = {};
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double u = (x[i] - mx) / s;
        const double basis[3] = { 1.0, u, u * u };
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c)
                m[r][c] += basis[r] * basis[c];
            m[r][3] += basis[r] * y[i];
        }
    }
    // Gaussian elimination with partial pivoting on the 3x3 system.
    for (int col = 0; col < 3; ++col) {
        int pivot = col;
        for (int r = col + 1; r < 3; ++r) {
            if (std::abs(m[r][col]) > std::abs(m[pivot][col]))
                pivot = r;
        }
        if (m[pivot][col] == 0)
            return result;
        for (int c = 0; c < 4; ++c)
            std::swap(m[col][c], m[pivot][c]);
        for (int r = 0; r < 3; ++r) {
            if (r == col)
                continue;
            const double factor = m[r][col] / m[col][col];
            for (int c = col; c < 4; ++c)
                m[r][c] -= factor * m[col][c];
        }
    }
    const double p0 = m[0][3] / m[0][0];
    const double p1 = m[1][3] / m[1][1];
    const double p2 = m[2][3] / m[2][2];
    // y = p0 + p1 (x - mx)/s + p2 (x - mx)^2 / s^2
    result.fit.a = p2 / (s * s);
    result.fit.b = p1 / s - 2.0 * p2 * mx / (s * s);
    result.fit.c = p0 - p1 * mx / s + p2 * mx * mx / (s * s);
    result.ok = std::isfinite(result.fit.a) && std::isfinite(result.fit.b) && std::isfinite(result.fit.c);
    return result;
}

} // namespace stratex::profile
