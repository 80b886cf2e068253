// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/search_settings_form.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include "core/common/plan_list.h"
#include <QThread>

#include "core/common/error.h"
#include "core/model/model_presets.h"
#include "core/megatron/stratex_request.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_setting_table.h"
#include "ui/common/path_line_edit.h"

namespace stratex::ui {

using galvatron::SearchSettings;

namespace {

QWidget* pathField(QLineEdit* edit, const QString& dialogTitle, QWidget* parent)
{
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* browse = new QPushButton(QObject::tr("Browse…"), row);
    edit->setAccessibleName(dialogTitle);
    browse->setAccessibleName(QObject::tr("Browse for the %1").arg(dialogTitle.toLower()));
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, edit, [edit, dialogTitle] {
        const QString dir = QFileDialog::getExistingDirectory(edit, dialogTitle, edit->text());
        if (!dir.isEmpty())
            edit->setText(dir);
    });
    return row;
}

} // namespace

SearchSettingsForm::SearchSettingsForm(QWidget* parent)
    : SettingsForm(parent)
    , m_profilesDir(new PathLineEdit(this))
    , m_hardwareDir(new PathLineEdit(this))
    , m_threads(new QSpinBox(this))
    , m_topK(new QSpinBox(this))
{
    m_profilesDir->setObjectName(QStringLiteral("profilesDir"));
    m_profilesDir->setPlaceholderText(tr("folder with computation_/memory_profiling_*.json"));
    m_profilesDir->setToolTip(tr("Galvatron's model profiles, found by their file names (--profiles)"));
    m_hardwareDir->setObjectName(QStringLiteral("hardwareDir"));
    m_hardwareDir->setPlaceholderText(tr("same folder, or Galvatron's hardware_configs"));
    m_hardwareDir->setToolTip(tr("allreduce_bandwidth_*, p2p_bandwidth_*, overlap_coefficient.json and sp_time_* "
                                 "matching the cluster (--hardware)"));

    // The groups in the order of the workflow; the tables' rows fill them.
    groupLayout(tr("Cost model"));
    QFormLayout* profiles = groupLayout(tr("Profiles"));
    for (const char* group : { "Cluster", "Batch", "Model", "Search space", "Megatron space", "Training" })
        groupLayout(tr(group));
    QFormLayout* engine = groupLayout(tr("Profiling and engine"));
    profiles->addRow(tr("Model profiles"), pathField(m_profilesDir, tr("Model profiles folder"), this));
    profiles->addRow(tr("Hardware profiles"), pathField(m_hardwareDir, tr("Hardware profiles folder"), this));

    const auto& table = galvatron::searchSettingTable();
    addSettings(table.specs(), table.values(SearchSettings {}));
    // Until the user says otherwise, the model name and sequence length come from the profiles.
    setValue("model-name", std::nullopt);
    setValue("seq-length", std::nullopt);
    const auto& stratexTable = megatron::strategySearchSettingTable();
    addSettings(stratexTable.specs(), stratexTable.values(megatron::StrategySearchSettings {}));
    // The CLI insists on a global batch for the stratex model; the form starts with the bundled
    // example's, so a synthesized set searched in "auto" gives plans at once (the user changes it).
    setValue("global-batch-size", std::int64_t(kInitialGlobalBatch));

    m_threads->setObjectName(QStringLiteral("threads"));
    m_threads->setRange(0, 1024);
    m_threads->setSpecialValueText(tr("all cores (%1)").arg(QThread::idealThreadCount()));
    m_threads->setToolTip(tr("Search threads; results do not depend on it"));
    m_threads->setAccessibleName(tr("Search threads"));
    engine->addRow(tr("Threads"), m_threads);
    m_topK->setObjectName(QStringLiteral("topK"));
    m_topK->setRange(1, 1000);
    m_topK->setValue(kDefaultTopPlans);
    m_topK->setToolTip(tr("Plans kept: the best per (pipeline degree, TP/SP mode, batch, micro-batches)"));
    m_topK->setAccessibleName(tr("Top plans kept"));
    engine->addRow(tr("Top plans"), m_topK);

    connect(m_profilesDir, &QLineEdit::textChanged, this, &SearchSettingsForm::adoptSynthesizedModel);
    for (QLineEdit* edit : { m_profilesDir, m_hardwareDir })
        connect(edit, &QLineEdit::textChanged, this, &SettingsForm::changed);
    // After adoptSynthesizedModel, which knows whether the folder is synthesized.
    connect(this, &SettingsForm::changed, this, &SearchSettingsForm::showCostModelRows);
    showCostModelRows();
}

