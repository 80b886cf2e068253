// SPDX-License-Identifier: GPL-3.0-or-later
// Per-rank instruction lists: DynaPipe's counts for its own scheduler tests (raw, optimized,
// buffers), the documented rank-1 example, deadlock freedom for every schedule and placement,
// and the checker catching broken lists.
#include <set>

#include <QTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/sim/instructions.h"

#include "sim_test_inputs.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::sim;

namespace {

std::vector<int> integers(const JsonView& array)
{
    std::vector<int> values;
    for (const JsonView& element : array.elements())
        values.push_back(static_cast<int>(element.integer()));
    return values;
}

QString text(const Instruction& i)
{
    QString s = QString::fromLatin1(instructionName(i.kind).data()) + QStringLiteral("(");
    if (i.kind != InstructionKind::FreeBuffer)
        s += QStringLiteral("mb%1,st%2").arg(i.microbatch).arg(i.stage);
    if (!i.buffer_ids.empty()) {
        QStringList ids;
        for (int id : i.buffer_ids)
            ids << QString::number(id);
        s += (i.kind == InstructionKind::FreeBuffer ? QString() : QStringLiteral(",")) + QLatin1Char('[')
            + ids.join(QLatin1Char(',')) + QLatin1Char(']');
    }
    if (i.peer >= 0)
        s += QStringLiteral(",peer%1").arg(i.peer);
    return s + QLatin1Char(')');
}

SimulationInput withComm(SimulationInput input)
{
    for (MicrobatchSpec& mb : input.microbatches) {
        for (LayerCost& layer : mb.layers) {
            layer.fw_comm_mb = 1.25;
            layer.bw_comm_mb = 1.25;
        }
    }
    input.comm.inter_node_bw_gbps = 100;
    const PipelineLayout layout = analyzeAssignment(input.device_assignment);
    for (int d = 0; d < layout.n_devices; ++d)
        input.comm.node_of_device.push_back(d);
    return input;
}

} // namespace

class TestInstructions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void repoTestConfigs_data();
    void repoTestConfigs();
    void documentedRankOneExample();
    void deadlockFreeEverywhere_data();
    void deadlockFreeEverywhere();
    void checkerFindsMismatchedOrder();
    void checkerFindsDeadlock();
    void needsTimeline();
    void json();
};

void TestInstructions::repoTestConfigs_data()
{
    QTest::addColumn<int>("index");
    const JsonView configs = test::scheduleGroundTruth().root()["repo_test_configs"];
    for (std::size_t i = 0; i < configs.size(); ++i) {
        const JsonView c = configs.at(i);
        QTest::newRow(qPrintable(
            QStringLiteral("%1 %2 %3")
                .arg(QString::fromStdString(c["batch"].string()), QString::fromStdString(c["schedule"].string()),
                    QString::fromStdString(c["device_assignment"].raw().dump()))))
            << static_cast<int>(i);
    }
}

void TestInstructions::repoTestConfigs()
{
    QFETCH(int, index);
    const JsonView expected
        = test::scheduleGroundTruth().root()["repo_test_configs"].at(static_cast<std::size_t>(index));
    const std::vector<int> assignment = integers(expected["device_assignment"]);
    const SimulationInput input = expected["batch"].string() == "uniform" ? test::repoUniformBatch(assignment)
                                                                          : test::repoHeteroBatch(assignment);
    const SimulationResult result = simulate(input, scheduleFromName(expected["schedule"].string()));
    const ExecutionInstructions raw = rawInstructions(result, input);
    const ExecutionInstructions optimized = buildInstructions(result, input);
    const std::vector<int> rawCounts = integers(expected["n_instr_per_rank_raw"]);
    const std::vector<int> optimizedCounts = integers(expected["n_instr_per_rank_optimized"]);
    const std::vector<int> buffers = integers(expected["n_buffers"]);
    QCOMPARE(raw.ranks.size(), rawCounts.size());
    for (std::size_t r = 0; r < rawCounts.size(); ++r) {
        QCOMPARE(static_cast<int>(raw.ranks[r].instructions.size()), rawCounts[r]);
        QCOMPARE(static_cast<int>(optimized.ranks[r].instructions.size()), optimizedCounts[r]);
        QCOMPARE(optimized.ranks[r].num_pipe_buffers, buffers[r]);
    }
    const DeadlockCheck check = checkDeadlockFree(optimized);
    QVERIFY2(check.ok, check.problem.c_str());
    QVERIFY2(checkDeadlockFree(raw).ok, "raw lists pair up too");
}

