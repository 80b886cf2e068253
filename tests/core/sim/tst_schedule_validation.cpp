// SPDX-License-Identifier: GPL-3.0-or-later
// Schedule names, device-assignment classification and merging, which schedules run where, and
// every input error the simulator and the case reader report (with a reason, never a crash).
#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/sim/sim_cases.h"
#include "core/sim/simulator.h"

#include "sim_test_inputs.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

QString names(const std::vector<ScheduleKind>& kinds)
{
    QStringList list;
    for (ScheduleKind kind : kinds)
        list << QLatin1String(scheduleName(kind).data());
    return list.join(QLatin1Char(','));
}

// The message of the stratex::Error `call` throws, or "" when it does not throw.
template <typename Call> std::string errorOf(Call&& call)
{
    try {
        call();
    } catch (const Error& error) {
        return error.what();
    }
    return {};
}

std::string caseError(const std::string& json)
{
    return errorOf([&] { readSimulationCases(JsonDocument::parse(json, "cases.json").root()); });
}

const char* kMicrobatch
    = R"({"fw_us_per_layer":1000,"bw_us_per_layer":2000,"stored_mb_per_layer":100,"peak_mb_per_layer":200})";

std::string oneCase(const std::string& schedule, const std::string& assignment, const std::string& extra = "")
{
    return R"({"cases":[{"schedule":")" + schedule + R"(","device_assignment":)" + assignment + R"(,"microbatches":[)"
        + kMicrobatch + "," + kMicrobatch + "]" + extra + "}]}";
}

} // namespace

class TestScheduleValidation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void names();
    void classify_data();
    void classify();
    void assignmentErrors_data();
    void assignmentErrors();
    void scheduleNeedsItsPlacement();
    void inputErrors();
    void caseErrors_data();
    void caseErrors();
    void caseOptionalFields();
    void starvedByMemoryLimit();
};

void TestScheduleValidation::names()
{
    const QStringList expected { "GPipe", "1F1B", "interleaved-1F1B", "ZB-H1", "cyclic", "wait-free-cyclic", "fifo",
        "DualPipeV", "ZB-V", "flexible-interleaved" };
    QCOMPARE(::names({ kAllScheduleKinds.begin(), kAllScheduleKinds.end() }), expected.join(QLatin1Char(',')));
    for (ScheduleKind kind : kAllScheduleKinds)
        QCOMPARE(parseScheduleName(scheduleName(kind)), std::optional<ScheduleKind>(kind));
    QVERIFY(!parseScheduleName("1f1b")); // exact names
    QVERIFY(!parseScheduleName("zb"));
    const std::string message = errorOf([] { scheduleFromName("zero-bubble"); });
    QCOMPARE(QString::fromStdString(message),
        QStringLiteral("unknown schedule \"zero-bubble\" (known: GPipe, 1F1B, interleaved-1F1B, ZB-H1, cyclic, "
                       "wait-free-cyclic, fifo, DualPipeV, ZB-V, flexible-interleaved)"));
}

void TestScheduleValidation::classify_data()
{
    QTest::addColumn<std::vector<int>>("assignment");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<QString>("valid");
    QTest::addColumn<QString>("planner");
    const QString linearAll = QStringLiteral("wait-free-cyclic,1F1B,ZB-H1,GPipe,cyclic,fifo");
    const QString interleavedAll = QStringLiteral("wait-free-cyclic,interleaved-1F1B,cyclic,fifo,flexible-interleaved");
    const QString otherAll = QStringLiteral("wait-free-cyclic,cyclic,fifo");
    const QString vAll = QStringLiteral("wait-free-cyclic,DualPipeV,ZB-V,cyclic,fifo");
    QTest::newRow("linear 2 layers/device")
        << std::vector<int> { 0, 0, 1, 1, 2, 2, 3, 3 } << "linear" << 4 << 1 << linearAll << "wait-free-cyclic,1F1B";
    QTest::newRow("single device") << std::vector<int> { 0, 0, 0 } << "linear" << 1 << 1 << linearAll
                                   << "wait-free-cyclic";
    QTest::newRow("linear, permuted devices")
        << std::vector<int> { 2, 0, 1 } << "linear" << 3 << 1 << linearAll << "wait-free-cyclic,1F1B";
    QTest::newRow("interleaved v=2") << std::vector<int> { 0, 1, 2, 3, 0, 1, 2, 3 } << "interleaved" << 8 << 2
                                     << interleavedAll << "wait-free-cyclic,interleaved-1F1B";
    QTest::newRow("interleaved v=3, merged runs") << std::vector<int> { 0, 0, 1, 0, 1, 1, 0, 1 } << "interleaved" << 6
                                                  << 3 << interleavedAll << "wait-free-cyclic,interleaved-1F1B";
    // A V: its turn merges into one stage, as DynaPipe does; DualPipeV splits it again.
    QTest::newRow("zig-zag (a V)") << std::vector<int> { 0, 1, 2, 3, 3, 2, 1, 0 } << "other" << 7 << 2 << vAll
                                   << "wait-free-cyclic";
    QTest::newRow("V, 2 layers per chunk")
        << std::vector<int> { 0, 0, 1, 1, 1, 1, 0, 0 } << "other" << 3 << 2 << vAll << "wait-free-cyclic";
    QTest::newRow("V with an odd turn") << std::vector<int> { 0, 1, 1, 1, 0 } << "other" << 3 << 2 << otherAll
                                        << "wait-free-cyclic";
    QTest::newRow("broken cycle") << std::vector<int> { 0, 1, 2, 0, 2, 1 } << "other" << 6 << 2 << otherAll
                                  << "wait-free-cyclic";
    QTest::newRow("uneven") << std::vector<int> { 0, 1, 0 } << "other" << 3 << 2 << otherAll << "wait-free-cyclic";
}

