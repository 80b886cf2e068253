// SPDX-License-Identifier: GPL-3.0-or-later
// The identification rule of the preset fit (issue 22 items 4 and 6, docs/calibration.md): a
// family fits only the parameters its own runs identify, and keeps its prior for the others; a
// variant of another family's silicon (h100-96gb) takes that family's fit as its prior.
#include <QtTest>

#include "core/common/error.h"
#include "core/hardware/hardware_model.h"
#include "core/runs/calibration.h"
#include "core/runs/cross_validation.h"
#include "core/runs/family_prior.h"

using namespace stratex;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

// Records by id, measured as the model predicts them under `truth` times `slowdown` (consistent
// synthetic data: whatever the rule decides, it decides from the runs' sensitivities alone).
std::vector<ReferenceRun> recordsUnder(const QStringList& ids, const Efficiency& truth, double slowdown = 1.0)
{
    std::vector<ReferenceRun> runs;
    for (const QString& id : ids) {
        ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        run.fit = true;
        run.measured_iteration_s = compareWithRun(run, truth).predicted_iteration_s * slowdown;
        runs.push_back(std::move(run));
    }
    return runs;
}

const ParameterDecision& decisionOf(const FamilyIdentification& identification, const std::string& name)
{
    for (const ParameterDecision& d : identification.parameters) {
        if (d.name == name)
            return d;
    }
    throw Error("no decision for " + name);
}

const PresetFit& fitOf(const std::vector<PresetFit>& fits, const std::string& family)
{
    for (const PresetFit& fit : fits) {
        if (fit.family == family)
            return fit;
    }
    throw Error("no fit of " + family);
}

} // namespace