// docs/dynapipe-planner.md §6: rank 1 of a 3-stage, 3-micro-batch 1F1B plan.
void TestInstructions::documentedRankOneExample()
{
    const SimulationInput input = withComm(test::uniformInput({ 0, 1, 2 }, 3, 1000, 2000, 100, 200));
    const SimulationResult result = simulate(input, ScheduleKind::OneFOneB);
    const ExecutionInstructions plan = buildInstructions(result, input);
    const RankInstructions& rank = plan.ranks[1];
    QCOMPARE(rank.assigned_stages, (std::vector<int> { 1, 4 }));
    QCOMPARE(rank.num_pipe_buffers, 6);
    const QStringList expected { "RecvActivationStart(mb0,st1,[0],peer0)", "RecvActivationFinish(mb0,st1)",
        "ForwardPass(mb0,st1,[0])", "RecvActivationStart(mb1,st1,[1],peer0)", "SendActivationStart(mb0,st1,[0],peer2)",
        "FreeBuffer([0])", "RecvActivationFinish(mb1,st1)", "ForwardPass(mb1,st1,[1])",
        "RecvActivationStart(mb2,st1,[2],peer0)", "SendActivationStart(mb1,st1,[1],peer2)", "FreeBuffer([1])",
        "RecvGradStart(mb0,st4,[3],peer2)", "RecvGradFinish(mb0,st4)", "SendActivationFinish(mb0,st1)",
        "BackwardPass(mb0,st4,[3])", "SendGradStart(mb0,st4,[3],peer0)", "FreeBuffer([3])" };
    for (int i = 0; i < expected.size(); ++i)
        QCOMPARE(text(rank.instructions[static_cast<std::size_t>(i)]), expected[i]);
    const QStringList tail { "SendGradFinish(mb0,st4)", "SendGradFinish(mb1,st4)", "SendGradFinish(mb2,st4)" };
    for (int i = 0; i < tail.size(); ++i)
        QCOMPARE(text(rank.instructions[rank.instructions.size() - 3 + static_cast<std::size_t>(i)]), tail[i]);
}

void TestInstructions::deadlockFreeEverywhere_data()
{
    QTest::addColumn<std::vector<int>>("assignment");
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("microbatches");
    QTest::addColumn<bool>("comm");
    const std::vector<std::vector<int>> assignments { { 0 }, { 0, 0, 1, 1 }, { 0, 1, 2, 3 }, { 0, 1, 2, 3, 0, 1, 2, 3 },
        { 0, 1, 2, 3, 3, 2, 1, 0 }, { 0, 1, 0, 1, 0, 1 }, { 2, 0, 1 } };
    for (const auto& assignment : assignments) {
        const PipelineLayout layout = analyzeAssignment(assignment);
        for (ScheduleKind kind : validSchedules(layout)) {
            for (int m : { 1, 3, 8 }) {
                if (kind == ScheduleKind::DualPipeV && m < 2 * layout.n_devices)
                    continue; // refused (tst_sim_v_schedules)
                for (bool comm : { false, true }) {
                    QTest::newRow(qPrintable(QStringLiteral("%1 %2 m=%3 %4")
                                                 .arg(QString::fromStdString(assignmentText(assignment)),
                                                     QLatin1String(scheduleName(kind).data()))
                                                 .arg(m)
                                                 .arg(comm ? QStringLiteral("comm") : QStringLiteral("free"))))
                        << assignment << static_cast<int>(kind) << m << comm;
                }
            }
        }
    }
}

void TestInstructions::deadlockFreeEverywhere()
{
    QFETCH(std::vector<int>, assignment);
    QFETCH(int, schedule);
    QFETCH(int, microbatches);
    QFETCH(bool, comm);
    SimulationInput input = test::uniformInput(assignment, microbatches, 1000, 2000, 100, 200);
    for (std::size_t j = 0; j < input.microbatches.size(); ++j)
        input.microbatches[j].id = 100 + static_cast<int>(j); // ids differ from positions
    if (comm)
        input = withComm(input);
    const SimulationResult result = simulate(input, static_cast<ScheduleKind>(schedule));
    const ExecutionInstructions plan = buildInstructions(result, input);
    const DeadlockCheck check = checkDeadlockFree(plan);
    QVERIFY2(check.ok, check.problem.c_str());
    for (const RankInstructions& rank : plan.ranks) {
        int passes = 0;
        std::multiset<int> allocated;
        std::multiset<int> freed;
        for (const Instruction& i : rank.instructions) {
            passes += i.kind == InstructionKind::ForwardPass || i.kind == InstructionKind::BackwardPass
                    || i.kind == InstructionKind::WeightPass
                ? 1
                : 0;
            if (i.kind == InstructionKind::RecvActivationStart || i.kind == InstructionKind::RecvGradStart
                || i.kind == InstructionKind::LoadInput)
                allocated.insert(i.buffer_ids.begin(), i.buffer_ids.end());
            if (i.kind == InstructionKind::FreeBuffer)
                freed.insert(i.buffer_ids.begin(), i.buffer_ids.end());
            if (i.kind != InstructionKind::FreeBuffer)
                QCOMPARE(i.microbatch_id, 100 + i.microbatch);
        }
        QCOMPARE(passes, result.compute_ops_per_device[static_cast<std::size_t>(rank.rank)]);
        QCOMPARE(static_cast<int>(allocated.size()), rank.num_pipe_buffers);
        QCOMPARE(allocated, freed); // every slot freed exactly once
    }
}