void TestScheduleValidation::classify()
{
    QFETCH(std::vector<int>, assignment);
    QFETCH(QString, kind);
    QFETCH(int, stages);
    QFETCH(int, chunks);
    QFETCH(QString, valid);
    QFETCH(QString, planner);
    const PipelineLayout layout = analyzeAssignment(assignment);
    QCOMPARE(QLatin1String(assignmentKindName(layout.kind).data()), kind);
    QCOMPARE(layout.stageCount(), stages);
    QCOMPARE(layout.n_chunks, chunks);
    QCOMPARE(::names(validSchedules(layout)), valid);
    QCOMPARE(::names(plannerSchedules(layout)), planner);
    // Stages cover the layers in order, each a maximal run on one device.
    int next = 0;
    for (std::size_t k = 0; k < layout.stages.size(); ++k) {
        const PipelineStage& stage = layout.stages[k];
        QCOMPARE(stage.first_layer, next);
        for (int l = stage.first_layer; l <= stage.last_layer; ++l)
            QCOMPARE(assignment[static_cast<std::size_t>(l)], stage.device);
        if (k > 0)
            QVERIFY(layout.stages[k - 1].device != stage.device);
        next = stage.last_layer + 1;
    }
    QCOMPARE(next, static_cast<int>(assignment.size()));
}

void TestScheduleValidation::assignmentErrors_data()
{
    QTest::addColumn<std::vector<int>>("assignment");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << std::vector<int> {} << "empty device assignment: every layer needs a device";
    QTest::newRow("negative") << std::vector<int> { 0, -1 }
                              << "device assignment [0,-1]: layer 1 has negative device -1";
    QTest::newRow("gap") << std::vector<int> { 0, 2,
        2 } << "device assignment [0,2,2]: device 1 holds no layer; devices must be numbered 0..2 without gaps";
}

void TestScheduleValidation::assignmentErrors()
{
    QFETCH(std::vector<int>, assignment);
    QFETCH(QString, message);
    QCOMPARE(QString::fromStdString(errorOf([&] { analyzeAssignment(assignment); })), message);
    SimulationInput input = test::uniformInput(assignment, 2, 1000, 2000, 100, 200);
    QCOMPARE(QString::fromStdString(errorOf([&] { simulate(input, ScheduleKind::WaitFreeCyclic); })), message);
}

void TestScheduleValidation::scheduleNeedsItsPlacement()
{
    const SimulationInput interleaved = test::uniformInput({ 0, 1, 0, 1 }, 2, 1000, 2000, 100, 200);
    for (ScheduleKind kind : { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::ZbH1 }) {
        const std::string message = errorOf([&] { simulate(interleaved, kind); });
        QCOMPARE(QString::fromStdString(message),
            QLatin1String(scheduleName(kind).data())
                + QStringLiteral(
                    " needs a linear device assignment (one stage per device), got interleaved [0,1,0,1]"));
    }
    const SimulationInput linear = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    QVERIFY(
        errorOf([&] { simulate(linear, ScheduleKind::Interleaved1F1B); }).find("interleaved-1F1B needs an interleaved")
        == 0);
    const SimulationInput zigzag = test::uniformInput({ 0, 1, 1, 0 }, 2, 1000, 2000, 100, 200);
    QVERIFY(errorOf([&] { simulate(zigzag, ScheduleKind::Interleaved1F1B); }).find("got other [0,1,1,0]")
        != std::string::npos);
}

