// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/calibration.h"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <thread>

#include "core/common/error.h"
#include "core/hardware/cluster_description.h"
#include "core/runs/calibration_work.h"

namespace stratex::runs {

namespace {

using hardware::EfficiencyField;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

bool isMemoryParameter(const hardware::EfficiencyField& field)
{
    const std::string name = field.name;
    return name == "memory_reserve_gb" || name == "activation_fragmentation";
}

// The pseudo-parameter "compute" (docs/calibration.md): one log multiplier on every tensor-core
// rate of the start (GEMM and attention efficiency together), what a different clock or power cap
// of the same silicon changes. Fitted with "attention", that one then carries attention's own
// deviation on top of it.
constexpr const char* kComputeScale = "compute";

// The fitted parameters as log values, with their bounds. A field parameter's value is its log;
// "compute"'s is the log of its multiplier on the start's gemm and attention (0 at the start).
struct Parameters {
    std::vector<const hardware::EfficiencyField*> fields; // nullptr: the compute scale
    Eigen::VectorXd lower;
    Eigen::VectorXd upper;
    bool memory = false;

    hardware::Efficiency apply(hardware::Efficiency base, const Eigen::VectorXd& theta) const
    {
        const hardware::Efficiency start = base;
        double scale = 1;
        for (std::size_t j = 0; j < fields.size(); ++j) {
            if (fields[j])
                base.*fields[j]->member = std::exp(theta[Eigen::Index(j)]);
            else
                scale = std::exp(theta[Eigen::Index(j)]);
        }
        if (scale != 1) {
            base.gemm = start.gemm * scale; // "gemm" is never fitted beside "compute"
            base.attention *= scale;
        }
        return base;
    }
    void project(Eigen::VectorXd& theta) const { theta = theta.cwiseMax(lower).cwiseMin(upper); }
};

Parameters parameters(const std::vector<std::string>& names, const hardware::Efficiency& start)
{
    Parameters p;
    for (const std::string& name : names) {
        const hardware::EfficiencyField* field = hardware::findEfficiencyField(name);
        if (!field && name != kComputeScale) {
            std::string known;
            for (const hardware::EfficiencyField& f : hardware::efficiencyFields())
                known += (known.empty() ? "" : ", ") + std::string(f.name);
            throw Error("calibrate: unknown parameter \"" + name + "\" (expected one of " + known + ", "
                + kComputeScale + ")");
        }
        if (std::ranges::find(p.fields, field) != p.fields.end())
            throw Error("calibrate: parameter \"" + name + "\" is given twice");
        p.fields.push_back(field);
        p.memory = p.memory || (field && isMemoryParameter(*field));
    }
    if (p.fields.empty())
        throw Error("calibrate: no parameters to fit");
    const bool scaled = std::ranges::find(p.fields, nullptr) != p.fields.end();
    if (scaled && std::ranges::find(names, std::string("gemm")) != names.end())
        throw Error(std::string("calibrate: \"gemm\" and \"") + kComputeScale
            + "\" cannot be fitted together (the compute scale moves the GEMM efficiency)");
    const auto n = Eigen::Index(p.fields.size());
    p.lower.resize(n);
    p.upper.resize(n);
    for (Eigen::Index j = 0; j < n; ++j) {
        const hardware::EfficiencyField* field = p.fields[std::size_t(j)];
        if (field) {
            p.lower[j] = std::log(field->minimum);
            p.upper[j] = std::log(field->maximum);
            continue;
        }
        // The scale keeps the start's GEMM and attention efficiency inside their ranges.
        p.lower[j] = -1e9;
        p.upper[j] = 1e9;
        for (const char* scaledName : { "gemm", "attention" }) {
            const hardware::EfficiencyField& f = *hardware::findEfficiencyField(scaledName);
            const double value = start.*f.member;
            if (value <= 0)
                throw Error(std::string("calibrate: the compute scale needs a positive ") + scaledName + " to scale");
            p.lower[j] = std::max(p.lower[j], std::log(f.minimum / value));
            p.upper[j] = std::min(p.upper[j], std::log(f.maximum / value));
        }
    }
    return p;
}

// Where a parameter starts in log space: its value, or (when 0, "off") the middle of its range;
// the compute scale at 1.
Eigen::VectorXd startTheta(const Parameters& p, const hardware::Efficiency& start)
{
    Eigen::VectorXd theta(Eigen::Index(p.fields.size()));
    for (std::size_t j = 0; j < p.fields.size(); ++j) {
        if (!p.fields[j]) {
            theta[Eigen::Index(j)] = 0;
            continue;
        }
        const hardware::EfficiencyField& field = *p.fields[j];
        const double value = start.*field.member;
        theta[Eigen::Index(j)]
            = value > 0 ? std::log(value) : 0.5 * (std::log(field.minimum) + std::log(field.maximum));
    }
    p.project(theta);
    return theta;
}

// Every run costed under `e`, on all cores: each run's result goes to its own slot, so the
// answer does not depend on the threads. The first failure (in run order) is rethrown.
std::vector<RunError> errors(const std::vector<ReferenceRun>& runs, const hardware::Efficiency& e)
{
    std::vector<RunError> out(runs.size());
    std::vector<std::exception_ptr> failures(runs.size());
    const std::size_t threads
        = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(1, runs.size()));
    std::atomic<std::size_t> next { 0 };
    auto work = [&] {
        for (std::size_t k = next++; k < runs.size(); k = next++) {
            try {
                out[k] = runError(runs[k], e);
            } catch (...) {
                failures[k] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& thread : pool)
        thread.join();
    for (const std::exception_ptr& failure : failures) {
        if (failure)
            std::rethrow_exception(failure);
    }
    return out;
}

class Problem {
public:
    Problem(const std::vector<ReferenceRun>& runs, const Parameters& p, const hardware::Efficiency& start,
        const CalibrationOptions& options)
        : m_runs(runs)
        , m_p(p)
        , m_start(start)
        , m_options(options)
        , m_theta0(startTheta(p, start))
    {
        for (const ReferenceRun& run : runs) {
            if (run.measured_time) // a memory-only record has no time to fit
                m_residuals += 1;
            if (p.memory && run.peak_memory_gib)
                m_residuals += 1;
        }
        m_residuals += Eigen::Index(p.fields.size()); // the prior
    }

    const Eigen::VectorXd& theta0() const { return m_theta0; }
    hardware::Efficiency efficiency(const Eigen::VectorXd& theta) const { return m_p.apply(m_start, theta); }

    Eigen::VectorXd residuals(const Eigen::VectorXd& theta) const
    {
        const hardware::Efficiency e = efficiency(theta);
        Eigen::VectorXd r(m_residuals);
        Eigen::Index i = 0;
        const std::vector<RunError> runErrors = errors(m_runs, e);
        for (std::size_t k = 0; k < m_runs.size(); ++k) {
            const ReferenceRun& run = m_runs[k];
            const RunError& error = runErrors[k];
            if (run.measured_time)
                r[i++] = robust(std::log(error.predicted_iteration_s / run.measured_iteration_s));
            if (m_p.memory && run.peak_memory_gib)
                r[i++] = robust(
                    m_options.memory_weight * std::log(error.predicted_peak_memory_gib / *run.peak_memory_gib));
        }
        for (Eigen::Index j = 0; j < theta.size(); ++j)
            r[i++] = m_options.prior_weight * (theta[j] - m_theta0[j]);
        return r;
    }

    Eigen::MatrixXd jacobian(const Eigen::VectorXd& theta, const Eigen::VectorXd& r) const
    {
        Eigen::MatrixXd jac(r.size(), theta.size());
        for (Eigen::Index j = 0; j < theta.size(); ++j) {
            // Forward difference of 1e-4 in log (0.01 % of the value), stepping inward at the upper bound.
            const double h = theta[j] + 1e-4 > m_p.upper[j] ? -1e-4 : 1e-4;
            Eigen::VectorXd shifted = theta;
            shifted[j] += h;
            jac.col(j) = (residuals(shifted) - r) / h;
        }
        return jac;
    }

private:
    // Huber's loss as a residual whose square is twice the loss: smooth, r itself up to the scale.
    double robust(double r) const
    {
        const double c = m_options.robust_scale;
        if (c <= 0 || std::abs(r) <= c)
            return r;
        return std::copysign(std::sqrt(2 * c * std::abs(r) - c * c), r);
    }

    const std::vector<ReferenceRun>& m_runs;
    const Parameters& m_p;
    hardware::Efficiency m_start;
    CalibrationOptions m_options;
    Eigen::VectorXd m_theta0;
    Eigen::Index m_residuals = 0;
};

double cost(const Eigen::VectorXd& r)
{
    return 0.5 * r.squaredNorm();
}

} // namespace

std::vector<std::string> defaultCalibrationParameters()
{
    return { "gemm", "gemm_half_dim", "hbm", "network", "collective_latency_us", "dp_overlap" };
}

RunError runError(const ReferenceRun& run, const hardware::Efficiency& efficiency)
{
    const ReferenceComparison c = compareWithRun(run, efficiency);
    if (!c.estimate.problems.empty())
        throw Error("calibrate: run " + run.id + " cannot be costed: " + c.estimate.problems.front());
    RunError e;
    e.id = run.id;
    e.measured_iteration_s = run.measured_iteration_s;
    e.predicted_iteration_s = c.predicted_iteration_s;
    e.throughput_error = c.throughput_error;
    e.measured_peak_memory_gib = run.peak_memory_gib;
    // The number the record publishes (allocated, reserved or device peak; docs/memory-model.md).
    e.predicted_peak_memory_gib = predictedPeakMemoryGib(c.estimate, run.peak_memory_kind);
    e.predicted_oom = c.predicted_oom;
    e.measured_time = run.measured_time;
    return e;
}

CalibrationResult calibrate(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const CalibrationOptions& options)
{
    if (runs.empty())
        throw Error("calibrate: no runs to fit");
    const Parameters p
        = parameters(options.parameters.empty() ? defaultCalibrationParameters() : options.parameters, start);
    const Problem problem(runs, p, start, options);

    CalibrationResult result;
    result.initial = start;
    for (const hardware::EfficiencyField* field : p.fields)
        result.parameters.push_back(field ? field->name : kComputeScale);
    result.before = errors(runs, start);

    Eigen::VectorXd theta = problem.theta0();
    Eigen::VectorXd r = problem.residuals(theta);
    result.cost_before = cost(r);
    double lambda = 1e-3;
    double current = cost(r);
    for (int iteration = 0; iteration < options.max_iterations; ++iteration) {
        result.iterations = iteration + 1;
        Eigen::MatrixXd jac = problem.jacobian(theta, r);
        // A parameter on a bound that the cost would push further out is held there for this
        // step (projected Levenberg-Marquardt): the others converge as if it were fixed.
        const Eigen::VectorXd descent = -(jac.transpose() * r);
        for (Eigen::Index j = 0; j < theta.size(); ++j) {
            const bool atUpper = theta[j] >= p.upper[j] - 1e-12 && descent[j] > 0;
            const bool atLower = theta[j] <= p.lower[j] + 1e-12 && descent[j] < 0;
            if (atUpper || atLower)
                jac.col(j).setZero();
        }
        const Eigen::MatrixXd jtj = jac.transpose() * jac;
        const Eigen::VectorXd gradient = jac.transpose() * r;
        // Marquardt's scaling: damping proportional to the diagonal, so that parameters of very
        // different sensitivity are damped alike.
        const Eigen::VectorXd diagonal = jtj.diagonal().cwiseMax(1e-12);
        bool improved = false;
        for (int attempt = 0; attempt < 12 && !improved; ++attempt) {
            Eigen::MatrixXd a = jtj;
            a.diagonal() += lambda * diagonal;
            Eigen::VectorXd candidate = theta - a.ldlt().solve(gradient);
            p.project(candidate);
            const Eigen::VectorXd rc = problem.residuals(candidate);
            const double c = cost(rc);
            if (std::isfinite(c) && c < current) {
                const double decrease = current - c;
                const double step = (candidate - theta).cwiseAbs().maxCoeff();
                theta = candidate;
                r = rc;
                current = c;
                lambda = std::max(1e-9, lambda / 3);
                improved = true;
                // Converged when a step gains less than a millionth of the cost or moves no
                // parameter by more than 1e-7 of itself.
                if (decrease < 1e-6 * current || step < 1e-7)
                    result.converged = true;
            } else {
                lambda *= 4;
            }
        }
        if (!improved)
            result.converged = true; // no step lowers the cost: a (bounded) minimum
        if (result.converged)
            break;
    }
    result.fitted = problem.efficiency(theta);
    result.cost_after = current;
    result.after = errors(runs, result.fitted);
    result.at_bound = parametersAtBound(result);
    return result;
}

std::vector<std::string> parametersAtBound(const CalibrationResult& result)
{
    // Within 1 % of a bound: relative to the bound itself (the fit works in log space, where 1 %
    // is the same step at either end of a range).
    std::vector<std::string> out;
    auto atBound = [&result](const hardware::EfficiencyField& field) {
        const double value = result.fitted.*field.member;
        return value <= field.minimum * 1.01 || value >= field.maximum * 0.99;
    };
    for (const std::string& name : result.parameters) {
        const hardware::EfficiencyField* field = hardware::findEfficiencyField(name);
        // The compute scale ends at a bound when either rate it moves does.
        const bool bounded = field ? atBound(*field)
                                   : name == kComputeScale
                && (atBound(*hardware::findEfficiencyField("gemm"))
                    || atBound(*hardware::findEfficiencyField("attention")));
        if (bounded)
            out.push_back(name);
    }
    return out;
}

std::vector<std::vector<double>> timeSensitivities(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const std::vector<std::string>& names)
{
    const Parameters p = parameters(names, start);
    const Eigen::VectorXd theta0 = startTheta(p, start);
    const std::vector<RunError> base = errors(runs, p.apply(start, theta0));
    std::vector<std::vector<double>> out;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        if (runs[k].measured_time)
            out.emplace_back(names.size(), 0.0);
    }
    for (std::size_t j = 0; j < names.size(); ++j) {
        // 1 % in log, inward at the upper bound: wide enough to step over the model's small kinks.
        const auto col = Eigen::Index(j);
        const double h = theta0[col] + 0.01 > p.upper[col] ? -0.01 : 0.01;
        Eigen::VectorXd shifted = theta0;
        shifted[col] += h;
        const std::vector<RunError> moved = errors(runs, p.apply(start, shifted));
        std::size_t row = 0;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            if (!runs[k].measured_time)
                continue;
            out[row++][j] = std::log(moved[k].predicted_iteration_s / base[k].predicted_iteration_s) / h;
        }
    }
    return out;
}

