// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Bounds of input_limits.h's kind added for the readers of issue 26 (run records, worker
// threads), kept in a header of their own so that the files that need them are the only ones
// that depend on them. allLimits() lists them with the others (README.md's "Limits" table).

namespace stratex::limits {

// Worker threads of a search (--threads): more than cores only cost memory (a stack each), and a
// few hundred under a memory limit could not be created at all (SIGABRT, issue 26).
inline constexpr int kMaxThreads = 256;

// Measured values of run records, within physical ranges: an iteration over a day, more than
// 10,000 dense TFLOP/s per GPU (B200: 2,250 BF16) or 10 million tokens/s per GPU is a unit
// mistake or a corrupt file, and calibrating on it fits nonsense (iteration_time_s 1e308 and MFU
// 2.0 were read and calibrated, issue 26).
inline constexpr double kMaxMeasuredIterationS = 86400;
inline constexpr double kMaxGpuTflops = 10000;
inline constexpr double kMaxTokensPerSPerGpu = 1e7;

// A name read from a file (a model's): shown in labels, file names and exports. A 100 kB name
// widened a label until the GUI's grab() failed (SIGSEGV, issue 26).
inline constexpr int kMaxNameLength = 256;

// A model's shape in plan files, strategy files and run records: the bounds of the model flags
// (core/model/model_setting_rows.cpp). Products of them (tokens x hidden) stay finite in double
// and the per-layer tables allocatable.
inline constexpr int kMaxHiddenSize = 1 << 20;
inline constexpr int kMaxFfnHiddenSize = 1 << 22;
inline constexpr int kMaxHeads = 4096;
inline constexpr int kMaxVocabulary = 1 << 24;
inline constexpr int kMaxSeqLength = 1 << 22;
// Experts of a MoE layer (DeepSeek-V3: 256) and the experts a token is routed to.
inline constexpr int kMaxExperts = 1 << 16;

} // namespace stratex::limits
