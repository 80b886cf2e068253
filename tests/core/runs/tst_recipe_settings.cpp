// SPDX-License-Identifier: GPL-3.0-or-later
// The framework settings the reference records take from the recipes and launcher configs that
// produced them (issue 22): TP communication overlap where NeMo's launcher config or
// Megatron-Bridge's recipe switches it on, and not where it switches it off. Each row names the
// file and commit the record's notes quote; the row fails when a record loses (or gains) the
// setting, and when costing the record with the setting no longer differs from costing it without
// (the mechanism, docs/collectives.md "TP communication overlap", stopped reading it).
#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::runs;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

const std::vector<ReferenceRun>& allRuns()
{
    static const std::vector<ReferenceRun> runs = readReferenceRuns(kRuns);
    return runs;
}

const ReferenceRun* findRun(const std::string& id)
{
    for (const ReferenceRun& run : allRuns()) {
        if (run.id == id)
            return &run;
    }
    return nullptr;
}

} // namespace

class TestRecipeSettings : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tpCommOverlapFollowsTheRecipe_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("overlap");
        // NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/..., tag 24.07 (8325688d)
        // or 24.09 (35e43939): ub_tp_comm_overlap.
        QTest::newRow("nemo llama2-70b: llama2_70b.yaml true") << "nemo2407-llama2-70b-64" << true;
        QTest::newRow("nemo llama3-70b: llama3_70b.yaml true") << "nemo2407-llama3-70b-64" << true;
        QTest::newRow("nemo nemotron-22b: nemotron_22b.yaml True") << "nemo2407-nemotron-22b-64" << true;
        QTest::newRow("nemo gpt3-175b: 175b.yaml False") << "nemo2407-gpt3-175b-128" << false;
        QTest::newRow("nemo gpt3-175b 512: 175b.yaml False") << "nemo2407-gpt3-175b-512" << false;
        QTest::newRow("nemo nemotron-340b: nemotron_340b.yaml False") << "nemo2407-nemotron-340b-128" << false;
        // NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/recipes/llama/llama3.py, tag v0.2.0
        // (7af9601c): CommOverlapConfig(tp_comm_overlap=True) in llama3_70b_pretrain_config and
        // llama31_405b_pretrain_config.
        QTest::newRow("bridge 25.11 llama3-70b") << "mbridge2511-llama3-70b-64" << true;
        QTest::newRow("bridge 26.04 llama3-70b") << "mbridge260401-llama3-70b-64" << true;
        QTest::newRow("bridge 25.11 llama3.1-405b") << "mbridge2511-llama3.1-405b-1024" << true;
        QTest::newRow("bridge 26.06 llama3.1-405b") << "mbridge2606-llama3.1-405b-1024" << true;
    }

    void tpCommOverlapFollowsTheRecipe()
    {
        QFETCH(QString, id);
        QFETCH(bool, overlap);
        const ReferenceRun* run = findRun(id.toStdString());
        QVERIFY2(run, qPrintable(id + ": no such record"));
        QCOMPARE(run->strategy.tp_comm_overlap, overlap);
        if (!overlap)
            return;
        // Userbuffers TP overlap needs sequence parallelism (Megatron-LM validate_args).
        QVERIFY(run->strategy.sequence_parallel);
        QVERIFY(run->strategy.tp > 1);
        // The setting reaches the cost model: the TP traffic hides under the GEMMs.
        ReferenceRun without = *run;
        without.strategy.tp_comm_overlap = false;
        const hardware::Efficiency efficiency = hardware::efficiencyFor(run->cluster);
        const double with_s = compareWithRun(*run, efficiency).predicted_iteration_s;
        const double without_s = compareWithRun(without, efficiency).predicted_iteration_s;
        QVERIFY2(with_s < without_s, qPrintable(QString("%1: %2 s with overlap, %3 s without").arg(id).arg(with_s).arg(without_s)));
    }
};

QTEST_APPLESS_MAIN(TestRecipeSettings)
#include "tst_recipe_settings.moc"
