// SPDX-License-Identifier: GPL-3.0-or-later
// Ranking of measured layouts (issue 22, "Done when": the measured-best strategy is the top pick or
// within 1 % of it; core/runs/measured_rankings.h): the verdicts on hand-made groups whose answer
// is known, what makes two runs one setting, and the settings the bundled records form.
#include <QtTest>

#include <algorithm>
#include <set>

#include "core/runs/measured_rankings.h"
#include "core/runs/reference_run.h"

using namespace stratex;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

using Times = QList<double>;
using Ranks = QList<int>;

// A group of runs with only their times (rankRuns reads nothing else), in the given order.
runs::MeasuredRanking group(const Times& measured, const Times& predicted)
{
    runs::MeasuredRanking ranking;
    for (qsizetype i = 0; i < measured.size(); ++i) {
        runs::RankedRun run;
        run.measured_s = measured[i];
        run.predicted_s = predicted[i];
        ranking.runs.push_back(run);
    }
    return ranking;
}

const runs::ReferenceRun& bundled(const std::vector<runs::ReferenceRun>& all, const std::string& id)
{
    const auto found = std::find_if(all.begin(), all.end(), [&id](const runs::ReferenceRun& r) { return r.id == id; });
    if (found == all.end())
        qFatal("no bundled record %s", id.c_str());
    return *found;
}

} // namespace

