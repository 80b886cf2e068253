// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24 finding 9, describing a model: the Synthesize dialog reads a Hugging Face config.json
// (the real files of tests/data/hf-configs), shows every field of the model it will use, takes a
// custom shape typed into those fields, writes the model it shows into the set, and remembers the
// last accepted choice. Offscreen.
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/model/hf_config.h"
#include "core/profile/synth/synthesis_record.h"
#include "ui/common/settings_form.h"
#include "ui/search/synthesize_dialog.h"

using namespace stratex;
using namespace stratex::ui;

namespace {

const QString kConfigs = QStringLiteral(STRATEX_TEST_DATA_DIR "/hf-configs/");

int spin(const SynthesizeDialog& dialog, const char* flag)
{
    return dialog.form()->fieldAs<QSpinBox>(flag)->value();
}

// Types into a spin box as a user does: select all, type, Enter.
void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, text);
    QTest::keyClick(box, Qt::Key_Enter);
}

} // namespace

class TestHfConfigDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        // The remembered choice goes to a settings file of this test only.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("stratex-test-hf-config-dialog"));
        QSettings().clear();
    }
    void cleanupTestCase() { QSettings().clear(); }

    void loadsAConfig_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kvHeads");
        QTest::addColumn<int>("ffn");
        QTest::addColumn<int>("vocab");
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("experts");
        QTest::addColumn<int>("topK");
        // The files' own keys (see tst_hf_config for every family).
        QTest::newRow("DeepSeek-V3") << "deepseek-v3.json" << 61 << 7168 << 128 << 128 << 18432 << 129280 << 4096 << 256
                                     << 8;
        QTest::newRow("Qwen3-30B-A3B") << "qwen3-30b-a3b.json" << 48 << 2048 << 32 << 4 << 6144 << 151936 << 40960
                                       << 128 << 8;
        QTest::newRow("Llama 3.1 8B") << "llama3.1-8b.json" << 32 << 4096 << 32 << 8 << 14336 << 128256 << 8192 << 0
                                      << 1;
    }
    void loadsAConfig()
    {
        QFETCH(QString, file);
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, kvHeads);
        QFETCH(int, ffn);
        QFETCH(int, vocab);
        QFETCH(int, seq);
        QFETCH(int, experts);
        QFETCH(int, topK);
        SynthesizeDialog dialog;
        QString error;
        QVERIFY2(dialog.loadHfConfig(kConfigs + file, &error), qPrintable(error));
        QVERIFY(dialog.modelBox()->currentText().startsWith(QStringLiteral("custom: ")));
        QVERIFY(dialog.modelSource().contains(file));
        // Every field of the model is shown, with the file's values.
        QCOMPARE(spin(dialog, "num-layers"), layers);
        QCOMPARE(spin(dialog, "hidden-size"), hidden);
        QCOMPARE(spin(dialog, "num-heads"), heads);
        QCOMPARE(spin(dialog, "num-kv-heads"), kvHeads);
        QCOMPARE(spin(dialog, "ffn-hidden-size"), ffn);
        QCOMPARE(spin(dialog, "vocab-size"), vocab);
        QCOMPARE(spin(dialog, "seq-length"), seq);
        QCOMPARE(dialog.expertsBox()->value(), experts);
        if (experts > 0)
            QCOMPARE(dialog.topKBox()->value(), topK);
        for (std::string_view flag : { "num-layers", "hidden-size", "num-heads", "num-kv-heads", "ffn-hidden-size",
                 "vocab-size", "seq-length" })
            QVERIFY2(dialog.form()->isFieldVisible(flag), flag.data());
        // The model it will use is the file's, every fact included.
        const model::ModelDescription expected = model::readHfConfigFile((kConfigs + file).toStdString()).model;
        QVERIFY(dialog.settings().model == expected);
        QVERIFY(!dialog.modelSource().contains(QStringLiteral("edited")));
    }

    // A custom shape: fields typed into the form reach the set the dialog writes; the facts the
    // form has no field for (DeepSeek's MLA and router) are kept and listed.
    void customShapeReachesTheSet()
    {
        QTemporaryDir dir;
        SynthesizeDialog dialog;
        QString error;
        QVERIFY2(dialog.loadHfConfig(kConfigs + QStringLiteral("deepseek-v3.json"), &error), qPrintable(error));
        typeInto(dialog.form()->fieldAs<QSpinBox>("num-layers"), QStringLiteral("13"));
        typeInto(dialog.expertsBox(), QStringLiteral("64"));
        typeInto(dialog.topKBox(), QStringLiteral("6"));
        QVERIFY(dialog.modelSource().contains(QStringLiteral("edited")));
        QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("synthModelFacts"))->text().contains(QStringLiteral("MLA")));
        dialog.folderEdit()->setText(dir.filePath(QStringLiteral("set")));
        QVERIFY2(dialog.synthesize(&error), qPrintable(error));
        const auto record = profile::synth::readSynthesisRecord(dir.filePath(QStringLiteral("set")).toStdString());
        QVERIFY(record);
        QCOMPARE(record->model.num_layers, 13);
        QCOMPARE(record->model.moe->num_experts, 64);
        QCOMPARE(record->model.moe->top_k, 6);
        QCOMPARE(record->model.moe->num_groups, 8); // the router kept: 64 experts in 8 groups
        QVERIFY(record->model.mla.has_value());
        // A shape that is not a transformer is said in the summary.
        typeInto(dialog.form()->fieldAs<QSpinBox>("num-kv-heads"), QStringLiteral("7"));
        QVERIFY(!dialog.synthesize(&error));
    }

    // The dialog remembers its last accepted choice: the custom model, edited, and the cluster.
    void remembersTheChoice()
    {
        QTemporaryDir dir;
        model::ModelDescription accepted;
        {
            SynthesizeDialog dialog;
            QString error;
            QVERIFY2(dialog.loadHfConfig(kConfigs + QStringLiteral("qwen3-30b-a3b.json"), &error), qPrintable(error));
            typeInto(dialog.form()->fieldAs<QSpinBox>("seq-length"), QStringLiteral("4096"));
            dialog.nodesBox()->setValue(2);
            dialog.folderEdit()->setText(dir.filePath(QStringLiteral("set")));
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            QTest::mouseClick(dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
            accepted = dialog.settings().model;
        }
        SynthesizeDialog again;
        QCOMPARE(again.modelBox()->currentText(), QStringLiteral("custom: qwen3-30b-a3b"));
        QVERIFY(again.modelSource().contains(QStringLiteral("qwen3-30b-a3b.json")));
        QCOMPARE(spin(again, "seq-length"), 4096);
        QCOMPARE(again.nodesBox()->value(), 2);
        QVERIFY(again.settings().model == accepted);

        // A preset chosen and accepted is remembered as the preset.
        {
            SynthesizeDialog dialog;
            dialog.modelBox()->setCurrentText(QStringLiteral("mixtral-8x7b"));
            dialog.folderEdit()->setText(dir.filePath(QStringLiteral("set2")));
            dialog.accept();
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
        }
        SynthesizeDialog third;
        QCOMPARE(third.modelBox()->currentText(), QStringLiteral("mixtral-8x7b"));
        QCOMPARE(third.expertsBox()->value(), 8);
        QVERIFY(third.settings().model == model::modelPreset("mixtral-8x7b"));
    }

    void aBadConfigIsNamed()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"model_type": "bert", "hidden_size": 768})");
        file.close();
        SynthesizeDialog dialog;
        const QString before = dialog.modelBox()->currentText();
        QString error;
        QVERIFY(!dialog.loadHfConfig(file.fileName(), &error));
        QVERIFY2(error.contains(QStringLiteral("config.json")) && error.contains(QStringLiteral("model_type")),
            qPrintable(error));
        QCOMPARE(dialog.modelBox()->currentText(), before);
    }
};

QTEST_MAIN(TestHfConfigDialog)
#include "tst_hf_config_dialog.moc"
