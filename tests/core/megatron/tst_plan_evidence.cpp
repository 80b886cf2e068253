// SPDX-License-Identifier: GPL-3.0-or-later
// Evidence on a plan (issue 22 item 5): the bundled coverage is the reference runs' own, each
// dimension outside it gets its note, every recorded run is covered by construction, and the
// search ranks an extrapolated plan as if kExtrapolationUncertainty slower.
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/plan_evidence.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"
#include "core/runs/evidence.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

std::string asCode(const EvidenceCoverage& c)
{
    std::string families;
    for (const std::string& f : c.gpu_families)
        families += (families.empty() ? "\"" : ", \"") + f + "\"";
    char buffer[1024];
    std::snprintf(buffer, sizeof buffer,
        "runs %d, max_tp %d, max_pp %d, max_cp %d, max_ep %d, max_dp_by_zero { %d, %d, %d, %d }, world %d-%d, "
        "params %.17g-%.17g B, seq %d-%d, dense %d, moe %d, families { %s }, max_hsdp_replicas %d, "
        "max_cp_by_comm { %d, %d, %d, %d }, schedules { %d, %d, %d }",
        c.runs, c.max_tp, c.max_pp, c.max_cp, c.max_ep, c.max_dp_by_zero[0], c.max_dp_by_zero[1], c.max_dp_by_zero[2],
        c.max_dp_by_zero[3], c.min_world, c.max_world, c.min_params_b, c.max_params_b, c.min_seq_length,
        c.max_seq_length, int(c.dense), int(c.moe), families.c_str(), c.max_hsdp_replicas, c.max_cp_by_comm[0],
        c.max_cp_by_comm[1], c.max_cp_by_comm[2], c.max_cp_by_comm[3], int(c.schedules[0]), int(c.schedules[1]),
        int(c.schedules[2]));
    return buffer;
}

// A coverage to test notes against, independent of the records.
EvidenceCoverage smallCoverage()
{
    EvidenceCoverage c;
    c.runs = 3;
    c.max_tp = 8;
    c.max_pp = 16;
    c.max_cp = 4;
    c.max_ep = 8;
    c.max_dp_by_zero = { 64, 96, 512, 128 };
    c.min_world = 8;
    c.max_world = 4096;
    c.min_params_b = 1;
    c.max_params_b = 500;
    c.min_seq_length = 2048;
    c.max_seq_length = 131072;
    c.dense = true;
    c.moe = false;
    c.gpu_families = { "a100", "h100" };
    c.max_cp_by_comm = { 4, 2, 0, 0 }; // p2p to 4, a2a to 2, never all_gather or hierarchical
    c.schedules = { true, true, false }; // 1F1B and interleaved, never ZB-H1
    return c;
}

hardware::ClusterDescription cluster(const char* gpu, int nodes)
{
    hardware::ClusterDescription c;
    c.gpu = hardware::gpuPreset(gpu);
    c.num_nodes = nodes;
    c.gpus_per_node = 8;
    return c;
}

} // namespace

