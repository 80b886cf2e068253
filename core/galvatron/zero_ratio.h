// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

// The share of a layer's fp32-sized model states (parameters, gradients, optimizer states) one
// GPU keeps under ZeRO over a group of `sdp` GPUs (docs/galvatron-search.md §4.2, with
// Galvatron's +0.003 padding and its weaker ratios when gradients are reduced asynchronously over
// several micro-batches). DDP keeps everything: 1.
double zeroRatio(DpType type, int sdp, int chunks, bool mixed, bool asyncGradReduce);

} // namespace stratex::galvatron
