// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/numpy_sum.h"

namespace stratex::profile {

namespace {

double pairwise(const double* a, std::size_t n)
{
    if (n < 8) {
        double sum = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            sum += a[i];
        return sum;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; ++j)
            r[j] = a[j];
        std::size_t i = 8;
        for (; i < n - (n % 8); i += 8) {
            for (int j = 0; j < 8; ++j)
                r[j] += a[i + std::size_t(j)];
        }
        double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i)
            sum += a[i];
        return sum;
    }
    std::size_t half = n / 2;
    half -= half % 8;
    return pairwise(a, half) + pairwise(a + half, n - half);
}

} // namespace

double numpySum(std::span<const double> values)
{
    return 0.0 + pairwise(values.data(), values.size());
}

} // namespace stratex::profile
