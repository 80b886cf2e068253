// SPDX-License-Identifier: GPL-3.0-or-later
// The same user inputs through both front ends of the stratex cost model: stratex-cli's
// `search --cost-model stratex --json` (a separate process) and StratexSearchController (the Search
// page's form as its inputs, the search on a worker). Requests (model, GPU, world, memory limit,
// efficiencies, global batch) and results (the plans and their times) must be the same: both call
// megatron::resolveStratexSearch and megatron::runStratexSearch. Before that entry existed, the GUI took
// "80 GB" as 80,000 MB and the CLI as 80 GiB = 85,899 MB (the "memory given" row).
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "core/common/plan_list.h"
#include "core/hardware/hardware_model.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synthesis_record.h"

#include "../cli/cli_runner.h"
#include "core/planner/planner_work.h"

#include "controllers/calibration_controller.h"
#include "controllers/planner_controller.h"
#include "controllers/stratex_search_controller.h"
#include "jobs/job_runner.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

const QString kExample = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");

// One user's statement, as either front end takes it. Empty or 0: not given.
struct Statement {
    QString profiles; // "example", "calibrated" (the example with a calibrated a100-40gb) or ""
    QString modelName;
    QString gpu;
    double memoryGb = 0;
    int globalBatch = 0;
    int numNodes = 0;
    QString mainGradsDtype; // --main-grads-dtype, the form's "Main-gradient dtype"
    QString optimizerStateDtype; // --optimizer-state-dtype, the form's "Optimizer-state dtype"
    bool tpCommOverlap = false; // --tp-comm-overlap 1, the form's "TP comm overlap"
    QString cudaGraphs; // --cuda-graphs, the form's "CUDA graphs"
};

// The example set with gemm efficiency 0.4321 recorded for its a100-40gb (what Calibrate saves).
QString calibratedCopy(const QTemporaryDir& dir)
{
    for (const QFileInfo& file : QDir(kExample).entryInfoList(QDir::Files))
        QFile::copy(file.filePath(), dir.filePath(file.fileName()));
    const QString path = dir.filePath(QString::fromUtf8(profile::synth::kSynthesisFileName));
    QFile record(path);
    if (!record.open(QIODevice::ReadOnly))
        return {};
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(record.readAll().toStdString());
    record.close();
    hardware::Efficiency calibrated = hardware::efficiencyFor(hardware::gpuPreset("a100-40gb"));
    calibrated.gemm = 0.4321;
    json["cluster"]["efficiency"] = hardware::toJson(calibrated);
    if (!record.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    record.write(QByteArray::fromStdString(json.dump(2)));
    return dir.path();
}

// The small space both front ends search, so that a row takes a moment.
const QStringList kSpaceFlags { QStringLiteral("--max-vpp"), QStringLiteral("2"), QStringLiteral("--max-micro-batch-size"),
    QStringLiteral("2"), QStringLiteral("--top"), QStringLiteral("3") };

QStringList cliArguments(const Statement& s, const QString& profiles)
{
    QStringList args { QStringLiteral("search"), QStringLiteral("--cost-model"), QStringLiteral("stratex"),
        QStringLiteral("--json") };
    args << kSpaceFlags;
    if (!profiles.isEmpty())
        args << QStringLiteral("--profiles") << profiles;
    if (!s.modelName.isEmpty())
        args << QStringLiteral("--model-name") << s.modelName;
    if (!s.gpu.isEmpty())
        args << QStringLiteral("--gpu") << s.gpu;
    if (s.memoryGb > 0)
        args << QStringLiteral("--memory-constraint") << QString::number(s.memoryGb);
    if (s.globalBatch > 0)
        args << QStringLiteral("--global-batch-size") << QString::number(s.globalBatch);
    if (s.numNodes > 0)
        args << QStringLiteral("--num-nodes") << QString::number(s.numNodes);
    if (!s.mainGradsDtype.isEmpty())
        args << QStringLiteral("--main-grads-dtype") << s.mainGradsDtype;
    if (!s.optimizerStateDtype.isEmpty())
        args << QStringLiteral("--optimizer-state-dtype") << s.optimizerStateDtype;
    if (s.tpCommOverlap)
        args << QStringLiteral("--tp-comm-overlap") << QStringLiteral("1");
    if (!s.cudaGraphs.isEmpty())
        args << QStringLiteral("--cuda-graphs") << s.cudaGraphs;
    return args;
}

// The Search page's form with these fields filled (StratexSearchInputs, as SearchPage builds it).
StratexSearchInputs formInputs(const Statement& s, const QString& profiles)
{
    StratexSearchInputs inputs;
    inputs.profiles_dir = profiles.toStdString();
    if (!s.modelName.isEmpty()) {
        inputs.settings.model.name = s.modelName.toStdString();
        inputs.given.insert("model-name");
    }
    inputs.stratex.gpu = s.gpu.toStdString();
    if (s.memoryGb > 0) {
        inputs.settings.memory_constraint_gb = s.memoryGb;
        inputs.given.insert("memory-constraint");
    }
    inputs.stratex.global_batch_size = s.globalBatch;
    if (s.numNodes > 0) {
        inputs.settings.num_nodes = s.numNodes;
        inputs.given.insert("num-nodes");
    }
    if (!s.mainGradsDtype.isEmpty())
        inputs.stratex.main_grads_dtype = s.mainGradsDtype.toStdString();
    if (!s.optimizerStateDtype.isEmpty())
        inputs.stratex.optimizer_state_dtype = s.optimizerStateDtype.toStdString();
    inputs.stratex.space.tp_comm_overlap = s.tpCommOverlap;
    if (!s.cudaGraphs.isEmpty())
        inputs.stratex.cuda_graphs = s.cudaGraphs.toStdString();
    // A Galvatron field the form hides with the stratex model: never read.
    inputs.settings.settle_bsz = 999;
    inputs.given.insert("settle-bsz");
    inputs.stratex.space.max_vpp = 2;
    inputs.stratex.space.max_micro_batch_size = 2;
    inputs.top = 3;
    return inputs;
}

} // namespace

