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

// A mode comparison (`plan-compare`, the Planner page's Compare modes): sample-stages scheduled,
// the sum over batches of seeds x 2 modes x (samples + kPlanCompareFixedSamples) x stages
// (planner_work.h, estimatePlanCompareWork), checked before any planning. Measured with
// tests/data/dynapipe/gpt_6.7b_cost_model.json, lognormal 5.5/0.8 lengths, 36,000 MB, CPU time of
// `plan-compare` (timing repeats included): 50 batches of 8 samples on 4 stages 0.28 s, of 64
// samples 1.91 s (7.2e-5 s a sample-stage), 4 of 512 0.72 s, 2 of 2048 0.89 s (larger batches cost
// less a sample: fewer timing repeats), 20 of 64 on 16 stages 2.29 s against 0.78 s on 4. About a
// minute at 7.2e-5 s: 8e5. Issue 26's 10,000 batches of 1..64 samples are 2.8e6.
inline constexpr double kMaxPlanCompareWork = 8e5;
// What one planning costs beyond its samples, in samples: 2.8 ms for 8 samples and 19 ms for 64
// (the same runs, per planning of a mode) give 0.29 ms a sample and 1.7 samples' worth fixed.
inline constexpr double kPlanCompareFixedSamples = 2;

} // namespace stratex::limits