RunError leftOutError(const std::vector<ReferenceRun>& runs, std::size_t index, const hardware::Efficiency& start,
    const CalibrationOptions& options)
{
    std::vector<ReferenceRun> others;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        if (k != index)
            others.push_back(runs[k]);
    }
    const CalibrationResult fit = calibrate(others, start, options);
    return runError(runs.at(index), fit.fitted);
}

std::vector<RunError> leaveOneOut(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const CalibrationOptions& options)
{
    if (runs.size() < 3)
        throw Error("calibrate: leave-one-out needs at least 3 runs, found " + std::to_string(runs.size()));
    std::vector<RunError> out;
    for (std::size_t i = 0; i < runs.size(); ++i)
        out.push_back(leftOutError(runs, i, start, options));
    return out;
}

std::vector<std::string> presetFitParameters(const std::string& family)
{
    // The A100 fit runs are all llm-foundry FSDP runs without tensor or pipeline parallelism. Their
    // attention is their own Triton kernel's measured rate (attention_kernel, docs/kernels.md §6),
    // not the flash attention the presets cost, so they no longer tell Efficiency::attention
    // (before: fitted 0.2992, the Triton kernel's rate). Their GEMM efficiency is llm-foundry's
    // eager PyTorch's, not Megatron's (the A100 hold-out papers keep the datasheet 0.869), and
    // they say nothing about TP collectives: only how much FSDP traffic hides is left.
    if (family == "a100")
        return { "dp_overlap" };
    // The network fraction is physical since issue 22 (at most the links' datasheet bandwidth,
    // efficiency.cpp), and TP overlap is a mechanism of the records (tp_comm_overlap). On every
    // family with TP, EP or DP traffic the fits still want more than the links give: h100 1.71
    // (its dense runs trade network against dp_overlap, network 3.0 with dp_overlap 0.09; its MoE
    // runs' expert all-to-alls want it too), h100-96gb 1.19 (after torchtitan's AsyncTP: 2.0 and
    // more before), b200-192gb 1.23. Fitted inside the range they end at its top, which stands in
    // for what the model still lacks (how much of the DP traffic hides; with the MoE dispatchers
    // and EP overlap as mechanisms, docs/moe.md, h100's MoE runs alone fit 0.81 at datasheet GEMM
    // efficiency, but with it still 1.0), so they keep the datasheet 1.0 and are not fitted. With the network fixed,
    // h100's dp_overlap ends at 1.0 (the same trade), so it keeps its datasheet guess too; two
    // B200 runs then end GEMM efficiency at 1.0 from the datasheet start. docs/collectives.md,
    // "The fitted network fraction".
    // Candidates only: fitPresets() fits those the family's runs identify (docs/calibration.md).
    // h100-96gb is the h100 die: its prior is h100's fit, and its runs fit a common scale on both
    // tensor-core rates (the 500 W power cap's clocks) and attention's own deviation beyond it
    // where they identify them. B200 is other silicon run by the same frameworks: its prior is the
    // h100 fit carried onto B200's own kernel figures (familyPrior), and its runs fit the same two.
    if (family == "h100")
        return { "gemm", "attention" };
    if (family == "h100-96gb" || family == "b200-192gb")
        return { "compute", "attention" };
    return { "gemm", "attention", "network", "dp_overlap" };
}