Q_DECLARE_METATYPE(Statement)

class TestFrontEndParity : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameRequestAndPlans_data();
    void sameRequestAndPlans();
    void sameCalibrationRules_data();
    void sameCalibrationRules();
    void samePlannerRecommendation();
    void sameStratexSearchBudget();
    void samePlanCompareBudget_data();
    void samePlanCompareBudget();
};

void TestFrontEndParity::sameRequestAndPlans_data()
{
    QTest::addColumn<Statement>("statement");
    QTest::addColumn<double>("memoryLimitMb"); // what both must budget
    QTest::addColumn<QString>("gpuName");
    QTest::addColumn<int>("world");
    QTest::addColumn<double>("gemmEfficiency"); // 0: the GPU preset's
    // 80 GB as GPUs count them: 80 GiB.
    QTest::newRow("memory given") << Statement { {}, "llama2-7b", "a100-80gb", 80, 16, 0 } << 80 * 1073.741824
                                  << "a100-80gb" << 8 << 0.0;
    QTest::newRow("the GPU's memory") << Statement { {}, "llama2-7b", "h100-80gb", 0, 16, 0 } << 80 * 1073.741824
                                      << "h100-80gb" << 8 << 0.0;
    QTest::newRow("a preset in another case")
        << Statement { {}, "LLaMA2-7B", "a100-80gb", 70, 16, 0 } << 70 * 1073.741824 << "a100-80gb" << 8 << 0.0;
    QTest::newRow("nodes given") << Statement { {}, "llama2-7b", "a100-40gb", 36, 32, 2 } << 36 * 1073.741824
                                 << "a100-40gb" << 16 << 0.0;
    QTest::newRow("synthesized set") << Statement { "example", {}, {}, 0, 64, 0 } << 40 * 1073.741824 << "a100-40gb"
                                     << 16 << 0.0;
    QTest::newRow("calibrated set") << Statement { "calibrated", {}, {}, 40, 64, 0 } << 40 * 1073.741824
                                    << "a100-40gb" << 16 << 0.4321;
    QTest::newRow("calibrated set on another GPU")
        << Statement { "calibrated", {}, "a100-80gb", 0, 64, 0 } << 80 * 1073.741824 << "a100-80gb" << 16 << 0.0;
    // The state dtypes (Megatron's --grad-reduce-in-bf16, --use-precision-aware-optimizer): the same
    // plans, costed with the same bytes, on both sides.
    QTest::newRow("bf16 main gradients and optimizer states")
        << Statement { {}, "llama2-7b", "h100-80gb", 0, 16, 0, "bf16", "bf16" } << 80 * 1073.741824 << "h100-80gb"
        << 8 << 0.0;
    QTest::newRow("bf16 main gradients")
        << Statement { {}, "llama2-7b", "h100-80gb", 0, 16, 0, "bf16", "fp32" } << 80 * 1073.741824 << "h100-80gb"
        << 8 << 0.0;
    // TP communication overlap (Megatron's --tp-comm-overlap): set on the plans with TP and sequence
    // parallelism, the same plans and times on both sides.
    QTest::newRow("TP communication overlap")
        << Statement { "example", {}, {}, 0, 32, 0, {}, {}, true } << 40 * 1073.741824 << "a100-40gb" << 16 << 0.0;
    // CUDA graphs (docs/kernels.md §7): on every plan, costed alike on both sides.
    QTest::newRow("CUDA graphs") << Statement { {}, "mixtral-8x7b", "b200-192gb", 0, 64, 2, {}, {}, false,
        "attn-moe-router" } << 180 * 1073.741824
                                 << "b200-192gb" << 16 << 0.0;
}