void TestScheduleValidation::inputErrors()
{
    SimulationInput input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    input.microbatches[1].layers.pop_back();
    QCOMPARE(QString::fromStdString(errorOf([&] { simulate(input, ScheduleKind::OneFOneB); })),
        QStringLiteral("micro-batch 1 has 1 layers, the device assignment 2"));

    input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    input.microbatches[0].layers[1].fw_us = -5;
    QVERIFY(errorOf([&] {
        simulate(input, ScheduleKind::OneFOneB);
    }).starts_with("micro-batch 0 layer 1: fw_us must be a finite number >= 0"));

    input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200, 2500);
    QVERIFY(errorOf([&] { simulate(input, ScheduleKind::ZbH1); }).find("w_us 2500") != std::string::npos);

    input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    input.microbatches[0].layers[0].stored_mb = std::numeric_limits<double>::quiet_NaN();
    QVERIFY(!errorOf([&] { simulate(input, ScheduleKind::Fifo); }).empty());

    input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    input.model_state_mb_per_layer = { 1, 2, 3 };
    QVERIFY(errorOf([&] { simulate(input, ScheduleKind::Fifo); }).starts_with("model_state_mb_per_layer has 3 values"));

    input = test::uniformInput({ 0, 1 }, 0, 1000, 2000, 100, 200);
    QCOMPARE(errorOf([&] { simulate(input, ScheduleKind::Fifo); }), std::string("no micro-batches to simulate"));
}

void TestScheduleValidation::caseErrors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown schedule")
        << QString::fromStdString(oneCase("zb-v", "[0,1]"))
        << "cases.json: /cases/0/schedule: expected a schedule name (GPipe, 1F1B, interleaved-1F1B, ZB-H1, cyclic, "
           "wait-free-cyclic, fifo, DualPipeV, ZB-V, flexible-interleaved), found string \"zb-v\"";
    QTest::newRow("gap in devices")
        << QString::fromStdString(oneCase("fifo", "[0,2]"))
        << "cases.json: /cases/0/device_assignment: expected a consistent device assignment, found device assignment "
           "[0,2]: device 1 holds no layer; devices must be numbered 0..2 without gaps";
    QTest::newRow("1F1B on interleaved")
        << QString::fromStdString(oneCase("1F1B", "[0,1,0,1]"))
        << "cases.json: /cases/0/schedule: expected a schedule valid for the device assignment, found 1F1B needs a "
           "linear device assignment (one stage per device), got interleaved [0,1,0,1]";
    QTest::newRow("negative device") << QString::fromStdString(oneCase(
        "fifo", "[0,-1]")) << "cases.json: /cases/0/device_assignment/1: expected a device id >= 0, found number -1";
    QTest::newRow("per-layer array of wrong length")
        << R"({"cases":[{"schedule":"fifo","device_assignment":[0,1],"microbatches":[{"fw_us_per_layer":[1,2,3],"bw_us_per_layer":2,"stored_mb_per_layer":1,"peak_mb_per_layer":1}]}]})"
        << "cases.json: /cases/0/microbatches/0/fw_us_per_layer: expected a number or an array of 2 numbers (one per "
           "layer), found array of 3";
    QTest::newRow("missing field")
        << R"({"cases":[{"schedule":"fifo","device_assignment":[0],"microbatches":[{"fw_us_per_layer":1,"bw_us_per_layer":2,"stored_mb_per_layer":1}]}]})"
        << "cases.json: /cases/0/microbatches/0/peak_mb_per_layer: expected key \"peak_mb_per_layer\", found nothing "
           "(key missing)";
    QTest::newRow("no micro-batches")
        << R"({"cases":[{"schedule":"fifo","device_assignment":[0],"microbatches":[]}]})"
        << "cases.json: /cases/0/microbatches: expected at least one micro-batch, found array of 0";
    QTest::newRow("w larger than bw") << QString::fromStdString(
        R"({"cases":[{"schedule":"ZB-H1","device_assignment":[0],"microbatches":[{"fw_us_per_layer":1,"bw_us_per_layer":2,"w_us_per_layer":3,"stored_mb_per_layer":1,"peak_mb_per_layer":1}]}]})")
                                      << "cases.json: /cases/0/microbatches/0/w_us_per_layer: expected values no "
                                         "larger than bw_us_per_layer, found "
                                         "number 3";
    QTest::newRow("not a list") << R"({"cases":{}})"
                                << "cases.json: /cases: expected an array, found object with 0 keys";
    QTest::newRow("zero memory limit")
        << QString::fromStdString(oneCase("cyclic", "[0,1]", R"(,"memory_limit_mb":0)"))
        << "cases.json: /cases/0/memory_limit_mb: expected a positive number, found number 0";
    QTest::newRow("group size beyond the micro-batches")
        << QString::fromStdString(oneCase("flexible-interleaved", "[0,1,0,1]", R"(,"microbatch_group_size":3)"))
        << "cases.json: /cases/0/microbatch_group_size: expected a group size from 1 to the micro-batches, found "
           "number 3";
}

