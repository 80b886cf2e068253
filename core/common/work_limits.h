// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The work budgets of the long jobs that input_limits.h does not already bound (issue 26: "one work
// budget for every long computation ... memory counts as well as time"). Soft: beyond them the CLI
// refuses naming the estimate and --lift-work-budget, the GUI asks (work_budget.h). The README's
// Limits table lists them (input_limits.cpp, allLimits()). Each budget is about a minute on one
// core, measured on this project's 2-core build machine (busy) on 2026-11-27 with the commands
// named below; the memory budget keeps a job under 2 GB with the program's own ~100 MB.

namespace stratex::limits {

// Memory one job may allocate for what grows with its input (a simulation's op graph and timeline,
// a trace read whole), MB of 1e6 bytes.
inline constexpr double kMaxJobMemoryMb = 1000;

// The stratex search: pipeline steps simulated (micro-batches x pp x vpp per simulation, summed
// over the simulations the search and its ranking what-ifs run; search_work_estimate.h). The
// median candidate's pipeline overstates the kept plans' (they have the fewest micro-batches).
// Measured: llama2-7b, seq 1024, 8 x H100: global batch 262,144 estimated 6.6e7, ran 16.7 s;
// 1,048,576 estimated 2.6e8 (past 30 s before the budget).
inline constexpr double kMaxStratexSearchWork = 1.5e8;

// The planner's micro-batch DP: priced runs (samples x the longest run that fits the memory)
// for the most permissive memory limit (planner_work.h), an upper bound: runs of longer samples
// end sooner. Measured: gpt 6.7B cost model, lognormal lengths, 4 stages, 1 TB: 65,536 samples
// estimated 6.7e7 runs, 3.8 to 8 s and 80 MB; 262,144 estimated 2.7e8 runs, the DP 10.8 s and
// the whole plan 26.9 s, 139 MB (issue 26 counted it among the hangs). About 10 s of DP here.
inline constexpr double kMaxMicroBatchingWork = 2e8;

// A pipeline simulation: stage-chunk x micro-batch steps (sim_work.h), summed over the cases.
// Measured: 1,024 one-layer stages x 1,024 micro-batches, 1F1B: 10.8 s, 375 MB.
inline constexpr double kMaxSimulationWork = 6e6;

// Calibration (`calibrate`, `reference --cross-validate`, the Calibrate page) in run evaluations,
// one run costed under one set of efficiencies (core/runs/calibration_work.h): a soft budget of
// about a minute on one core, as the other work budgets. The bundled cross-validation (120
// records, 10 folds) is estimated at about 2.6e5 and took 4.9 s on two threads (README).
inline constexpr double kMaxCalibrationWork = 2e6;

} // namespace stratex::limits
