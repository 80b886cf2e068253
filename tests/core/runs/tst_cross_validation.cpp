// SPDX-License-Identifier: GPL-3.0-or-later
// Leave-one-source-out cross-validation (issue 22 item 6): no fit sees the source it predicts; a
// source whose runs disagree with the others gets the large error a plain fit would hide; hold-out
// records are predicted but never fitted on; the answer does not depend on the thread count.
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/hardware/hardware_model.h"
#include "core/runs/cross_validation.h"

using namespace stratex;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

// Published H100 layouts (small enough to cost quickly), given synthetic sources: two runs each of
// "a", "b", "c" (consistent: measured as the model predicts under `truth`), "odd" (measured
// `oddFactor` times slower than that) and "holdout" (consistent, use = holdout).
std::vector<ReferenceRun> syntheticSources(const Efficiency& truth, double oddFactor)
{
    static const char* const ids[] = { "mbridge2511-llama3-8b-8", "llmfoundry-mpt-7b-8", "llmfoundry-mpt-13b-8-seq32k",
        "llmfoundry-mpt-30b-8-seq8k", "llmfoundry-mpt-70b-64", "mbridge2511-llama3-70b-64", "llmfoundry-mpt-7b-128",
        "llmfoundry-mpt-1b-128", "nemo2407-llama2-7b-8", "nemo2407-llama2-13b-16" };
    static const char* const sources[] = { "a", "a", "b", "b", "c", "c", "odd", "odd", "holdout", "holdout" };
    std::vector<ReferenceRun> runs;
    for (std::size_t i = 0; i < std::size(ids); ++i) {
        ReferenceRun run = readReferenceRun(kRuns / (std::string(ids[i]) + ".json"));
        run.source = sources[i];
        run.fit = run.source != "holdout";
        const ReferenceComparison c = compareWithRun(run, truth);
        run.measured_iteration_s = c.predicted_iteration_s * (run.source == "odd" ? oddFactor : 1.0);
        runs.push_back(std::move(run));
    }
    return runs;
}

Efficiency truthFor(const std::vector<ReferenceRun>& runs)
{
    Efficiency truth = datasheetEfficiency(runs.front().cluster.gpu);
    truth.gemm *= 0.85; // a GEMM efficiency the fit has to find
    return truth;
}

CalibrationOptions gemmOnly()
{
    CalibrationOptions options;
    options.parameters = { "gemm" };
    return options;
}

const CrossValidatedRun& runOf(const CrossValidation& cv, const std::string& id)
{
    for (const CrossValidatedRun& run : cv.runs) {
        if (run.id == id)
            return run;
    }
    throw Error("no run " + id);
}

const ErrorGroup& groupOf(const std::vector<ErrorGroup>& groups, const std::string& name)
{
    for (const ErrorGroup& g : groups) {
        if (g.name == name)
            return g;
    }
    throw Error("no group " + name);
}

} // namespace