void TestFrontEndParity::sameRequestAndPlans()
{
    QFETCH(Statement, statement);
    QFETCH(double, memoryLimitMb);
    QFETCH(QString, gpuName);
    QFETCH(int, world);
    QFETCH(double, gemmEfficiency);
    QTemporaryDir dir;
    QString profiles;
    if (statement.profiles == QStringLiteral("example"))
        profiles = kExample;
    else if (statement.profiles == QStringLiteral("calibrated"))
        profiles = calibratedCopy(dir);
    if (!statement.profiles.isEmpty())
        QVERIFY(!profiles.isEmpty());

    // The command line.
    const test::CliResult cli = test::runCli(cliArguments(statement, profiles));
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const QJsonObject cliOut = cli.json().object();

    // The form, through the controller.
    StratexSearchController controller;
    QSignalSpy finished(&controller, &StratexSearchController::searchFinished);
    QSignalSpy failed(&controller, &StratexSearchController::searchFailed);
    controller.run(formInputs(statement, profiles));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1 || failed.count() == 1, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    const std::shared_ptr<const StratexSearchOutcome> gui = controller.outcome();
    QVERIFY(gui);

    // The requests.
    QCOMPARE(cliOut.value(QStringLiteral("memory_limit_mb")).toDouble(), gui->memory_limit_mb);
    QVERIFY2(qAbs(gui->memory_limit_mb - memoryLimitMb) < 1e-6, qPrintable(QString::number(gui->memory_limit_mb)));
    const QJsonObject cluster = cliOut.value(QStringLiteral("cluster")).toObject();
    QCOMPARE(cluster.value(QStringLiteral("gpu")).toObject().value(QStringLiteral("name")).toString(),
        QString::fromStdString(gui->cluster.gpu.name));
    QCOMPARE(QString::fromStdString(gui->cluster.gpu.name), gpuName);
    QCOMPARE(int(gui->cluster.worldSize()), world);
    QCOMPARE(cluster.value(QStringLiteral("num_nodes")).toInt() * cluster.value(QStringLiteral("gpus_per_node")).toInt(),
        world);
    // The efficiencies costed with: the cluster's calibrated ones, else its GPU preset's.
    const double presetGemm = hardware::efficiencyFor(hardware::gpuPreset(gpuName.toStdString())).gemm;
    const QJsonObject cliCalibrated = cluster.value(QStringLiteral("efficiency")).toObject();
    const double cliGemm = cliCalibrated.isEmpty() ? presetGemm : cliCalibrated.value(QStringLiteral("gemm_fraction_of_peak")).toDouble();
    const double guiGemm = hardware::efficiencyFor(gui->cluster).gemm;
    QCOMPARE(cliGemm, guiGemm);
    QCOMPARE(guiGemm, gemmEfficiency > 0 ? gemmEfficiency : presetGemm);
    QCOMPARE(cliOut.value(QStringLiteral("global_batch_size")).toInt(), gui->global_batch_size);
    QCOMPARE(cliOut.value(QStringLiteral("model")).toObject().value(QStringLiteral("name")).toString(),
        QString::fromStdString(gui->model.name));

    // The results.
    const QJsonArray top = cliOut.value(QStringLiteral("top")).toArray();
    QCOMPARE(qsizetype(top.size()), qsizetype(gui->result.best.size()));
    QVERIFY(!top.isEmpty());
    for (qsizetype i = 0; i < top.size(); ++i) {
        const QJsonObject plan = top.at(i).toObject();
        const megatron::Estimate& e = gui->result.best[std::size_t(i)];
        QCOMPARE(plan.value(QStringLiteral("notation")).toString(), QString::fromStdString(e.strategy.notation()));
        if (statement.mainGradsDtype == QStringLiteral("bf16"))
            QVERIFY2(e.strategy.main_grads_dtype == megatron::StateDtype::Bf16, e.strategy.notation().c_str());
        if (statement.optimizerStateDtype == QStringLiteral("bf16"))
            QVERIFY2(e.strategy.optimizer_state_dtype == megatron::StateDtype::Bf16, e.strategy.notation().c_str());
        // On every plan whose framework and layout allow it (megatron::tpCommOverlapProblem), on none without it.
        QCOMPARE(e.strategy.tp_comm_overlap, statement.tpCommOverlap && e.strategy.tp > 1 && e.strategy.sequence_parallel);
        if (statement.tpCommOverlap && i == 0) // the row tests something: the best plan has TP
            QVERIFY2(e.strategy.tp_comm_overlap, e.strategy.notation().c_str());
        QCOMPARE(QString::fromUtf8(megatron::cudaGraphsName(e.strategy.cuda_graphs)),
            statement.cudaGraphs.isEmpty() ? QStringLiteral("none") : statement.cudaGraphs);
        QCOMPARE(plan.value(QStringLiteral("iteration_ms")).toDouble(), e.iteration_ms);
        QCOMPARE(plan.value(QStringLiteral("peak_memory_mb")).toDouble(), e.peak_memory_mb);
        // The evidence on the plan and its twins (issue 22).
        const QJsonObject evidence = plan.value(QStringLiteral("evidence")).toObject();
        const megatron::PlanEvidence& guiEvidence = gui->result.evidence.at(std::size_t(i));
        QCOMPARE(evidence.value(QStringLiteral("extrapolated")).toBool(), guiEvidence.extrapolated);
        QStringList cliNotes;
        for (const QJsonValue& note : evidence.value(QStringLiteral("notes")).toArray())
            cliNotes << note.toString();
        QStringList guiNotes;
        for (const std::string& note : guiEvidence.notes)
            guiNotes << QString::fromStdString(note);
        QCOMPARE(cliNotes, guiNotes);
        QStringList cliAlso;
        for (const QJsonValue& twin : plan.value(QStringLiteral("also")).toArray())
            cliAlso << twin.toObject().value(QStringLiteral("strategy")).toString();
        QStringList guiAlso;
        for (const megatron::ParallelStrategy& twin : gui->result.twins.at(std::size_t(i)))
            guiAlso << QString::fromStdString(twin.notation());
        QCOMPARE(cliAlso, guiAlso);
    }
}

