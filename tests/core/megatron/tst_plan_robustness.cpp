// SPDX-License-Identifier: GPL-3.0-or-later
// What-if costing (core/megatron/plan_robustness.h): each time scale slows only its own component
// and leaves memory alone, and the rank bands of a search's top plans are consistent (the model
// itself inside every band, the 10 % band around the 5 % one, only the fastest plan robust).
#include <QtTest>

#include "core/common/progress.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_robustness.h"
#include "core/megatron/strategy_search.h"
#include "support/search_request.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

class TestPlanRobustness : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void timeScalesMoveTheirComponent_data()
    {
        QTest::addColumn<int>("component"); // 0 compute, 1 tp, 2 cp, 3 ep, 4 dp, 5 pp
        QTest::newRow("compute") << 0;
        QTest::newRow("tp") << 1;
        QTest::newRow("cp") << 2;
        QTest::newRow("dp") << 4;
        QTest::newRow("pp") << 5;
    }

    void timeScalesMoveTheirComponent()
    {
        QFETCH(int, component);
        const StrategySearchRequest r = test::searchRequest("llama2-13b", "a100-80gb", 4, 8, 64);
        ParallelStrategy s;
        s.tp = 4;
        s.pp = 2;
        s.dp = 4;
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 64;
        s.overlap_grad_reduce = false; // DP traffic exposed, so that its scale shows
        if (component == 2) { // Ulysses: its all-to-alls are never hidden, so their scale shows
            s.pp = 1;
            s.cp = 2;
            s.cp_comm_type = CpCommType::A2a;
        }
        const HardwareModel hw(r.cluster, r.efficiency);
        const double base = estimate(r.model, s, hw).iteration_ms;
        EstimateOptions slower;
        double TimeScales::*const members[] = { &TimeScales::compute, &TimeScales::tp, &TimeScales::cp, &TimeScales::ep,
            &TimeScales::dp, &TimeScales::pp };
        slower.scales.*members[component] = 1.5;
        const Estimate scaled = estimate(r.model, s, hw, slower);
        QVERIFY2(scaled.iteration_ms > base, qPrintable(QString("%1 ms, %2 ms").arg(scaled.iteration_ms).arg(base)));
        QCOMPARE(scaled.peak_memory_mb, estimate(r.model, s, hw).peak_memory_mb);
    }

    void rankingRobustnessIsConsistent()
    {
        StrategySearchRequest r = test::searchRequest("llama2-70b", "h100-80gb", 8, 8, 128);
        r.top = 6;
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QCOMPARE(int(result.best.size()), 6);
        const std::vector<PlanRobustness> robustness = rankingRobustness(
            r.model, HardwareModel(r.cluster, r.efficiency), result.best, r.memory_limit_mb, progress);
        QCOMPARE(robustness.size(), result.best.size());
        for (std::size_t i = 0; i < robustness.size(); ++i) {
            const PlanRobustness& p = robustness[i];
            const int rank = int(i) + 1;
            QVERIFY(p.band_5.best <= rank && rank <= p.band_5.worst); // the model itself is a what-if
            QVERIFY(p.band_10.best <= p.band_5.best && p.band_5.worst <= p.band_10.worst); // bands nest
            QCOMPARE(p.robust_5, p.band_5.worst == 1);
            QVERIFY(!p.robust_10 || p.robust_5);
            if (i > 0)
                QVERIFY(!p.robust_5); // only the fastest can stay the fastest
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanRobustness)
#include "tst_plan_robustness.moc"