class TestCrossValidation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void foldsNeverSeeTheirSource()
    {
        const std::vector<ReferenceRun> base = syntheticSources(datasheetEfficiency(gpuPreset("h100-80gb")), 1.0);
        const CrossValidation cv = crossValidate(syntheticSources(truthFor(base), 1.6), gemmOnly(), 1);
        // a, b, c, odd each have a fold; the hold-out source shares the fold of every fit run.
        QCOMPARE(int(cv.folds.size()), 5);
        std::map<std::string, std::string> sourceOf;
        for (const CrossValidatedRun& run : cv.runs)
            sourceOf[run.id] = run.source;
        for (const CrossValidationFold& fold : cv.folds) {
            QVERIFY(!fold.trained_on.empty());
            for (const std::string& id : fold.trained_on) {
                QVERIFY2(std::ranges::find(fold.left_out, sourceOf.at(id)) == fold.left_out.end(),
                    (id + " trained the fold that predicts its own source").c_str());
                QVERIFY2(sourceOf.at(id) != "holdout", (id + ": a hold-out run was fitted on").c_str());
            }
        }
        QCOMPARE(cv.overall.runs, 10); // every record predicted, hold-outs included
    }

    // Issue 23: --cross-validate reports memory per framework. A memory-only record is predicted
    // (its memory error, from its fold's efficiencies) but counts in no throughput error; the
    // synthetic sources publish no memory, so the summary holds the memory-only record alone.
    void memoryPerFrameworkAndMemoryOnlyRecords()
    {
        const std::vector<ReferenceRun> base = syntheticSources(datasheetEfficiency(gpuPreset("h100-80gb")), 1.0);
        std::vector<ReferenceRun> runs = syntheticSources(truthFor(base), 1.0);
        runs.push_back(readReferenceRun(kRuns / "mbridge-byoc-llama3.2-1b-8.json"));
        const CrossValidation cv = crossValidate(runs, gemmOnly(), 1);
        QCOMPARE(cv.overall.runs, 10); // the ten timed runs only
        const CrossValidatedRun& memoryOnly = runOf(cv, "mbridge-byoc-llama3.2-1b-8");
        QVERIFY(!memoryOnly.measured_time);
        QVERIFY(memoryOnly.costed);
        QVERIFY(memoryOnly.memory.has_value());
        QCOMPARE(memoryOnly.memory->framework, megatron::Framework::MegatronBridge);
        QCOMPARE(memoryOnly.memory->kind, PeakMemoryKind::Allocated);
        QCOMPARE(int(cv.memory_by_framework.size()), 1);
        QCOMPARE(cv.memory_by_framework.front().framework, megatron::Framework::MegatronBridge);
        QCOMPARE(cv.memory_by_framework.front().records, 1);
        QCOMPARE(cv.memory_by_framework.front().mean_absolute_error, std::abs(memoryOnly.memory->error));
        QCOMPARE(int(cv.memory_by_framework_and_kind.size()), 1);
        QVERIFY(cv.memory_by_framework_and_kind.front().kind == PeakMemoryKind::Allocated);
        // Its source holds no timed run: its group says so rather than an error of 0.
        QCOMPARE(groupOf(cv.by_source, memoryOnly.source).runs, 0);
    }

    void anInconsistentSourceShowsItsError()
    {
        const std::vector<ReferenceRun> base = syntheticSources(datasheetEfficiency(gpuPreset("h100-80gb")), 1.0);
        const Efficiency truth = truthFor(base);
        const std::vector<ReferenceRun> runs = syntheticSources(truth, 1.6);
        const CrossValidation cv = crossValidate(runs, gemmOnly(), 1);
        // Fitted on a, b and c alone, the fit finds the truth: the odd source's runs come out 60 %
        // too fast, as they are.
        const ErrorGroup& odd = groupOf(cv.by_source, "odd");
        QCOMPARE(odd.runs, 2);
        QVERIFY2(std::abs(odd.mean_error - 0.6) < 0.05, std::to_string(odd.mean_error).c_str());
        // A plain fit on every fit run (the odd ones included) drags the GEMM efficiency towards
        // them and hides part of it.
        const std::vector<PresetFit> plain = fitPresets(runs, gemmOnly());
        QCOMPARE(int(plain.size()), 1);
        double inSample = 0;
        for (const ReferenceRun& run : runs) {
            if (run.source == "odd")
                inSample += std::abs(compareWithRun(run, plain.front().result.fitted).throughput_error) / 2;
        }
        QVERIFY2(inSample < odd.mean_absolute_error - 0.1,
            ("in-sample " + std::to_string(inSample) + " vs cross-validated " + std::to_string(odd.mean_absolute_error))
                .c_str());
        // The consistent sources are predicted better than the odd one even with it in their fits.
        QVERIFY(groupOf(cv.by_source, "a").mean_absolute_error < odd.mean_absolute_error);
        QVERIFY(runOf(cv, "nemo2407-llama2-7b-8").family_fitted);
        QCOMPARE(groupOf(cv.by_family, "h100").runs, 10);
    }

    void sameAnswerOnAnyThreadCount()
    {
        const std::vector<ReferenceRun> base = syntheticSources(datasheetEfficiency(gpuPreset("h100-80gb")), 1.0);
        const std::vector<ReferenceRun> runs = syntheticSources(truthFor(base), 1.3);
        const CrossValidation one = crossValidate(runs, gemmOnly(), 1);
        const CrossValidation two = crossValidate(runs, gemmOnly(), 2);
        QCOMPARE(one.runs.size(), two.runs.size());
        for (std::size_t i = 0; i < one.runs.size(); ++i) {
            QCOMPARE(one.runs[i].id, two.runs[i].id);
            QCOMPARE(one.runs[i].predicted_iteration_s, two.runs[i].predicted_iteration_s);
        }
        QCOMPARE(one.overall.mean_absolute_error, two.overall.mean_absolute_error);
    }

    void regimes_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QStringList>("regimes");
        QTest::newRow("8B on one node") << "mbridge2511-llama3-8b-8" << QStringList { kRegimeSmallOneNode };
        QTest::newRow("30B on one node, 8K") << "llmfoundry-mpt-30b-8-seq8k" << QStringList {};
        QTest::newRow("7B on one node, 64K")
            << "llmfoundry-mpt-7b-8-a100-80gb-seq64k" << QStringList { kRegimeSmallOneNode, kRegimeLongContext };
        QTest::newRow("DeepSeek-V3 on 1,024") << "mbridge2509-deepseek-v3-1024" << QStringList { kRegimeMoe, kRegimeLargeScale };
        QTest::newRow("Llama 3 on 16,384") << "llama3-2024-405b-16384" << QStringList { kRegimeLargeScale };
    }

    void regimes()
    {
        QFETCH(QString, id);
        QFETCH(QStringList, regimes);
        const ReferenceRun run = readReferenceRun(kRuns / (id.toStdString() + ".json"));
        QStringList found;
        for (const std::string& regime : runRegimes(run))
            found << QString::fromStdString(regime);
        QCOMPARE(found, regimes);
    }

    void sourceIsThePublication()
    {
        const ReferenceRun a = readReferenceRun(kRuns / "llama3-2024-405b-16384.json");
        const ReferenceRun b = readReferenceRun(kRuns / "llama3-2024-405b-8192.json");
        QCOMPARE(a.source, std::string("https://arxiv.org/abs/2407.21783"));
        QCOMPARE(a.source, b.source);
    }

    void noRunsIsAnError() { QVERIFY_THROWS_EXCEPTION(Error, crossValidate({})); }
};

QTEST_APPLESS_MAIN(TestCrossValidation)
#include "tst_cross_validation.moc"