// The calibration's two rules through both front ends (`stratex-cli calibrate` and the Calibrate
// page's CalibrationController): what the runs support (runs::calibrationSupport: an
// under-determined fit is not saved) and the work budget (runs::requireBoundedCalibration: the CLI
// refuses, the page is asked). Both read them from core; the messages are the same sentences,
// and a supported fit writes the same file.
void TestFrontEndParity::sameCalibrationRules_data()
{
    QTest::addColumn<QStringList>("ids"); // bundled H100 records
    QTest::addColumn<int>("copies"); // of each, as a folder of records
    QTest::addColumn<QString>("fit"); // --fit; empty: the defaults
    QTest::addColumn<QString>("rule"); // "supported", "under-determined", "work budget"
    const QStringList three { "megatronlm2024-70b-768", "nemo2407-llama2-7b-8", "megatronlm2024-1.7b-48" };
    QTest::newRow("supported") << three << 1 << "gemm,dp_overlap" << "supported";
    QTest::newRow("six parameters on one run") << three.mid(1, 1) << 1 << QString() << "under-determined";
    QTest::newRow("leave-one-out on 120 runs") << three << 40 << "gemm,dp_overlap" << "work budget";
}

void TestFrontEndParity::sameCalibrationRules()
{
    QFETCH(QStringList, ids);
    QFETCH(int, copies);
    QFETCH(QString, fit);
    QFETCH(QString, rule);
    QTemporaryDir dir;
    const QString runsDir = dir.filePath(QStringLiteral("runs"));
    QVERIFY(QDir().mkpath(runsDir));
    for (const QString& id : ids) {
        for (int copy = 0; copy < copies; ++copy) {
            QVERIFY(QFile::copy(QStringLiteral(STRATEX_RESOURCES_DIR "/reference-runs/") + id + QStringLiteral(".json"),
                runsDir + QStringLiteral("/%1-%2.json").arg(id).arg(copy)));
        }
    }
    const QString cliOut = dir.filePath(QStringLiteral("cli-cluster.json"));
    QStringList args { QStringLiteral("calibrate"), QStringLiteral("--runs"), runsDir, QStringLiteral("--out"), cliOut };
    if (!fit.isEmpty())
        args << QStringLiteral("--fit") << fit;
    const test::CliResult cli = test::runCli(args);

    CalibrationInputs inputs;
    inputs.run_paths << runsDir;
    for (const QString& name : fit.split(QLatin1Char(','), Qt::SkipEmptyParts))
        inputs.parameters.push_back(name.toStdString());
    CalibrationController controller;
    QSignalSpy finished(&controller, &CalibrationController::calibrationFinished);
    QSignalSpy beyond(&controller, &CalibrationController::workBudgetExceeded);
    QSignalSpy failed(&controller, &CalibrationController::calibrationFailed);
    controller.run(inputs);
    controller.runner()->waitForIdle();
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    const QString guiOut = dir.filePath(QStringLiteral("gui-cluster.json"));
    QString guiError;

    if (rule == QLatin1String("work budget")) {
        QCOMPARE(beyond.count(), 1);
        QCOMPARE(finished.count(), 0);
        const auto estimate = beyond.front().front().value<WorkEstimate>();
        QVERIFY(estimate.exceedsBudget());
        QCOMPARE(cli.exitCode, 1);
        QVERIFY2(QString::fromUtf8(cli.err).contains(QString::fromStdString(estimate.describe())), cli.err.constData());
        QVERIFY2(cli.err.contains("--lift-work-budget"), cli.err.constData());
        QVERIFY(!QFile::exists(cliOut));
        return;
    }
    QCOMPARE(beyond.count(), 0);
    QCOMPARE(finished.count(), 1);
    const bool saved = controller.saveCluster(guiOut, &guiError);
    if (rule == QLatin1String("under-determined")) {
        QVERIFY(controller.outcome()->support.underDetermined());
        QVERIFY(!saved);
        QCOMPARE(cli.exitCode, 1);
        QVERIFY2(QString::fromUtf8(cli.err).contains(guiError), cli.err.constData());
        QVERIFY(!QFile::exists(cliOut));
        QVERIFY(!QFile::exists(guiOut));
        return;
    }
    QVERIFY2(saved, qPrintable(guiError));
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    QFile cliFile(cliOut);
    QFile guiFile(guiOut);
    QVERIFY(cliFile.open(QIODevice::ReadOnly) && guiFile.open(QIODevice::ReadOnly));
    QCOMPARE(cliFile.readAll(), guiFile.readAll());
}