class TestFamilyPrior : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Which candidates a set of runs identifies. GEMM efficiency explains most of every dense run's
    // time; attention only a share of short-sequence runs' and much of long-sequence ones'; the
    // DP overlap nothing on one node without data-parallel traffic exposed.
    void identifiesWhatTheRunsDetermine_data()
    {
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QStringList>("candidates");
        QTest::addColumn<QStringList>("fitted");
        QTest::newRow("one run fits nothing") << QStringList { "mbridge2511-llama3-8b-8" } << QStringList { "gemm" }
                                              << QStringList {};
        QTest::newRow("two runs fit GEMM")
            << QStringList { "mbridge2511-llama3-8b-8", "nemo2407-llama2-7b-8" } << QStringList { "gemm" }
            << QStringList { "gemm" };
        QTest::newRow("two 4K runs: GEMM, not attention beside it")
            << QStringList { "mbridge2511-llama3-8b-8", "nemo2407-llama2-7b-8" } << QStringList { "gemm", "attention" }
            << QStringList { "gemm" };
        QTest::newRow("short and long sequences: both")
            << QStringList { "mbridge2511-llama3-8b-8", "nemo2407-llama2-7b-8", "nemo-longseq-llama2-7b-8",
                   "nemo-longseq-llama2-7b-16", "nemo-longseq-llama2-7b-32", "llmfoundry-mpt-13b-8-seq32k" }
            << QStringList { "gemm", "attention" } << QStringList { "gemm", "attention" };
        QTest::newRow("FSDP on one node hides its traffic: no DP overlap")
            << QStringList { "llmfoundry-mpt-1b-8-a100-80gb", "llmfoundry-mpt-3b-8-a100-80gb",
                   "llmfoundry-mpt-7b-8-a100-80gb-seq64k" }
            << QStringList { "dp_overlap" } << QStringList {};
    }
    void identifiesWhatTheRunsDetermine()
    {
        QFETCH(QStringList, ids);
        QFETCH(QStringList, candidates);
        QFETCH(QStringList, fitted);
        const ReferenceRun first = readReferenceRun(kRuns / (ids.front().toStdString() + ".json"));
        const Efficiency prior = datasheetEfficiency(first.cluster.gpu);
        std::vector<std::string> names;
        for (const QString& c : candidates)
            names.push_back(c.toStdString());
        const FamilyIdentification identification = identifyParameters("family", recordsUnder(ids, prior), prior,
            names, kDatasheetPriorSdLog, "datasheet");
        QStringList found;
        for (const std::string& name : identification.fitted())
            found << QString::fromStdString(name);
        QCOMPARE(found, fitted);
        QCOMPARE(identification.runs, int(ids.size()));
        // Every verdict says why, in numbers.
        for (const ParameterDecision& d : identification.parameters) {
            QVERIFY(!d.reason.empty());
            QVERIFY(d.posterior_sd > 0 && d.posterior_sd <= d.prior_sd + 1e-12);
            if (!d.fitted)
                QVERIFY2(d.reason.find(": ") != std::string::npos, d.reason.c_str());
        }
    }

    // h100-96gb is the h100 die: its prior is h100's fit. With one run of its own it fits nothing
    // and is costed with h100's GEMM and attention efficiency; with two it fits one common compute
    // scale (its power cap), shrunk toward h100's; never a free GEMM and attention pair.
    void aVariantShrinksTowardItsParent_data()
    {
        QTest::addColumn<QStringList>("variantIds");
        QTest::addColumn<QStringList>("fitted");
        QTest::newRow("one run") << QStringList { "torchtitan2506-llama3-8b-64-tp8-bf16" } << QStringList {};
        QTest::newRow("two runs") << QStringList { "torchtitan2506-llama3-8b-64-tp8-bf16",
            "torchtitan2506-llama3-70b-256-tp8-bf16" } << QStringList { "compute" };
    }
    void aVariantShrinksTowardItsParent()
    {
        QFETCH(QStringList, variantIds);
        QFETCH(QStringList, fitted);
        const Efficiency datasheet = datasheetEfficiency(gpuPreset("h100-80gb"));
        Efficiency parentTruth = datasheet;
        parentTruth.gemm *= 0.9;
        std::vector<ReferenceRun> runs = recordsUnder(
            { "mbridge2511-llama3-8b-8", "nemo2407-llama2-7b-8", "nemo2407-llama2-13b-16", "mbridge2511-llama3-70b-64" },
            parentTruth);
        // The variant's runs are 30 % slower than the parent's efficiencies predict (a power cap).
        for (ReferenceRun& run : recordsUnder(variantIds, parentTruth, 1.3))
            runs.push_back(std::move(run));
        CalibrationOptions options;
        options.robust_scale = 0.15;
        const std::vector<PresetFit> fits = fitPresets(runs, options);
        const PresetFit& parent = fitOf(fits, "h100");
        const PresetFit& variant = fitOf(fits, "h100-96gb");
        QCOMPARE(variant.identification.prior, std::string("h100 fit"));
        QStringList found;
        for (const std::string& name : variant.identification.fitted())
            found << QString::fromStdString(name);
        QCOMPARE(found, fitted);
        QVERIFY(!decisionOf(variant.identification, "attention").fitted);
        if (fitted.isEmpty()) {
            // Inherited: exactly the parent's rates.
            QCOMPARE(variant.result.fitted.gemm, parent.result.fitted.gemm);
            QCOMPARE(variant.result.fitted.attention, parent.result.fitted.attention);
            QVERIFY(variant.result.parameters.empty());
        } else {
            // One scale on both rates, slower than the parent ...
            const double scale = variant.result.fitted.gemm / parent.result.fitted.gemm;
            QVERIFY2(scale < 0.95, std::to_string(scale).c_str());
            QVERIFY(std::abs(variant.result.fitted.attention / parent.result.fitted.attention - scale) < 1e-9);
            // ... but shrunk toward it: the variant's runs come out slower than the parent's rates
            // predict, yet not the full 30 % two runs alone would claim.
            for (const ReferenceRun& run : runs) {
                if (presetFamily(run.cluster.gpu.name) != "h100-96gb")
                    continue;
                const double slowdown = compareWithRun(run, variant.result.fitted).predicted_iteration_s
                    / compareWithRun(run, parent.result.fitted).predicted_iteration_s;
                QVERIFY2(slowdown > 1.1 && slowdown < 1.29, std::to_string(slowdown).c_str());
            }
        }
    }

    // Cross-validation: with the variant's only source left out, its runs are predicted with the
    // parent's fit of that fold (not the datasheet guesses, not a fit on nothing).
    void aLeftOutVariantIsPredictedWithItsParentsFit()
    {
        Efficiency truth = datasheetEfficiency(gpuPreset("h100-80gb"));
        truth.gemm *= 0.85;
        std::vector<ReferenceRun> runs = recordsUnder(
            { "mbridge2511-llama3-8b-8", "nemo2407-llama2-7b-8", "nemo2407-llama2-13b-16" }, truth);
        for (ReferenceRun& run :
            recordsUnder({ "torchtitan2506-llama3-8b-64-tp8-bf16", "torchtitan2506-llama3-70b-256-tp8-bf16" }, truth))
            runs.push_back(std::move(run));
        for (std::size_t i = 0; i < runs.size(); ++i)
            runs[i].source = i < 3 ? (i == 0 ? "a" : "b") : "variant";
        CalibrationOptions options;
        options.parameters = { "gemm" };
        const CrossValidation cv = crossValidate(runs, options, 1);
        for (const CrossValidatedRun& run : cv.runs) {
            if (run.source != "variant")
                continue;
            QVERIFY(!run.family_fitted);
            QCOMPARE(run.prior, std::string("h100 fit"));
            // The parent's fit found the GEMM efficiency: the variant's runs come out right.
            QVERIFY2(std::abs(run.throughput_error) < 0.03, std::to_string(run.throughput_error).c_str());
        }
    }

    // The case of issue 22: without torchtitan's 2024-12 source, h100-96gb keeps only the two
    // 2025-06 asyncTP runs. They do not identify attention beside the compute scale, so attention
    // is h100's, not a value two runs of one sequence length happen to fit.
    void torchtitanWithoutItsMainSource()
    {
        std::vector<ReferenceRun> runs;
        for (ReferenceRun& run : readReferenceRuns(kRuns)) {
            const std::string family = presetFamily(run.cluster.gpu.name);
            if ((family == "h100" || family == "h100-96gb") && run.source.find("202412") == std::string::npos)
                runs.push_back(std::move(run));
        }
        CalibrationOptions options;
        options.robust_scale = 0.15;
        const std::vector<PresetFit> fits = fitPresets(runs, options);
        const PresetFit& variant = fitOf(fits, "h100-96gb");
        QCOMPARE(variant.identification.runs, 2);
        QVERIFY(!decisionOf(variant.identification, "attention").fitted);
        QCOMPARE(variant.result.fitted.attention / fitOf(fits, "h100").result.fitted.attention,
            variant.result.fitted.gemm / fitOf(fits, "h100").result.fitted.gemm);
        QVERIFY(variant.result.at_bound.empty());
    }

    void parentFamilies()
    {
        QCOMPARE(parentFamily("h100-96gb"), std::string("h100"));
        QCOMPARE(parentFamily("h100"), std::string());
        QCOMPARE(parentFamily("b200-192gb"), std::string("h100"));
        QCOMPARE(parentFamily("gb200-186gb"), std::string("b200-192gb"));
        QCOMPARE(parentFamily("a100"), std::string());
        // The H200 is the H100 die at the same clocks: the h100 family itself.
        QCOMPARE(presetFamily("h200-141gb"), std::string("h100"));
    }

    // A preset family without runs of its own (GB200) is costed with the same carry its fit would
    // make: B200's fitted rates over B200's kernel figures, on GB200's own (72.9 % in BF16).
    void gb200CarriesTheB200Fit()
    {
        const Efficiency b200 = efficiencyFor(gpuPreset("b200-192gb"));
        const Efficiency b200Datasheet = datasheetEfficiency(gpuPreset("b200-192gb"));
        const Efficiency gb200 = efficiencyFor(gpuPreset("gb200-186gb"));
        QVERIFY(std::abs(gb200.gemm - (1822.0 / 2500.0) * b200.gemm / b200Datasheet.gemm) < 1e-12);
        QVERIFY(std::abs(gb200.attention - b200.attention) < 1e-12); // both Blackwell guesses alike
        QVERIFY(std::abs(gb200.fp8_speedup - 3615.6 / 1822.0) < 1e-12);
        QVERIFY(gb200.gemm < b200.gemm); // a lower fraction of a higher peak
    }

    // A child's prior is the parent's fit over the parent's datasheet figure times the child's own
    // (docs/calibration.md §2): the same die keeps the parent's values; B200 carries what the h100
    // runs hold beyond their kernels onto its own best-shape kernel figure (ml-engineering's MAMF
    // table: 77.6 % in BF16 against the H100's 80.3 %), not the parent's value, not its datasheet.
    void aChildCarriesItsParentsFitOntoItsOwnKernels_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<QString>("family");
        QTest::addColumn<double>("gemmOverParentFit");
        QTest::newRow("same die") << "h100-96gb" << "h100-96gb" << 1.0;
        QTest::newRow("B200") << "b200-192gb" << "b200-192gb" << (1745.0 / 2250.0) / 0.803;
    }
    void aChildCarriesItsParentsFitOntoItsOwnKernels()
    {
        QFETCH(QString, gpu);
        QFETCH(QString, family);
        QFETCH(double, gemmOverParentFit);
        PresetFit parent;
        parent.family = "h100";
        parent.gpus = { "h100-80gb" };
        parent.result.fitted = datasheetEfficiency(gpuPreset("h100-80gb"));
        parent.result.fitted.gemm = 0.64;
        parent.result.fitted.attention = 0.37;
        parent.result.fitted.gemm_half_dim = 64; // a figure the datasheet leaves off (0)
        parent.result.parameters = { "gemm", "attention", "gemm_half_dim" };
        const GpuDescription child = gpuPreset(gpu.toStdString());
        std::string priorName;
        const Efficiency prior = familyPrior(family.toStdString(), child, { parent }, &priorName);
        QCOMPARE(priorName, std::string("h100 fit"));
        QVERIFY2(std::abs(prior.gemm / 0.64 - gemmOverParentFit) < 1e-9, std::to_string(prior.gemm).c_str());
        const double attentionRatio = datasheetEfficiency(child).attention / datasheetEfficiency(gpuPreset("h100-80gb")).attention;
        QVERIFY(std::abs(prior.attention / 0.37 - attentionRatio) < 1e-9);
        // No ratio to a 0 datasheet figure: the parent's value, not 0 / 0.
        QCOMPARE(prior.gemm_half_dim, 64.0);
        // What the parent did not fit stays the child's own datasheet figure (B200's FP8 rate).
        QCOMPARE(prior.fp8_speedup, datasheetEfficiency(child).fp8_speedup);
    }

    void computeAndGemmTogetherIsAnError()
    {
        const std::vector<ReferenceRun> runs
            = recordsUnder({ "mbridge2511-llama3-8b-8" }, datasheetEfficiency(gpuPreset("h100-80gb")));
        CalibrationOptions options;
        options.parameters = { "compute", "gemm" };
        QVERIFY_THROWS_EXCEPTION(Error, calibrate(runs, datasheetEfficiency(gpuPreset("h100-80gb")), options));
    }
};

QTEST_APPLESS_MAIN(TestFamilyPrior)
#include "tst_family_prior.moc"
