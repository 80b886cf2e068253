// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/gpu_speed_spread.h"

#include <cmath>
#include <numbers>

namespace stratex::hardware {

namespace {

// Phi^-1(p) by Newton's method on Phi(x) = erfc(-x / sqrt 2) / 2 (p in (0, 1)).
double inverseNormalCdf(double p)
{
    double x = 0;
    for (int i = 0; i < 60; ++i) {
        const double cdf = 0.5 * std::erfc(-x / std::sqrt(2.0));
        const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
        const double step = (cdf - p) / pdf;
        x -= step;
        if (std::abs(step) < 1e-12)
            break;
    }
    return x;
}

} // namespace

double expectedMaxOfNormals(int n)
{
    if (n <= 1)
        return 0;
    return inverseNormalCdf((n - 0.375) / (n + 0.25));
}

double slowestGpuFactor(int gpus, double sigma)
{
    return 1.0 + sigma * expectedMaxOfNormals(gpus);
}

} // namespace stratex::hardware
