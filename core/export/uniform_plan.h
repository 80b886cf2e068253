// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/plan.h"

// Megatron-LM and torchtitan take one degree and one data-parallel flavour for the whole model,
// where a Galvatron plan may choose per layer. These summaries pick what the exporters write.
namespace stratex::exporting {

// The tensor-parallel and Ulysses degrees most layers use (the smaller one on ties).
int mostCommonTp(const galvatron::Plan& plan);
int mostCommonUlysses(const galvatron::Plan& plan);

// Which ZeRO flavours the data-parallel layers (dp > 1) of a plan use.
struct DpTypeMix {
    bool any_zero3 = false;
    bool any_zero2 = false;
    bool every_zero3 = true; // vacuously true when no layer is data parallel
};
DpTypeMix dpTypeMix(const galvatron::Plan& plan);

} // namespace stratex::exporting
