// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/export_model_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/profile/synth/synthesis_settings.h"
#include "core/galvatron/model_settings.h"
#include "ui/common/settings_form.h"

namespace stratex::ui {

namespace {

// The search's shape flags: right for the plan without being given (resolveModel's `known`).
const settings::SettingNames& searchedShape()
{
    static const settings::SettingNames shape { "num-layers", "hidden-size", "num-heads", "vocab-size", "seq-length",
        "model-name" };
    return shape;
}

} // namespace

ExportModelDialog::ExportModelDialog(QWidget* parent)
    : QDialog(parent)
    , m_form(new SettingsForm(this))
    , m_reason(new QLabel(this))
{
    setObjectName(QStringLiteral("exportModelDialog"));
    setWindowTitle(tr("Model and GPU for exports"));
    const auto& table = galvatron::modelSettingTable();
    std::vector<settings::SettingSpec> specs = table.specs();
    std::vector<settings::SettingValue> defaults;
    for (const auto& row : table.rows())
        defaults.push_back(row.get(galvatron::ModelSettings {}));
    const auto& gpu = profile::synth::synthesisSettingTable().at("gpu");
    specs.push_back(gpu.spec);
    defaults.push_back(gpu.get(profile::synth::SynthesisSettings {}));
    m_form->addSettings(specs, defaults);
    m_reason->setWordWrap(true);
    m_reason->setText(tr("Measured profiles say neither the model's architecture nor the GPU. The launch scripts "
                         "(Megatron-LM, PaddleNLP, torchtitan) need the architecture; the searched shape (layers, "
                         "hidden size, heads, vocabulary, sequence length) stays the search's."));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Use for exports"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_reason);
    layout->addWidget(m_form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportModelDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // A preset brings its architecture; the fields after it can change it.
    connect(modelBox(), &QComboBox::currentTextChanged, this, [this](const QString& name) {
        galvatron::ModelSettings preset;
        preset.preset = name.toStdString();
        preset.model = model::modelPreset(preset.preset);
        m_form->write(galvatron::modelSettingTable(), preset);
    });
}

QComboBox* ExportModelDialog::modelBox() const
{
    return m_form->fieldAs<QComboBox>("model");
}

QComboBox* ExportModelDialog::gpuBox() const
{
    return m_form->fieldAs<QComboBox>("gpu");
}

void ExportModelDialog::setReason(const QString& text)
{
    m_reason->setText(text);
}

void ExportModelDialog::accept()
{
    m_confirmed = true;
    QDialog::accept();
}

exporting::ExportContext ExportModelDialog::context(const galvatron::SearchSettings& settings) const
{
    exporting::ExportContext context;
    if (!m_confirmed)
        return context;
    settings::SettingNames given;
    const galvatron::ModelSettings flags = m_form->read(galvatron::modelSettingTable(), galvatron::ModelSettings {}, &given);
    const galvatron::ResolvedModel resolved
        = galvatron::resolveModel(std::nullopt, "", settings, {}, flags, given, searchedShape());
    if (!resolved.model)
        throw Error("the export dialog's model misses " + std::to_string(resolved.missing.size()) + " field(s)");
    context.model = resolved.model;
    hardware::ClusterDescription cluster;
    cluster.gpu = hardware::gpuPreset(gpuBox()->currentText().toStdString());
    cluster.num_nodes = settings.num_nodes;
    cluster.gpus_per_node = settings.num_gpus_per_node;
    context.cluster = cluster;
    return context;
}

} // namespace stratex::ui
