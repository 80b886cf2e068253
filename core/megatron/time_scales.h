// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace stratex::megatron {

// Factors on the estimate's time components, for asking "what if the model is off by x % on
// this part": 1 everywhere is the model itself.
struct TimeScales {
    double compute = 1; // GEMMs, attention, memory-bound kernels, launches, optimizer, embedding/head
    double tp = 1; // tensor-parallel all-reduces / SP gathers and scatters
    double cp = 1; // context-parallel K/V exchange (its exposed part)
    double ep = 1; // expert-parallel all-to-alls
    double dp = 1; // data-parallel gradient reduction and parameter gathering
    double pp = 1; // pipeline sends and receives
};

} // namespace stratex::megatron