namespace {

// The Planner page's inputs as `plan` and `plan-compare` flags: the bundled cost model, `samples`
// lognormal lengths (seed 1), 4 stages of 6 layers, 40,000 MB; every other setting the struct's
// default, which is also the flags' (the settings table).
const QString kPlannerCostModel = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/synthetic-gpt-1.3b-cost-model.json");

QStringList plannerFlags(int samples)
{
    return { QStringLiteral("--cost-model"), kPlannerCostModel, QStringLiteral("--synthetic"),
        QStringLiteral("lognormal:6.5,0.8,%1:1").arg(samples), QStringLiteral("--stages"), QStringLiteral("4"),
        QStringLiteral("--layers-per-stage"), QStringLiteral("6"), QStringLiteral("--memory-mb"),
        QStringLiteral("40000") };
}

void setPlannerPage(PlannerController& controller, int samples)
{
    controller.setCostModelFile(kPlannerCostModel);
    controller.setSyntheticLengths({ 6.5, 0.8, samples, 1 });
    planner::PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 6;
    config.device_memory_mb = 40000;
    controller.setConfig(config);
}

QString batchList(const std::vector<int>& batches)
{
    QStringList parts;
    for (int batch : batches)
        parts << QString::number(batch);
    return parts.join(QLatin1Char(','));
}

} // namespace

