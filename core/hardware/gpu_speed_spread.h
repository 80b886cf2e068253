// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// GPUs of one SKU do not run at one speed (docs/kernels.md, "The slowest GPU sets the pace"):
// under the same power cap, manufacturing spread in leakage gives each chip its own sustained
// clock. Sinha et al., "Not All GPUs Are Created Equal" (SC22, arXiv:2208.11035), measured SGEMM on
// more than 90 % of the GPUs of five clusters (Summit, Vortex, Frontera, Longhorn, Corona): 8 %
// average performance variation between the GPUs of a cluster (max 22 %), outliers up to 1.5x
// slower than the median. Synchronous training waits at every collective for its slowest member,
// and every GPU of a job feeds one chain of collectives per step (TP per layer, the pipeline per
// micro-batch, DP per step), so a job's compute runs at the pace of its slowest GPU: the expected
// maximum of N draws of the per-GPU slowness.

namespace stratex::hardware {

// The per-GPU compute slowness's standard deviation, as a fraction of the median GPU's time: 8 %
// between the fastest and slowest of thousands of GPUs is about 8 standard deviations of a normal
// spread (twice the expected maximum of ~10^4 draws, 2 x 4.0), so 1 %.
inline constexpr double kGpuSpeedSigma = 0.01;

// E[max of n standard normal draws], Blom's approximation Phi^-1((n - 0.375) / (n + 0.25));
// 0 for n <= 1.
double expectedMaxOfNormals(int n);

// The factor on a job's compute time on `gpus` GPUs over the median GPU's: 1 + sigma x E[max].
double slowestGpuFactor(int gpus, double sigma = kGpuSpeedSigma);

} // namespace stratex::hardware