hardware::Efficiency familyPrior(const std::string& family, const hardware::GpuDescription& gpu,
    const std::vector<PresetFit>& fits, std::string* priorName)
{
    // Start from the datasheet-typical guesses, not from a previous fit: the result must not
    // depend on what efficiencyFor() holds today.
    hardware::Efficiency prior = hardware::datasheetEfficiency(gpu);
    if (priorName)
        *priorName = "datasheet";
    const std::string parent = parentFamily(family);
    for (const PresetFit& fit : fits) {
        if (parent.empty() || fit.family != parent || fit.gpus.empty())
            continue;
        // The parent's fitted parameters, as efficiencyFor() would give them to the parent's GPU,
        // carried over as the parent's fit over its own datasheet figure times the child's figure:
        // what the parent's end-to-end runs hold beyond the best-shaped kernels (the same software,
        // docs/calibration.md §2) on the child's own kernels. The same die (h100-96gb): the
        // parent's values unchanged.
        const hardware::Efficiency parentDatasheet
            = hardware::datasheetEfficiency(hardware::gpuPreset(fit.gpus.front()));
        // A figure the parent's datasheet leaves at 0 (gemm_half_dim: off) has no ratio to carry:
        // the child takes the parent's value.
        const auto carry = [&](double hardware::Efficiency::*member) {
            const double base = parentDatasheet.*member;
            prior.*member = base > 0 ? fit.result.fitted.*member * (prior.*member / base) : fit.result.fitted.*member;
        };
        for (const std::string& name : fit.result.parameters) {
            if (const hardware::EfficiencyField* field = hardware::findEfficiencyField(name)) {
                carry(field->member);
            } else { // the compute scale moved both rates
                carry(&hardware::Efficiency::gemm);
                carry(&hardware::Efficiency::attention);
            }
        }
        if (priorName)
            *priorName = parent + " fit";
    }
    return prior;
}