// The Planner's mode recommendation (planner::recommendMode per batch, planner::autoThreshold over
// them): `plan-compare --json` and the Planner page's Compare modes on the same batches. The
// planning times are measured twice (two processes), so the batches are ones whose planning hides
// behind the makespan: the recommendation then rests on the makespans, which are deterministic.
void TestFrontEndParity::samePlannerRecommendation()
{
    const std::vector<int> batches { 16, 32, 64 };
    const test::CliResult cli = test::runCli(QStringList { QStringLiteral("plan-compare") } + plannerFlags(64)
        + QStringList { QStringLiteral("--global-batches"), batchList(batches), QStringLiteral("--json") });
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const QJsonObject cliOut = cli.json().object();
    const QJsonArray cliRows = cliOut.value(QStringLiteral("rows")).toArray();

    PlannerController controller;
    setPlannerPage(controller, 64);
    controller.setCompareBatches(batches);
    QSignalSpy ready(&controller, &PlannerController::comparisonReady);
    QSignalSpy failed(&controller, &PlannerController::failed);
    controller.compareModes();
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.front().front().toString()));
    const std::vector<planner::PlanCompareRow>& rows = controller.compareRows();

    QCOMPARE(qsizetype(cliRows.size()), qsizetype(rows.size()));
    for (qsizetype i = 0; i < cliRows.size(); ++i) {
        const QJsonObject cliRow = cliRows.at(i).toObject();
        const planner::PlanCompareRow& row = rows[std::size_t(i)];
        QCOMPARE(cliRow.value(QStringLiteral("batch")).toInt(), row.global_batch);
        QCOMPARE(cliRow.value(QStringLiteral("microbatches")).toInt(), row.microbatches);
        QVERIFY(row.recommended.decided);
        // Planning must hide behind the makespan for the row to be deterministic (see above).
        QVERIFY2(row.normal_time_ms < row.normal_makespan_ms && row.fast_time_ms < row.fast_makespan_ms,
            qPrintable(QString::fromStdString(row.recommended.reason)));
        QCOMPARE(cliRow.value(QStringLiteral("recommended_mode")).toString(),
            QString::fromUtf8(planner::plannerModeName(row.recommended.mode).data()));
    }
    QVERIFY(controller.autoThreshold().measured);
    QCOMPARE(cliOut.value(QStringLiteral("auto_fast_above_microbatches")).toInt(),
        controller.autoThreshold().fast_above_microbatches);
}

