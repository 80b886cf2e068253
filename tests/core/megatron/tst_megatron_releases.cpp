// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-LM's features by year (core/megatron/megatron_releases.h, docs/frameworks.md): which a
// year had, and a search held to a year offers no candidate using a later one, for Megatron-Core
// and Megatron-Bridge; other frameworks' searches do not change.
#include <QtTest>

#include <set>
#include <string>

#include "core/megatron/megatron_releases.h"
#include "core/megatron/strategy_search.h"
#include "support/search_request.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

// The features a year has, as one word each, for the rows below.
std::set<std::string> featureNames(const MegatronFeatures& f)
{
    std::set<std::string> names;
    const auto add = [&](bool on, const char* name) {
        if (on)
            names.insert(name);
    };
    add(f.interleaved, "interleaved");
    add(f.tp_async_backward, "async-tp");
    add(f.distributed_optimizer, "dist-opt");
    add(f.sequence_parallel, "sp");
    add(f.selective_recompute, "selective");
    add(f.expert_parallel, "ep");
    add(f.context_parallel, "cp");
    add(f.tp_comm_overlap, "tp-overlap");
    add(f.uneven_layouts, "uneven");
    add(f.cp_a2a, "a2a");
    add(f.hsdp, "hsdp");
    add(f.megatron_fsdp, "fsdp");
    return names;
}

std::set<std::string> words(const QString& text)
{
    std::set<std::string> out;
    for (const QString& w : text.split(' ', Qt::SkipEmptyParts))
        out.insert(w.toStdString());
    return out;
}

} // namespace

class TestMegatronReleases : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void featuresOfYear_data()
    {
        QTest::addColumn<int>("year");
        QTest::addColumn<QString>("features");
        const QString y2021 = "interleaved async-tp";
        const QString y2022 = y2021 + " dist-opt sp selective";
        const QString y2023 = y2022 + " ep cp tp-overlap";
        const QString y2024 = y2023 + " uneven a2a hsdp";
        const QString all = y2024 + " fsdp";
        QTest::newRow("2020: none") << 2020 << "";
        QTest::newRow("2021") << 2021 << y2021;
        QTest::newRow("2022") << 2022 << y2022;
        QTest::newRow("2023") << 2023 << y2023;
        QTest::newRow("2024") << 2024 << y2024;
        QTest::newRow("2025") << 2025 << all;
        QTest::newRow("0: today's") << 0 << all;
    }

    void featuresOfYear()
    {
        QFETCH(int, year);
        QFETCH(QString, features);
        QCOMPARE(featureNames(megatronFeaturesOf(year)), words(features));
    }

    // Every candidate of a search held to `year` uses only that year's features; the space is not
    // empty; and for torchtitan the year changes nothing.
    void searchHoldsToTheYear_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("framework");
        QTest::addColumn<int>("year");
        QTest::addColumn<bool>("restricted"); // fewer candidates than today's space
        QTest::newRow("dense, Megatron-Core 2021") << "llama2-13b" << int(Framework::MegatronCore) << 2021 << true;
        QTest::newRow("dense, Megatron-Core 2022") << "llama2-13b" << int(Framework::MegatronCore) << 2022 << true;
        QTest::newRow("dense, Megatron-Core 2023") << "llama2-13b" << int(Framework::MegatronCore) << 2023 << true;
        QTest::newRow("MoE, Megatron-Bridge 2022") << "mixtral-8x7b" << int(Framework::MegatronBridge) << 2022 << true;
        QTest::newRow("MoE, Megatron-Core 2024") << "mixtral-8x7b" << int(Framework::MegatronCore) << 2024 << true;
        QTest::newRow("dense, Megatron-Core 2025") << "llama2-13b" << int(Framework::MegatronCore) << 2025 << false;
        QTest::newRow("dense, torchtitan 2021") << "llama2-13b" << int(Framework::Torchtitan) << 2021 << false;
    }

    void searchHoldsToTheYear()
    {
        QFETCH(QString, model);
        QFETCH(int, framework);
        QFETCH(int, year);
        QFETCH(bool, restricted);
        StrategySearchRequest r = test::searchRequest(model.toUtf8().constData(), "h100-80gb", 4, 8, 64);
        r.space.framework = Framework(framework);
        r.space.max_micro_batch_size = 2;
        r.space.tp_comm_overlap = true;
        const std::size_t today = enumerateStrategies(r).size();
        r.space.features_year = year;
        const std::vector<ParallelStrategy> candidates = enumerateStrategies(r);
        QVERIFY(!candidates.empty());
        QCOMPARE(candidates.size() < today, restricted);
        const bool held = followsMegatronReleases(r.space.framework);
        const MegatronFeatures f = megatronFeaturesOf(held ? year : 0);
        std::set<std::string> used;
        std::string firstViolation;
        for (const ParallelStrategy& s : candidates) {
            const auto use = [&](bool uses, bool allowed, const char* name) {
                if (uses)
                    used.insert(name);
                if (uses && !allowed && firstViolation.empty())
                    firstViolation = s.notation() + " uses " + name + ", not in Megatron-LM of " + std::to_string(year);
            };
            use(s.vpp > 1, f.interleaved, "interleaved");
            use(s.tp > 1 && s.tp_async_backward, f.tp_async_backward, "async-tp");
            use(s.zero == 1, f.distributed_optimizer, "dist-opt");
            use(s.sequence_parallel, f.sequence_parallel, "sp");
            use(s.recompute == Recompute::Selective, f.selective_recompute, "selective");
            use(s.ep > 1, f.expert_parallel, "ep");
            use(s.cp > 1, f.context_parallel, "cp");
            use(s.tp_comm_overlap, f.tp_comm_overlap, "tp-overlap");
            use(s.first_stage_layers > 0 || s.last_stage_layers > 0, f.uneven_layouts, "uneven");
            use(s.cp > 1 && s.cp_comm_type == CpCommType::A2a, f.cp_a2a, "a2a");
            use(s.dp_shard > 0, f.hsdp, "hsdp");
            use(s.zero >= 2, f.megatron_fsdp, "fsdp");
        }
        QVERIFY2(firstViolation.empty(), firstViolation.c_str());
        // What the year has, the space uses (the check above can fail): interleaving and the async
        // TP backward from 2021, sequence parallelism from 2022 and CP from 2023.
        QCOMPARE(used.contains("interleaved"), f.interleaved);
        QCOMPARE(used.contains("sp"), f.sequence_parallel);
        QCOMPARE(used.contains("cp"), f.context_parallel);
    }
};

QTEST_GUILESS_MAIN(TestMegatronReleases)
#include "tst_megatron_releases.moc"