std::vector<PresetFit> fitPresets(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    // Before any fit (issue 26); crossValidate() checked its folds' sum already.
    requireBoundedPresetFit(runs, options);
    std::map<std::string, std::vector<ReferenceRun>> byFamily;
    for (const ReferenceRun& run : runs) {
        if (run.fit) // hold-out runs never enter the fit
            byFamily[hardware::presetFamily(run.cluster.gpu.name)].push_back(run);
    }
    // Parents before their children: a child's prior is its parent's fit (docs/calibration.md);
    // gb200 -> b200 -> h100 is two generations deep.
    const auto depth = [](std::string family) {
        int d = 0;
        while (!(family = parentFamily(family)).empty())
            ++d;
        return d;
    };
    std::vector<std::string> order;
    for (const auto& [family, familyRuns] : byFamily)
        order.push_back(family);
    std::ranges::stable_sort(order, {}, depth);
    std::vector<PresetFit> fits;
    for (const std::string& family : order) {
        const std::vector<ReferenceRun>& familyRuns = byFamily.at(family);
        PresetFit fit;
        fit.family = family;
        for (const ReferenceRun& run : familyRuns) {
            if (std::ranges::find(fit.gpus, run.cluster.gpu.name) == fit.gpus.end())
                fit.gpus.push_back(run.cluster.gpu.name);
        }
        std::string priorName;
        const hardware::Efficiency prior = familyPrior(family, familyRuns.front().cluster.gpu, fits, &priorName);
        const bool inherits = priorName != "datasheet";
        const double priorSd = inherits ? kFamilyPriorSdLog : kDatasheetPriorSdLog;
        CalibrationOptions familyOptions = options;
        if (familyOptions.parameters.empty())
            familyOptions.parameters = presetFitParameters(family);
        if (!inherits && std::ranges::find(familyOptions.parameters, std::string("compute"))
                != familyOptions.parameters.end()) {
            // Without a parent's fit the compute scale is the GEMM efficiency's own deviation.
            std::ranges::replace(familyOptions.parameters, std::string("compute"), std::string("gemm"));
        }
        // Only what the family's runs identify is fitted; the rest keeps the prior.
        fit.identification
            = identifyParameters(family, familyRuns, prior, familyOptions.parameters, priorSd, priorName);
        familyOptions.parameters = fit.identification.fitted();
        // A variant is shrunk toward its parent's fit with the weight of its prior spread against
        // one run's noise; a datasheet prior keeps the options' weak pull (a tie-breaker only).
        if (inherits)
            familyOptions.prior_weight = kModelNoiseLog / kFamilyPriorSdLog;
        if (familyOptions.parameters.empty()) {
            fit.result.initial = prior;
            fit.result.fitted = prior;
            fit.result.before = errors(familyRuns, prior);
            fit.result.after = fit.result.before;
            fit.result.converged = true;
        } else {
            fit.result = calibrate(familyRuns, prior, familyOptions);
        }
        fits.push_back(std::move(fit));
    }
    // In the families' names' order, as before.
    std::ranges::sort(fits, {}, &PresetFit::family);
    return fits;
}

} // namespace stratex::runs
