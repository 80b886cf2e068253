// SPDX-License-Identifier: GPL-3.0-or-later
// The peak explained (issue 23 item 6, docs/memory-model.md "Explaining the peak"): the parts alive
// at the worst rank's peak sum to the plan's allocated and device peaks, and the moment lies on the
// maximum of the Timeline page's memory curve for that rank.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include "core/megatron/estimate.h"
#include "core/megatron/memory_ledger_explain.h"
#include "core/model/model_presets.h"
#include "core/sim/simulator.h"
#include "support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::h100s;

bool agree(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

} // namespace

class TestMemoryLedgerExplain : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every schedule the estimate simulates, one stage, fewer micro-batches than stages, and
    // torchtitan's FSDP. "shifted" moves the explained moment to the next sample of the curve: it
    // must then miss the curve's maximum (the check can fail).
    void partsSumToThePeakOnTheCurve_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("gbs");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<bool>("shifted");
        QTest::newRow("1F1B") << 4 << 1 << 16 << "1f1b" << "megatron-core" << false;
        QTest::newRow("interleaved") << 4 << 2 << 16 << "interleaved" << "megatron-core" << false;
        QTest::newRow("ZB-H1") << 4 << 1 << 16 << "zb-h1" << "megatron-core" << false;
        QTest::newRow("fewer micro-batches than stages") << 4 << 1 << 2 << "1f1b" << "megatron-core" << false;
        QTest::newRow("one stage") << 1 << 1 << 4 << "1f1b" << "megatron-core" << false;
        QTest::newRow("torchtitan with PP") << 2 << 1 << 8 << "1f1b" << "torchtitan" << false;
        QTest::newRow("1F1B, moment shifted") << 4 << 1 << 16 << "1f1b" << "megatron-core" << true;
        QTest::newRow("interleaved, moment shifted") << 4 << 2 << 16 << "interleaved" << "megatron-core" << true;
    }
    void partsSumToThePeakOnTheCurve()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, gbs);
        QFETCH(QString, schedule);
        QFETCH(QString, framework);
        QFETCH(bool, shifted);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.dp = std::max(1, 8 / (s.tp * s.pp));
        s.zero = 1;
        s.sequence_parallel = true;
        s.recompute = Recompute::Selective;
        s.global_batch_size = gbs * s.dp;
        s.schedule = *parsePipelineSchedule(schedule.toStdString());
        s.framework = *parseFramework(framework.toStdString());
        if (s.framework == Framework::Torchtitan)
            s.zero = 2;
        EstimateOptions options;
        options.explain_peak = true;
        const Estimate e = estimate(model, s, hw, options);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QVERIFY(e.peak.has_value());
        const PeakExplanation& peak = *e.peak;

        // The worst rank by device peak, and its parts summing to both of its peaks.
        std::size_t worst = 0;
        for (std::size_t i = 0; i < e.stages.size(); ++i) {
            if (e.stages[i].memory.totalMb() > e.stages[worst].memory.totalMb())
                worst = i;
        }
        QCOMPARE(peak.stage, int(worst));
        const StageMemory& mem = e.stages[worst].memory;
        QVERIFY2(agree(peak.allocated_mb, mem.allocatedMb()),
            qPrintable(QString("explained %1 MB, ledger %2 MB").arg(peak.allocated_mb).arg(mem.allocatedMb())));
        QVERIFY(agree(peak.device_mb, mem.totalMb()));
        // torchtitan's pipelining stage keeps its receive buffers and output chunks for the step
        // (pipeline_input.h): a part of their own; none under Megatron's schedules.
        QCOMPARE(peak.pipeline_buffers_mb > 0, s.framework == Framework::Torchtitan && s.pp > 1);
        // Its label names every term pipelineStageBuffers counts, the input gradients included.
        for (const PeakPart& part : peakParts(peak)) {
            if (part.key != "pipeline_buffers")
                continue;
            QCOMPARE(part.mb, peak.pipeline_buffers_mb);
            for (const char* term : { "received activations", "output gradients", "output chunks", "input gradients" })
                QVERIFY2(part.label.find(term) != std::string::npos, part.label.c_str());
        }
        double allocated = 0;
        double device = 0;
        for (const PeakPart& part : peakParts(peak)) {
            QVERIFY(part.mb >= 0);
            device += part.mb;
            if (!part.device)
                allocated += part.mb;
        }
        QVERIFY(agree(allocated, mem.allocatedMb()));
        QVERIFY(agree(device, mem.totalMb()));
        double held = 0;
        for (const PeakHeldActivations& h : peak.held)
            held += h.mb;
        QVERIFY(agree(held, peak.held_mb));
        QVERIFY(peak.inflightMicrobatches() <= s.microbatches());

        // The moment on the Timeline page's curve: the first sample at the curve's maximum is the
        // explained op's start, and that maximum is the ledger's allocated peak.
        const PipelineSimulation pipeline = pipelineSimulation(model, s, hw);
        const sim::Timeline timeline = sim::simulate(pipeline.input, pipeline.schedule).timeline;
        const sim::DeviceTimeline& lane = timeline.devices.at(worst);
        double highest = 0;
        for (const sim::MemorySample& sample : lane.memory)
            highest = std::max(highest, sample.mem_mb);
        QVERIFY(agree(highest, mem.allocatedMb()));
        std::size_t first = 0;
        while (first < lane.memory.size() && !agree(lane.memory[first].mem_mb, highest))
            ++first;
        QVERIFY(first < lane.memory.size());
        const std::size_t at = shifted ? std::min(first + 1, lane.memory.size() - 1) : first;
        const bool onMaximum = agree(lane.memory[at].time_us, peak.time_ms * 1e3) && agree(lane.memory[at].mem_mb, highest);
        QCOMPARE(onMaximum, !shifted);
        // The op starting there is the explained one.
        bool found = false;
        for (const sim::TimelineOp& op : lane.compute) {
            if (agree(op.start_us, peak.time_ms * 1e3) && op.microbatch == peak.microbatch && op.chunk == peak.chunk)
                found = true;
        }
        QVERIFY(found);
    }

    // Without explain_peak (the search's candidates) the estimate carries no explanation.
    void offUnlessAsked()
    {
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        ParallelStrategy s;
        s.tp = 2;
        s.pp = 2;
        s.dp = 2;
        s.zero = 1;
        s.global_batch_size = 16;
        QVERIFY(!estimate(model, s, h100s(1)).peak.has_value());
    }
};

QTEST_GUILESS_MAIN(TestMemoryLedgerExplain)
#include "tst_memory_ledger_explain.moc"