// The stratex search's work budget (megatron::estimateStratexSearchWork): the CLI refuses, naming
// the estimate and --lift-work-budget; the Search page asks (StratexSearchController::beyondWorkBudget)
// with the same estimate. Issue 26's global batch of 1,048,576 on one node. The estimate counts the
// plans kept (25 simulations each): neither side names them, so the CLI's --top default and the
// page's "Top plans" start value (both kDefaultTopPlans) must agree.
void TestFrontEndParity::sameStratexSearchBudget()
{
    const test::CliResult cli = test::runCli({ QStringLiteral("search"), QStringLiteral("--cost-model"),
        QStringLiteral("stratex"), QStringLiteral("--model-name"), QStringLiteral("llama2-7b"),
        QStringLiteral("--seq-length"), QStringLiteral("1024"), QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
        QStringLiteral("--num-nodes"), QStringLiteral("1"), QStringLiteral("--global-batch-size"),
        QStringLiteral("1048576") });

    StratexSearchInputs inputs;
    inputs.settings.model.name = "llama2-7b";
    inputs.given.insert("model-name");
    inputs.settings.model.seq_length = 1024;
    inputs.given.insert("seq-length");
    inputs.settings.num_nodes = 1;
    inputs.given.insert("num-nodes");
    inputs.stratex.gpu = "h100-80gb";
    inputs.stratex.global_batch_size = 1048576;
    inputs.top = kDefaultTopPlans; // the Search page's "Top plans" start value
    const std::optional<WorkEstimate> asked = StratexSearchController::beyondWorkBudget(inputs);
    QVERIFY(asked);
    QVERIFY(asked->exceedsBudget());

    QCOMPARE(cli.exitCode, 1);
    QVERIFY2(QString::fromUtf8(cli.err).contains(QString::fromStdString(asked->describe())), cli.err.constData());
    QVERIFY2(cli.err.contains("--lift-work-budget"), cli.err.constData());
    // Lifted, the page does not ask again.
    inputs.lift_work_budget = true;
    QVERIFY(!StratexSearchController::beyondWorkBudget(inputs));
}

// A whole mode comparison's work budget (planner::estimatePlanCompareWork, issue 26): `plan-compare`
// refuses before any planning, naming the estimate and --lift-work-budget; the Planner page's
// Compare modes asks with the same estimate and plans nothing. Within the budget neither refuses.
void TestFrontEndParity::samePlanCompareBudget_data()
{
    QTest::addColumn<std::vector<int>>("batches");
    QTest::addColumn<int>("seeds");
    QTest::addColumn<bool>("beyond");
    // 2 x 3 plannings of 16..64 samples on 4 stages: about 900 sample-stages.
    QTest::newRow("three batches") << std::vector<int> { 16, 32, 64 } << 1 << false;
    // 2,000 plannings of 256 samples: about 2e6, within plan-compare's cap of 1,000 per mode.
    QTest::newRow("500 batches x 2 seeds") << std::vector<int>(500, 256) << 2 << true;
}

void TestFrontEndParity::samePlanCompareBudget()
{
    QFETCH(std::vector<int>, batches);
    QFETCH(int, seeds);
    QFETCH(bool, beyond);
    PlannerController controller;
    setPlannerPage(controller, 256);
    controller.setCompareBatches(batches);
    controller.setCompareSeeds(seeds);
    QSignalSpy asked(&controller, &PlannerController::compareWorkBudgetExceeded);
    QSignalSpy ready(&controller, &PlannerController::comparisonReady);
    QSignalSpy failed(&controller, &PlannerController::failed);
    controller.compareModes();
    if (!beyond) {
        QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), 120000);
        QVERIFY(failed.isEmpty());
        QCOMPARE(asked.count(), 0);
        return;
    }
    QCOMPARE(asked.count(), 1);
    QVERIFY(!controller.compareRunner()->isRunning()); // nothing planned
    const auto estimate = asked.front().front().value<WorkEstimate>();
    QVERIFY(estimate.exceedsBudget());

    const test::CliResult cli = test::runCli(QStringList { QStringLiteral("plan-compare") } + plannerFlags(256)
            + QStringList { QStringLiteral("--global-batches"), batchList(batches), QStringLiteral("--seeds"),
                QString::number(seeds) },
        60000);
    QCOMPARE(cli.exitCode, 1);
    QVERIFY2(QString::fromUtf8(cli.err).contains(QString::fromStdString(estimate.describe())), cli.err.constData());
    QVERIFY2(cli.err.contains("--lift-work-budget"), cli.err.constData());
    QVERIFY(cli.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestFrontEndParity)
#include "tst_front_end_parity.moc"
