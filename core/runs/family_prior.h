// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a GPU family's preset fit may fit (issue 22 items 4 and 6, docs/calibration.md): a family
// starts from a prior (the datasheet guesses, or for a variant of another family's silicon that
// family's fit) and fits only the parameters its own runs identify; the others keep the prior.

#include <string>
#include <vector>

#include "core/hardware/efficiency.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

// The spreads of the identification rule and of the shrinkage, in log units (docs/calibration.md).
// model_noise: the error of one run the model cannot explain by the fitted parameters (the
// cross-validation's per-run error, and the Huber scale of the preset fit). datasheet: how far a
// datasheet-typical guess may be from the truth (a factor of 1.65). family: how far a variant of the
// same silicon (power cap, clocks) may be from its parent family's fit (a factor of 1.28).
inline constexpr double kModelNoiseLog = 0.15;
inline constexpr double kDatasheetPriorSdLog = 0.5;
inline constexpr double kFamilyPriorSdLog = 0.25;
// A parameter is identified when the runs determine it more than the prior does: its posterior
// variance, the other parameters marginalised, at most half the prior's (the runs' information at
// least the prior's; the posterior mean then lies nearer the runs' own estimate than the prior) ...
inline constexpr double kIdentifiedSdRatio = 0.70710678118654752; // 1 / sqrt(2)
// ... and at least this many runs each spend this share of their time on it (one run would fit
// that run's every other error into the parameter).
inline constexpr int kMinInformativeRuns = 2;
inline constexpr double kInformativeShare = 0.05;

// The family whose fitted efficiencies `family`'s are shrunk toward: "h100" for "h100-96gb" (the
// same H100 die; torchtitan's Grand Teton H100s differ by HBM2e and a 500 W power cap). Empty:
// the datasheet guesses are the prior.
std::string parentFamily(const std::string& family);

// One candidate parameter's verdict.
struct ParameterDecision {
    std::string name;
    bool fitted = false; // false: keeps the prior's value
    int informative_runs = 0; // runs that spend >= kInformativeShare of their time on it
    double prior_sd = 0; // log
    double posterior_sd = 0; // log, from the runs' Fisher information and the prior, others marginalised
    std::string reason; // one line a person reads
};

// A family's prior and verdicts.
struct FamilyIdentification {
    std::string family;
    std::string prior = "datasheet"; // or "<parent> fit"
    int runs = 0;
    std::vector<ParameterDecision> parameters; // in the candidates' order
    std::vector<std::string> fitted() const; // names of the fitted ones
};

// The rule: at the prior, the time sensitivity s_kj = d log t_k / d log theta_j of run k to
// parameter j gives the Fisher information F = S^T S / noise^2; with the prior's precision
// 1 / prior_sd^2 on each parameter, the posterior covariance is (F + I / prior_sd^2)^-1. The
// parameter with the worst verdict (fewest informative runs, then the largest posterior sd over the
// prior's) is dropped and the rest re-judged, until every remaining one passes: enough informative
// runs, a posterior sd at most kIdentifiedSdRatio of the prior's, and at least kMinInformativeRuns
// runs per fitted parameter in all. Deterministic. Throws stratex::Error when a run cannot be costed.
FamilyIdentification identifyParameters(const std::string& family, const std::vector<ReferenceRun>& runs,
    const hardware::Efficiency& prior, const std::vector<std::string>& candidates, double priorSdLog,
    const std::string& priorName);

// "gemm, attention fitted; network inherited (h100 fit): 2 runs spend >= 5 % on it, need 2; ..."
std::string identificationText(const FamilyIdentification& identification);

} // namespace stratex::runs