void TestScheduleValidation::caseErrors()
{
    QFETCH(QString, json);
    QFETCH(QString, message);
    QCOMPARE(QString::fromStdString(caseError(json.toStdString())), message);
}

void TestScheduleValidation::caseOptionalFields()
{
    const std::string json = R"({"cases":[{"desc":"x","schedule":"ZB-H1","device_assignment":[0,0,1],
        "model_state_mb_per_layer":[1,2,3],"first_decoder_layer":2,"memory_limit_mb":900,"max_inflight_microbatches":3,"microbatch_group_size":1,
        "comm":{"node_of_device":[0,1],"inter_node_bw_gbps":100,"inter_node_lat_us":2},
        "microbatches":[{"id":7,"fw_us_per_layer":[1,2,3],"bw_us_per_layer":4,"w_us_per_layer":1,"w_stored_mb_per_layer":0.5,
        "stored_mb_per_layer":1,"peak_mb_per_layer":2,"fw_comm_mb_per_layer":1.25,"bw_comm_mb_per_layer":2.5}]}]})";
    const std::vector<SimulationCase> cases = readSimulationCases(JsonDocument::parse(json, "c.json").root());
    QCOMPARE(cases.size(), std::size_t(1));
    const SimulationCase& c = cases[0];
    QCOMPARE(c.description, std::string("x"));
    QCOMPARE(c.schedule, ScheduleKind::ZbH1);
    QCOMPARE(c.options.memory_limit_mb, 900.0);
    QCOMPARE(c.options.microbatch_group_size, 1);
    QCOMPARE(c.options.max_inflight_microbatches, 3);
    QCOMPARE(c.input.model_state_mb_per_layer, (std::vector<double> { 1, 2, 3 }));
    QCOMPARE(c.input.first_decoder_layer, 2);
    QCOMPARE(c.input.comm.transferUs(1.25, 0, 1), 2 + 1.25 * 8000 / 100);
    QCOMPARE(c.input.comm.transferUs(1.25, 1, 1), 0.0);
    const MicrobatchSpec& mb = c.input.microbatches[0];
    QCOMPARE(mb.id, 7);
    QCOMPARE(mb.layers[2].fw_us, 3.0);
    QCOMPARE(mb.layers[1].weightGradUs(), 1.0);
    QCOMPARE(mb.layers[1].weightGradStoredMb(), 0.5);
    QCOMPARE(mb.layers[0].bw_comm_mb, 2.5);
    // Defaults: W half the backward, W keeps the whole activation.
    LayerCost layer;
    layer.bw_us = 10;
    layer.stored_mb = 4;
    QCOMPARE(layer.weightGradUs(), 5.0);
    QCOMPARE(layer.weightGradStoredMb(), 4.0);
}

void TestScheduleValidation::starvedByMemoryLimit()
{
    const SimulationInput input = test::uniformInput({ 0, 1 }, 4, 1000, 2000, 100, 200);
    SimulationOptions options;
    options.memory_limit_mb = 150; // below a single forward's peak
    for (ScheduleKind kind : { ScheduleKind::Cyclic, ScheduleKind::WaitFreeCyclic }) {
        const SimulationResult result = simulate(input, kind, options);
        QVERIFY(!result.feasible);
        QVERIFY2(result.failure.find("150") != std::string::npos, result.failure.c_str());
        QVERIFY(result.timeline.devices.empty());
        const nlohmann::ordered_json json = simulationResultJson(result);
        QVERIFY(json["makespan_us"].is_null());
        QCOMPARE(json["feasible"].get<bool>(), false);
    }
    options.memory_limit_mb = 0;
    options.max_inflight_microbatches = 1; // one micro-batch at a time still finishes
    const SimulationResult one = simulate(input, ScheduleKind::WaitFreeCyclic, options);
    QVERIFY(one.feasible);
    QCOMPARE(one.makespan_us, 4 * (2 * 1000.0 + 2 * 2000.0));
    QCOMPARE(one.peak_memory_mb_per_device, (std::vector<double> { 200, 200 }));
    // Other schedules ignore the scheduler limits.
    options.memory_limit_mb = 150;
    QVERIFY(simulate(input, ScheduleKind::OneFOneB, options).feasible);
}

QTEST_GUILESS_MAIN(TestScheduleValidation)
#include "tst_schedule_validation.moc"