void TestInstructions::checkerFindsMismatchedOrder()
{
    const SimulationInput input = test::uniformInput({ 0, 1 }, 4, 1000, 2000, 100, 200);
    const SimulationResult result = simulate(input, ScheduleKind::OneFOneB);
    ExecutionInstructions plan = buildInstructions(result, input);
    QVERIFY(checkDeadlockFree(plan).ok);
    auto& list = plan.ranks[0].instructions;
    std::vector<std::size_t> sends;
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (list[i].kind == InstructionKind::SendActivationStart)
            sends.push_back(i);
    }
    QVERIFY(sends.size() >= 2);
    std::swap(list[sends[0]], list[sends[1]]);
    const DeadlockCheck check = checkDeadlockFree(plan);
    QVERIFY(!check.ok);
    QVERIFY2(check.problem.find("transfer 0 from rank 0 to rank 1") != std::string::npos, check.problem.c_str());
}

void TestInstructions::checkerFindsDeadlock()
{
    auto instruction = [](InstructionKind kind, int mb, int stage, int peer = -1) {
        Instruction i;
        i.kind = kind;
        i.microbatch = mb;
        i.stage = stage;
        i.peer = peer;
        i.tensors = 1;
        return i;
    };
    ExecutionInstructions plan;
    plan.ranks.resize(2);
    plan.ranks[1].rank = 1;
    // Each rank waits for the other's data before sending its own.
    plan.ranks[0].instructions = { instruction(InstructionKind::RecvActivationStart, 1, 1, 1),
        instruction(InstructionKind::RecvActivationFinish, 1, 1),
        instruction(InstructionKind::SendActivationStart, 0, 0, 1) };
    plan.ranks[1].instructions = { instruction(InstructionKind::RecvActivationStart, 0, 1, 0),
        instruction(InstructionKind::RecvActivationFinish, 0, 1),
        instruction(InstructionKind::SendActivationStart, 1, 0, 0) };
    DeadlockCheck check = checkDeadlockFree(plan);
    QVERIFY(!check.ok);
    QVERIFY2(check.problem.rfind("deadlock: rank 0 RecvActivationFinish", 0) == 0, check.problem.c_str());
    // Posting the sends first resolves it.
    std::swap(plan.ranks[0].instructions[0], plan.ranks[0].instructions[2]);
    std::swap(plan.ranks[1].instructions[0], plan.ranks[1].instructions[2]);
    std::swap(plan.ranks[0].instructions[1], plan.ranks[0].instructions[2]);
    std::swap(plan.ranks[1].instructions[1], plan.ranks[1].instructions[2]);
    check = checkDeadlockFree(plan);
    QVERIFY2(check.ok, check.problem.c_str());
    // A receive nobody sends.
    QCOMPARE(plan.ranks[1].instructions.front().kind, InstructionKind::SendActivationStart);
    plan.ranks[1].instructions.erase(plan.ranks[1].instructions.begin());
    check = checkDeadlockFree(plan);
    QVERIFY(!check.ok);
    QVERIFY2(check.problem.find("has no matching send") != std::string::npos, check.problem.c_str());
}

void TestInstructions::needsTimeline()
{
    const SimulationInput input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    SimulationOptions options;
    options.build_timeline = false;
    const SimulationResult result = simulate(input, ScheduleKind::OneFOneB, options);
    QVERIFY_THROWS_EXCEPTION(Error, rawInstructions(result, input));
}

void TestInstructions::json()
{
    const SimulationInput input = test::uniformInput({ 0, 1 }, 2, 1000, 2000, 100, 200);
    const ExecutionInstructions plan = buildInstructions(simulate(input, ScheduleKind::OneFOneB), input);
    const nlohmann::ordered_json json = instructionsJson(plan);
    QCOMPARE(json["n_stages"].get<int>(), 4);
    QCOMPARE(json["ranks"].size(), std::size_t(2));
    const auto& first = json["ranks"][0]["instructions"][0];
    QCOMPARE(QString::fromStdString(first.dump()),
        QStringLiteral(R"({"op":"LoadInput","microbatch":0,"microbatch_id":0,"stage":0,"buffers":[0]})"));
    QCOMPARE(QString::fromStdString(json["ranks"][1]["assigned_stages"].dump()), QStringLiteral("[1,2]"));
}

QTEST_GUILESS_MAIN(TestInstructions)
#include "tst_instructions.moc"
