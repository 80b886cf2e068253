// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex search's space shape by shape (core/megatron/strategy_search_space.*): the counts
// it sizes its storage by, the candidates built in place, and the memo-friendly visiting order,
// which must reach every candidate once under its enumeration index (issue 22 item 8: a faster
// search with the same answer).
#include <vector>

#include <QtTest>

#include "core/common/progress.h"
#include "core/megatron/strategy_search_space.h"
#include "core/model/model_presets.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

StrategySearchRequest request(const QString& model, int nodes, int globalBatch)
{
    StrategySearchRequest r;
    r.model = model::modelPreset(model.toStdString());
    r.cluster.gpu = hardware::gpuPreset("h100-80gb");
    r.cluster.num_nodes = nodes;
    r.cluster.gpus_per_node = 8;
    r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
    r.global_batch_size = globalBatch;
    return r;
}

// Spaces with each kind of skipped candidate: ZeRO without data parallelism (one node, dp 1),
// micro-batch sizes whose pipeline is beyond the simulation budget (a global batch of 2^20 on
// one node), MoE expert pairs, interleaved and ZB-H1 schedules, uneven layouts, Ulysses.
void addSpaces()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("globalBatch");
    QTest::newRow("llama3-8b, one node") << "llama3-8b" << 1 << 64;
    QTest::newRow("llama3-8b, past the simulation budget") << "llama3-8b" << 1 << (1 << 20);
    QTest::newRow("mixtral-8x7b, 4 nodes") << "mixtral-8x7b" << 4 << 256;
    QTest::newRow("deepseek-v3-style, 4 nodes") << "deepseek-v3-style" << 4 << 128;
}

} // namespace

class TestStrategySearchSpace : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The counts are those of the walk, and the walk is enumerateStrategies().
    void countsMatchTheWalk_data() { addSpaces(); }
    void countsMatchTheWalk()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, globalBatch);
        const StrategySearchRequest r = request(model, nodes, globalBatch);
        const SearchSpace space(r);
        std::vector<ParallelStrategy> walked;
        for (std::size_t k = 0; k < space.shapes().size(); ++k) {
            const std::size_t before = walked.size();
            QCOMPARE(space.offset(k), before);
            space.forEach(k, [&](const ParallelStrategy& s) { walked.push_back(s); });
            QCOMPARE(space.count(k), walked.size() - before);
        }
        QCOMPARE(space.total(), walked.size());
        QVERIFY(!walked.empty());
        QVERIFY(walked == enumerateStrategies(r));
    }

    // TP stays inside what NVLink joins: a host of 4 H100s stops at TP 4; a GB200 NVL72 rack of
    // 4-GPU hosts reaches TP 8 (Llama 3 8B's 8 KV heads), over NVLink.
    void tpStaysInsideTheNvlinkDomain_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("largestTp");
        QTest::newRow("H100, hosts of 4") << "h100-80gb" << 4;
        QTest::newRow("GB200 NVL72, hosts of 4") << "gb200-186gb" << 8;
    }
    void tpStaysInsideTheNvlinkDomain()
    {
        QFETCH(QString, gpu);
        QFETCH(int, largestTp);
        StrategySearchRequest r = request("llama3-8b", 4, 64);
        r.cluster.gpu = hardware::gpuPreset(gpu.toStdString());
        r.cluster.gpus_per_node = 4;
        r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
        int largest = 0;
        for (const ParallelStrategy& s : enumerateStrategies(r))
            largest = std::max(largest, s.tp);
        QCOMPARE(largest, largestTp);
    }

    // The storage built in place by two threads holds the walk's candidates at their indices.
    void candidatesAreBuiltInPlace_data() { addSpaces(); }
    void candidatesAreBuiltInPlace()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, globalBatch);
        const StrategySearchRequest r = request(model, nodes, globalBatch);
        const std::vector<ParallelStrategy> expected = enumerateStrategies(r);
        NullProgress progress;
        const SpaceCandidates candidates(SearchSpace(r), 2, progress);
        QCOMPARE(candidates.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            if (!(candidates[i] == expected[i]))
                QFAIL(qPrintable(QString("candidate %1: %2, expected %3")
                                     .arg(i)
                                     .arg(QString::fromStdString(candidates[i].notation()))
                                     .arg(QString::fromStdString(expected[i].notation()))));
        }
    }

    // The memo-friendly order visits every candidate of a shape once, under its enumeration index,
    // and a ZB-H1 candidate right after the 1F1B candidate it shares its chunks with.
    void twinsAdjacentVisitsEachCandidateOnce_data() { addSpaces(); }
    void twinsAdjacentVisitsEachCandidateOnce()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, globalBatch);
        const StrategySearchRequest r = request(model, nodes, globalBatch);
        const SearchSpace space(r);
        const std::vector<ParallelStrategy> expected = enumerateStrategies(r);
        std::vector<int> visits(expected.size(), 0);
        bool zbH1Seen = false;
        for (std::size_t k = 0; k < space.shapes().size(); ++k) {
            const ParallelStrategy* previous = nullptr;
            ParallelStrategy last;
            space.forEachTwinsAdjacent(k, [&](std::size_t i, const ParallelStrategy& s) {
                QVERIFY(i >= space.offset(k) && i < space.offset(k) + space.count(k));
                QVERIFY2(s == expected[i], qPrintable(QString::fromStdString(s.notation())));
                ++visits[i];
                if (s.schedule == PipelineSchedule::ZbH1 && s.zero == r.space.zero_stages.front()
                    && s.recompute == r.space.recomputes.front()) {
                    // The first of a ZB-H1 group follows the last 1F1B candidate of the same experts.
                    zbH1Seen = true;
                    QVERIFY(previous);
                    QCOMPARE(last.schedule, PipelineSchedule::OneFOneB);
                    QCOMPARE(last.micro_batch_size, s.micro_batch_size);
                    QCOMPARE(last.ep, s.ep);
                    QCOMPARE(last.etp, s.etp);
                }
                last = s;
                previous = &last;
            });
        }
        for (std::size_t i = 0; i < visits.size(); ++i)
            QCOMPARE(visits[i], 1);
        QVERIFY(zbH1Seen);
    }
};

QTEST_GUILESS_MAIN(TestStrategySearchSpace)
#include "tst_strategy_search_space.moc"