class TestPlanEvidence : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bundledCoverageIsTheRecords()
    {
        const EvidenceCoverage computed = runs::evidenceCoverage(runs::readReferenceRuns(kRuns));
        QVERIFY2(computed == bundledCoverage(),
            ("core/megatron/plan_evidence_bundled.cpp is out of date; the records give: " + asCode(computed)).c_str());
    }

    void everyRecordedRunIsCovered()
    {
        for (const runs::ReferenceRun& run : runs::readReferenceRuns(kRuns)) {
            if (!run.measured_time) // memory-only records are no evidence for time (core/runs/evidence.cpp)
                continue;
            const PlanEvidence e = planEvidence(bundledCoverage(), run.model, run.cluster, run.strategy);
            QVERIFY2(!e.extrapolated, (run.id + ": " + (e.notes.empty() ? "" : e.notes.front())).c_str());
        }
    }

    void notes_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("zero");
        QTest::addColumn<QString>("cpComm");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QStringList>("notes");
        // Issue 22's example: the Llama 3 405B pick on 16,384 GPUs.
        QTest::newRow("zero3 over 1,024 ranks")
            << "llama3-405b" << "h100-80gb" << 1024 << 4 << 1 << 2 << 3 << "p2p" << "1f1b"
            << QStringList { "ZeRO-3 across 1,024 ranks: no reference run uses ZeRO-3 beyond 128 ranks",
                   "8,192 GPUs: reference runs span 8-4,096 GPUs" };
        QTest::newRow("covered") << "llama2-70b" << "h100-80gb" << 8 << 8 << 2 << 1 << 1 << "p2p" << "interleaved"
                                 << QStringList {};
        QTest::newRow("a2a within its degree") << "llama2-70b" << "h100-80gb" << 8 << 4 << 2 << 2 << 1 << "a2a"
                                               << "1f1b" << QStringList {};
        // The Llama 3 405B pick of session 16: CP 4 by the hierarchical exchange, which no run measured.
        QTest::newRow("hierarchical CP never measured")
            << "llama2-70b" << "h100-80gb" << 8 << 4 << 1 << 4 << 1 << "a2a+p2p" << "1f1b"
            << QStringList { "CP 4 over a2a+p2p: no reference run exchanges context that way" };
        QTest::newRow("a2a beyond its degree")
            << "llama2-70b" << "h100-80gb" << 8 << 2 << 2 << 4 << 1 << "a2a" << "1f1b"
            << QStringList { "CP 4 over a2a: no reference run exchanges context that way beyond CP 2" };
        QTest::newRow("ZB-H1 never measured") << "llama2-70b" << "h100-80gb" << 8 << 8 << 4 << 1 << 1 << "p2p" << "zb-h1"
                                              << QStringList { "the zb-h1 schedule: no reference run uses it" };
        QTest::newRow("schedule irrelevant without a pipeline")
            << "llama2-70b" << "h100-80gb" << 8 << 8 << 1 << 1 << 1 << "p2p" << "zb-h1" << QStringList {};
        QTest::newRow("tp16, plain DDP beyond")
            << "llama2-70b" << "a100-80gb" << 256 << 16 << 1 << 1 << 0 << "p2p" << "1f1b"
            << QStringList { "TP 16: no reference run uses TP beyond 8",
                   "plain DDP (ZeRO-0) across 128 ranks: no reference run uses plain DDP (ZeRO-0) beyond 64 ranks" };
        QTest::newRow("MoE, unknown GPU family, cp")
            << "mixtral-8x7b" << "b200-192gb" << 4 << 1 << 1 << 8 << 1 << "a2a+p2p" << "1f1b"
            << QStringList { "CP 8: no reference run uses CP beyond 4", "a MoE model: no reference run is MoE",
                   "GPU b200-192gb: no reference run on the b200-192gb family" };
    }

    void notes()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(int, nodes);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, cp);
        QFETCH(int, zero);
        QFETCH(QString, cpComm);
        QFETCH(QString, schedule);
        QFETCH(QStringList, notes);
        const hardware::ClusterDescription c = cluster(gpu.toUtf8().constData(), nodes);
        ParallelStrategy s;
        s.tp = tp;
        s.pp = pp;
        s.cp = cp;
        s.dp = c.worldSize() / (tp * pp * cp);
        s.zero = zero;
        s.cp_comm_type = parseCpCommType(cpComm.toStdString()).value();
        s.schedule = parsePipelineSchedule(schedule.toStdString()).value();
        if (s.schedule == PipelineSchedule::Interleaved)
            s.vpp = 2;
        const PlanEvidence e = planEvidence(smallCoverage(), model::modelPreset(model.toStdString()), c, s);
        QStringList found;
        for (const std::string& note : e.notes)
            found << QString::fromStdString(note);
        QCOMPARE(found, notes);
        QCOMPARE(e.extrapolated, !notes.isEmpty());
        // The search's cheap check agrees with the notes.
        QCOMPARE(EvidenceCheck(smallCoverage(), model::modelPreset(model.toStdString()), c).extrapolated(s),
            e.extrapolated);
    }

    void groupedCounts_data()
    {
        QTest::addColumn<qlonglong>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("small") << 128LL << "128";
        QTest::newRow("thousands") << 2048LL << "2,048";
        QTest::newRow("millions") << 1048576LL << "1,048,576";
    }

    void groupedCounts()
    {
        QFETCH(qlonglong, value);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(groupedCount(value)), text);
    }

    // With a coverage that leaves DP beyond 4 ranks out (ZeRO-2/3 only), the search orders plans by their time raised by the
    // uncertainty when extrapolated: a covered plan within it comes before a faster extrapolated one.
    void searchRanksWithTheUncertainty()
    {
        StrategySearchRequest r;
        r.model = model::modelPreset("llama2-13b");
        r.cluster = cluster("a100-80gb", 2);
        r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
        r.global_batch_size = 32;
        r.threads = 1;
        r.top = 40;
        r.space.max_micro_batch_size = 2;
        EvidenceCoverage coverage = bundledCoverage();
        coverage.max_dp_by_zero = { 0, 0, 4, 4 };
        r.coverage = coverage;
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QCOMPARE(result.evidence.size(), result.best.size());
        QVERIFY(result.best.size() >= 2);
        bool covered = false;
        bool extrapolated = false;
        bool inverted = false;
        for (std::size_t i = 0; i < result.best.size(); ++i) {
            const PlanEvidence expected = planEvidence(coverage, r.model, r.cluster, result.best[i].strategy);
            QCOMPARE(result.evidence[i], expected);
            covered = covered || !expected.extrapolated;
            extrapolated = extrapolated || expected.extrapolated;
            if (i > 0) {
                const double before = rankingTimeMs(result.best[i - 1].iteration_ms, result.evidence[i - 1].extrapolated);
                const double after = rankingTimeMs(result.best[i].iteration_ms, result.evidence[i].extrapolated);
                QVERIFY(before <= after);
                inverted = inverted || result.best[i - 1].iteration_ms > result.best[i].iteration_ms;
            }
        }
        QVERIFY(covered && extrapolated);
        QVERIFY2(inverted, "no covered plan was ranked before a faster extrapolated one: the test shows nothing");

        // Without a coverage: plain time order, no notes.
        r.coverage.reset();
        const StrategySearchResult plain = searchStrategies(r, progress);
        for (std::size_t i = 1; i < plain.best.size(); ++i)
            QVERIFY(plain.best[i - 1].iteration_ms <= plain.best[i].iteration_ms);
        for (const PlanEvidence& e : plain.evidence)
            QVERIFY(!e.extrapolated && e.notes.empty());
    }
};

QTEST_APPLESS_MAIN(TestPlanEvidence)
#include "tst_plan_evidence.moc"
