// SPDX-License-Identifier: GPL-3.0-or-later
// The one export entry point: every format's CLI name, file name and executable bit, and that it
// writes exactly what the format's own writer writes.
#include <algorithm>

#include <QTest>

#include "core/common/progress.h"
#include "core/export/galvatron_config.h"
#include "core/export/megatron_args.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/paddle_config.h"
#include "core/export/plan_export.h"
#include "core/export/pytorch_exports.h"
#include "core/export/torchtitan_module.h"
#include "core/model/model_presets.h"
#include "core/galvatron/search_engine.h"

#include "../galvatron/search_test_util.h"

using namespace stratex;
using namespace stratex::exporting;

Q_DECLARE_METATYPE(stratex::exporting::ExportFormat)

namespace {

const galvatron::SearchSettings& searchSettings()
{
    static const galvatron::SearchSettings s = test::llamaSettings(36, 16);
    return s;
}

// The golden plan's model: Llama 2 7B at the searched sequence length.
const model::ModelDescription& llamaModel()
{
    static const model::ModelDescription m = [] {
        model::ModelDescription d = model::modelPreset("llama2-7b");
        d.seq_length = 2048;
        return d;
    }();
    return m;
}

ExportContext context()
{
    ExportContext c;
    c.model = llamaModel();
    return c;
}

const galvatron::Plan& searchedPlan()
{
    static const galvatron::Plan best = [] {
        NullProgress progress;
        return *galvatron::search(test::llamaInputs(), searchSettings(), progress, 2).best;
    }();
    return best;
}

} // namespace

class TestPlanExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void formats_data();
    void formats();
    void unknownNames_data();
    void unknownNames();
};

void TestPlanExport::formats_data()
{
    QTest::addColumn<ExportFormat>("format");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<bool>("executable");
    QTest::addColumn<QString>("writerText");

    const auto text = [](const std::string& s) { return QString::fromStdString(s); };
    QTest::newRow("galvatron") << ExportFormat::Galvatron << "galvatron"
                               << "galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16_bsz16.json" << false
                               << text(strategyFileText(searchedPlan(), searchSettings(), llamaModel(), std::nullopt));
    QTest::newRow("paddle") << ExportFormat::PaddleConfig << "paddle"
                            << "fine_grained_config.json" << false << text(paddleFineGrainedConfigText(searchedPlan()));
    QTest::newRow("paddle-script") << ExportFormat::PaddleScript << "paddle-script"
                                   << "train_fine_grained.sh" << true
                                   << text(paddleLaunchScript(searchedPlan(), searchSettings(), llamaModel()));
    QTest::newRow("megatron") << ExportFormat::Megatron << "megatron"
                              << "megatron_args.sh" << true
                              << text(megatronArgsScript(searchedPlan(), searchSettings(), llamaModel()));
    QTest::newRow("pytorch-schedule") << ExportFormat::PytorchSchedule << "pytorch-schedule"
                                      << "pipeline_schedule.csv" << false << text(pipelineScheduleCsv(searchedPlan()));
    QTest::newRow("torchtitan") << ExportFormat::Torchtitan << "torchtitan"
                                << "stratex_torchtitan.py" << false
                                << text(torchtitanModule(searchedPlan(), searchSettings(), llamaModel()).text);
    QTest::newRow("megatron-bridge")
        << ExportFormat::MegatronBridge << "megatron-bridge"
        << "megatron_bridge_recipe.py" << false
        << text(megatronBridgeRecipeText(megatronBridgeSearchedRecipe(searchedPlan(), searchSettings(), llamaModel())));
}

void TestPlanExport::formats()
{
    QFETCH(ExportFormat, format);
    QFETCH(QString, name);
    QFETCH(QString, fileName);
    QFETCH(bool, executable);
    QFETCH(QString, writerText);

    QCOMPARE(QString::fromUtf8(exportFormatName(format).data(), qsizetype(exportFormatName(format).size())), name);
    QVERIFY(parseExportFormat(name.toStdString()) == format);
    QCOMPARE(int(std::count(exportFormats().begin(), exportFormats().end(), format)), 1);
    QCOMPARE(int(exportFormats().size()), 7); // one row per format
    QCOMPARE(QString::fromStdString(defaultExportFileName(format, searchSettings())), fileName);

    const ExportedFile file = exportPlan(format, searchedPlan(), searchSettings(), context());
    QCOMPARE(file.executable, executable);
    QVERIFY(!file.text.empty());
    QCOMPARE(QString::fromStdString(file.text), writerText);
}

void TestPlanExport::unknownNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("empty") << "";
    QTest::newRow("other framework") << "deepspeed";
    QTest::newRow("case matters") << "Galvatron";
    QTest::newRow("enum spelling") << "PaddleConfig";
}

void TestPlanExport::unknownNames()
{
    QFETCH(QString, name);
    QVERIFY(!parseExportFormat(name.toStdString()));
}

QTEST_GUILESS_MAIN(TestPlanExport)
#include "tst_plan_export.moc"