class TestMeasuredRankings : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Times given in one order; measured ranks and predicted ranks are of the runs in that order.
    void verdicts_data()
    {
        QTest::addColumn<Times>("measured");
        QTest::addColumn<Times>("predicted");
        QTest::addColumn<Ranks>("measuredRanks");
        QTest::addColumn<Ranks>("predictedRanks");
        QTest::addColumn<bool>("bestFirst");
        QTest::addColumn<bool>("withinTolerance");
        QTest::addColumn<double>("predictedGap");
        QTest::addColumn<double>("measuredLoss");
        QTest::addColumn<int>("concordant");
        QTest::addColumn<int>("discordant");
        QTest::addColumn<double>("tau");
        QTest::newRow("same order") << Times { 1, 2, 3 } << Times { 1.1, 2.2, 3.3 } << Ranks { 1, 2, 3 }
                                    << Ranks { 1, 2, 3 } << true << true << 0.0 << 0.0 << 3 << 0 << 1.0;
        QTest::newRow("reversed") << Times { 1, 2, 3 } << Times { 3, 2, 1 } << Ranks { 1, 2, 3 } << Ranks { 3, 2, 1 }
                                  << false << false << 2.0 << 2.0 << 0 << 3 << -1.0;
        QTest::newRow("given out of order") << Times { 3, 1, 2 } << Times { 3.3, 1.1, 2.2 } << Ranks { 3, 1, 2 }
                                            << Ranks { 3, 1, 2 } << true << true << 0.0 << 0.0 << 3 << 0 << 1.0;
        // The measured best predicted 0.5 % behind the predicted best: within the 1 % bar.
        QTest::newRow("best second, within 1 %") << Times { 1.0, 1.05 } << Times { 1.005, 1.0 } << Ranks { 1, 2 }
                                                 << Ranks { 2, 1 } << false << true << 0.005 << 0.05 << 0 << 1 << -1.0;
        QTest::newRow("best second, over 1 %") << Times { 1.0, 1.05 } << Times { 1.02, 1.0 } << Ranks { 1, 2 }
                                               << Ranks { 2, 1 } << false << false << 0.02 << 0.05 << 0 << 1 << -1.0;
        // Two layouts measured alike: the verdict takes the one the model predicts fastest.
        QTest::newRow("measured tie at the top") << Times { 2, 2, 3 } << Times { 5, 1, 2 } << Ranks { 1, 1, 3 }
                                                 << Ranks { 3, 1, 2 } << true << true << 0.0 << 0.0 << 1 << 1 << 0.0;
        // A predicted tie orders no pair: a pair of equal predictions is neither right nor wrong.
        QTest::newRow("predicted tie") << Times { 1, 2 } << Times { 4, 4 } << Ranks { 1, 2 } << Ranks { 1, 1 } << true
                                       << true << 0.0 << 0.0 << 0 << 0 << 0.0;
        QTest::newRow("best first, rest swapped") << Times { 1, 2, 3, 4 } << Times { 1, 3, 2, 4 } << Ranks { 1, 2, 3, 4 }
                                                  << Ranks { 1, 3, 2, 4 } << true << true << 0.0 << 0.0 << 5 << 1
                                                  << 4.0 / 6.0;
    }

    void verdicts()
    {
        QFETCH(Times, measured);
        QFETCH(Times, predicted);
        QFETCH(Ranks, measuredRanks);
        QFETCH(Ranks, predictedRanks);
        QFETCH(bool, bestFirst);
        QFETCH(bool, withinTolerance);
        QFETCH(double, predictedGap);
        QFETCH(double, measuredLoss);
        QFETCH(int, concordant);
        QFETCH(int, discordant);
        QFETCH(double, tau);
        runs::MeasuredRanking ranking = group(measured, predicted);
        runs::rankRuns(ranking, runs::RankingOptions {});
        QVERIFY(ranking.ranked());
        // Each run keeps its times: find it by them and read its ranks.
        for (qsizetype i = 0; i < measured.size(); ++i) {
            const auto run = std::find_if(ranking.runs.begin(), ranking.runs.end(), [&](const runs::RankedRun& r) {
                return r.measured_s == measured[i] && r.predicted_s == predicted[i];
            });
            QVERIFY(run != ranking.runs.end());
            QCOMPARE(run->measured_rank, measuredRanks[i]);
            QCOMPARE(run->predicted_rank, predictedRanks[i]);
        }
        QVERIFY(std::is_sorted(ranking.runs.begin(), ranking.runs.end(),
            [](const runs::RankedRun& a, const runs::RankedRun& b) { return a.measured_s < b.measured_s; }));
        QCOMPARE(ranking.best_predicted_first, bestFirst);
        QCOMPARE(ranking.best_within_tolerance, withinTolerance);
        QVERIFY(std::abs(ranking.predicted_gap - predictedGap) < 1e-12);
        QVERIFY(std::abs(ranking.measured_loss - measuredLoss) < 1e-12);
        QCOMPARE(ranking.pairs, int(measured.size() * (measured.size() - 1) / 2));
        QCOMPARE(ranking.concordant, concordant);
        QCOMPARE(ranking.discordant, discordant);
        QVERIFY(std::abs(ranking.kendall_tau - tau) < 1e-12);
    }

    void oneRunIsNoRanking()
    {
        runs::MeasuredRanking ranking = group({ 1 }, { 2 });
        runs::rankRuns(ranking, runs::RankingOptions {});
        QVERIFY(!ranking.ranked());
        QCOMPARE(ranking.pairs, 0);
    }

    // What makes two runs one setting (SettingKey): a copy of a bundled run with one thing changed.
    void sameSetting_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<bool>("precisionIsSetting");
        QTest::addColumn<bool>("same");
        QTest::newRow("layout") << "layout" << false << true;
        QTest::newRow("compile") << "compile" << false << true;
        QTest::newRow("precision, a choice") << "precision" << false << true;
        QTest::newRow("precision, part of the setting") << "precision" << true << false;
        QTest::newRow("model name only") << "name" << false << true;
        QTest::newRow("release") << "release" << false << false;
        QTest::newRow("framework") << "framework" << false << false;
        QTest::newRow("TE release") << "te" << false << false;
        QTest::newRow("layers") << "layers" << false << false;
        QTest::newRow("GPU") << "gpu" << false << false;
        QTest::newRow("GPU count") << "nodes" << false << false;
        QTest::newRow("global batch") << "gbs" << false << false;
    }

    void sameSetting()
    {
        QFETCH(QString, change);
        QFETCH(bool, precisionIsSetting);
        QFETCH(bool, same);
        const std::vector<runs::ReferenceRun> all = runs::readReferenceRuns(kRuns);
        const runs::ReferenceRun& base = bundled(all, "torchtitan2412-llama31-8b-8-fsdp");
        runs::ReferenceRun other = base;
        if (change == "layout") {
            other.strategy.dp = 4;
            other.strategy.tp = 2;
        } else if (change == "compile") {
            other.strategy.compile = megatron::Compile::On;
        } else if (change == "precision") {
            other.strategy.precision = megatron::Precision::Fp8;
        } else if (change == "name") {
            other.model.name = "another-name";
        } else if (change == "release") {
            other.release = other.source + " | another release";
        } else if (change == "framework") {
            other.strategy.framework = megatron::Framework::MegatronCore;
        } else if (change == "te") {
            other.strategy.te_version = 203;
        } else if (change == "layers") {
            other.model.num_layers += 1;
        } else if (change == "gpu") {
            other.cluster.gpu.name = "h100-80gb";
        } else if (change == "nodes") {
            other.cluster.num_nodes *= 2;
        } else if (change == "gbs") {
            other.strategy.global_batch_size *= 2;
        }
        runs::RankingOptions options;
        options.precision_is_setting = precisionIsSetting;
        QCOMPARE(runs::settingKey(other, options) == runs::settingKey(base, options), same);
    }

    // The Megatron-Bridge archive is one page (one source, one cross-validation fold) whose NeMo
    // containers are releases: their runs are never one setting.
    void containersAreReleases()
    {
        const std::vector<runs::ReferenceRun> all = runs::readReferenceRuns(kRuns);
        const runs::ReferenceRun& older = bundled(all, "mbridge2511-llama3-70b-64");
        const runs::ReferenceRun& newer = bundled(all, "mbridge260401-llama3-70b-64");
        QCOMPARE(older.source, newer.source);
        QVERIFY(older.release != newer.release);
        runs::ReferenceRun sameBatch = newer;
        sameBatch.strategy.global_batch_size = older.strategy.global_batch_size;
        QVERIFY(!(runs::settingKey(sameBatch, {}) == runs::settingKey(older, {})));
        sameBatch.release = older.release;
        QVERIFY(runs::settingKey(sameBatch, {}) == runs::settingKey(older, {}));
    }

    // The bundled records form these settings (by ids): the groups the criterion is read on.
    void bundledGroups_data()
    {
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("MoE zoo Qwen3-235B on 256 H100")
            << QStringList { "moezoo-qwen3-235b-256-ep32-pp8", "moezoo-qwen3-235b-256-ep32-pp8-a2a-overlap",
                   "moezoo-qwen3-235b-256-ep8-fsdp", "moezoo-qwen3-235b-256-ep8-pp32-alltoall",
                   "moezoo-qwen3-235b-256-ep8-tp4-pp8" };
        QTest::newRow("torchtitan 405B on 512, 1F1B and interleaved")
            << QStringList { "torchtitan2412-llama31-405b-512-1f1b", "torchtitan2412-llama31-405b-512-interleaved" };
        QTest::newRow("torchtitan 8B on 8, FSDP, compile, FP8")
            << QStringList { "torchtitan2412-llama31-8b-8-fsdp", "torchtitan2412-llama31-8b-8-fsdp-compile",
                   "torchtitan2412-llama31-8b-8-fsdp-compile-fp8" };
        QTest::newRow("torchtitan 8B on 128, FSDP and FP8")
            << QStringList { "torchtitan2412-llama31-8b-128-fsdp", "torchtitan2412-llama31-8b-128-fsdp-compile-fp8" };
        QTest::newRow("torchtitan 70B on 256, AsyncTP")
            << QStringList { "torchtitan2412-llama31-70b-256-2d", "torchtitan2412-llama31-70b-256-2d-asynctp" };
        for (const char* size : { "22b-8", "175b-64", "530b-280", "530b-2240", "1t-512" }) {
            const QString prefix = QStringLiteral("korthikanti2022-") + size;
            QTest::newRow(qPrintable("Korthikanti " + QString(size) + " recompute"))
                << QStringList { prefix + "-full-recompute", prefix + "-selective-sp" };
        }
    }

    void bundledGroups()
    {
        QFETCH(QStringList, ids);
        const std::vector<runs::ReferenceRun> all = runs::readReferenceRuns(kRuns);
        NullProgress progress;
        const std::vector<runs::MeasuredRanking> rankings
            = runs::measuredRankings(all, runs::RankingOptions {}, progress);
        std::set<std::string> wanted;
        for (const QString& id : ids)
            wanted.insert(id.toStdString());
        // The group holding the first id holds exactly the listed ones, every one costed.
        const auto found = std::find_if(rankings.begin(), rankings.end(), [&](const runs::MeasuredRanking& r) {
            return std::any_of(r.runs.begin(), r.runs.end(),
                [&](const runs::RankedRun& run) { return run.run->id == *wanted.begin(); });
        });
        QVERIFY2(found != rankings.end(), ("no ranked setting holds " + *wanted.begin()).c_str());
        std::set<std::string> members;
        for (const runs::RankedRun& run : found->runs)
            members.insert(run.run->id);
        QCOMPARE(members, wanted);
        QVERIFY(found->uncosted.empty());
        QVERIFY(found->ranked());
    }
};

QTEST_APPLESS_MAIN(TestMeasuredRankings)
#include "tst_measured_rankings.moc"