megatron::StrategySearchSettings SearchSettingsForm::stratexSettings() const
{
    return read(megatron::strategySearchSettingTable(), megatron::StrategySearchSettings {}, nullptr);
}

void SearchSettingsForm::setStratexSettings(const megatron::StrategySearchSettings& values)
{
    write(megatron::strategySearchSettingTable(), values);
}

void SearchSettingsForm::setCostModel(megatron::CostModelChoice choice)
{
    setValue("cost-model", std::string(megatron::costModelName(choice)));
}

megatron::CostModelChoice SearchSettingsForm::resolvedCostModel() const
{
    const megatron::StrategySearchSettings stratex = stratexSettings();
    bool preset = false;
    if (const auto name = value("model-name"))
        preset = model::isModelPreset(std::get<std::string>(*name));
    return megatron::resolveCostModel(
        stratex.costModel(), !profilesDir().isEmpty(), m_synthesizedFolder, preset || !stratex.gpu.empty());
}

void SearchSettingsForm::showCostModelRows()
{
    const bool stratex = resolvedCostModel() == megatron::CostModelChoice::Stratex;
    // The search table's rows the stratex model reads from the form (one list, megatron::stratexSharedFlags).
    for (const auto& row : galvatron::searchSettingTable().rows())
        setFieldVisible(row.spec.flag, !stratex || megatron::stratexFormShows(row.spec.flag));
    for (const auto& row : megatron::strategySearchSettingTable().rows())
        setFieldVisible(row.spec.flag, stratex || row.spec.flag == "cost-model");
    for (const char* group : { "Batch", "Search space", "Training" })
        setGroupVisible(tr(group), !stratex);
    setGroupVisible(tr("Megatron space"), stratex);
    if (auto* form = groupLayout(tr("Profiles")))
        form->setRowVisible(m_hardwareDir->parentWidget(), !stratex);
}

QSpinBox* SearchSettingsForm::spinBox(const char* flag) const
{
    return fieldAs<QSpinBox>(flag);
}

QComboBox* SearchSettingsForm::comboBox(const char* flag) const
{
    return fieldAs<QComboBox>(flag);
}

QCheckBox* SearchSettingsForm::checkBox(const char* flag) const
{
    return fieldAs<QCheckBox>(flag);
}

SearchSettings SearchSettingsForm::settings() const
{
    return read(galvatron::searchSettingTable(), SearchSettings {}, nullptr);
}

settings::SettingNames SearchSettingsForm::given() const
{
    settings::SettingNames names;
    read(galvatron::searchSettingTable(), SearchSettings {}, &names);
    return names;
}

void SearchSettingsForm::setSettings(const SearchSettings& values, const settings::SettingNames& open)
{
    write(galvatron::searchSettingTable(), values, open);
}

profile::ProfileDiscovery SearchSettingsForm::discovery() const
{
    profile::ProfileDiscovery request;
    request.profilesDir = profilesDir().toStdString();
    request.hardwareDir = hardwareDir().toStdString();
    // Left open, the model name comes from the profile files' names.
    if (const auto name = value("model-name"))
        request.modelName = std::get<std::string>(*name);
    return request;
}

void SearchSettingsForm::adoptSynthesizedModel(const QString& dir)
{
    std::optional<profile::synth::SynthesisRecord> record;
    try {
        record = profile::synth::readSynthesisRecord(dir.trimmed().toStdString());
    } catch (const Error&) {
        m_synthesizedFolder = false;
        return; // the search reports a malformed folder when it loads it
    }
    m_synthesizedFolder = record.has_value();
    if (!record)
        return;
    SearchSettings values = settings();
    galvatron::adoptSynthesizedSettings(*record, values, {});
    settings::SettingNames open;
    if (!given().contains("model-name"))
        open.insert("model-name");
    setSettings(values, open);
}

QString SearchSettingsForm::profilesDir() const
{
    return m_profilesDir->text().trimmed();
}

QString SearchSettingsForm::hardwareDir() const
{
    return m_hardwareDir->text().trimmed();
}

void SearchSettingsForm::setProfilesDir(const QString& dir)
{
    m_profilesDir->setText(dir);
}

void SearchSettingsForm::setHardwareDir(const QString& dir)
{
    m_hardwareDir->setText(dir);
}

int SearchSettingsForm::threads() const
{
    return m_threads->value();
}

int SearchSettingsForm::topK() const
{
    return m_topK->value();
}

} // namespace stratex::ui
