// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/synthesize_dialog.h"

#include <algorithm>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/common/reader_limits.h"
#include "core/hardware/cluster_json.h"
#include "core/model/hf_config.h"
#include "core/model/model_json.h"
#include "core/model/model_setting_rows.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/transformer_estimates.h"
#include "ui/common/path_line_edit.h"
#include "ui/common/settings_form.h"

namespace stratex::ui {

using namespace profile::synth;
using namespace hardware;

namespace {

// Every field of the model (model::modelFlags() but the preset, which is the combo box above them),
// then the cluster; the command line offers every row.
const std::vector<std::string_view>& modelRows()
{
    static const std::vector<std::string_view> rows = [] {
        std::vector<std::string_view> flags;
        for (std::string_view flag : model::modelFlags()) {
            if (flag != "model")
                flags.push_back(flag);
        }
        return flags;
    }();
    return rows;
}
constexpr std::string_view kClusterRows[] = { "gpu", "num-nodes", "num-gpus-per-node", "mixed-precision" };

const QString kCustomPrefix = QStringLiteral("custom: ");

QSpinBox* countBox(QWidget* parent, const char* name, const QString& accessible, int minimum, int maximum)
{
    auto* box = new QSpinBox(parent);
    box->setObjectName(QString::fromLatin1(name));
    box->setAccessibleName(accessible);
    box->setRange(minimum, maximum);
    return box;
}

// The facts the form has no field for, one line: what the estimate and the exports carry.
QString modelFacts(const model::ModelDescription& m)
{
    QStringList facts;
    if (m.position == model::PositionEmbedding::Rope) {
        QString rope = QStringLiteral("RoPE base %1").arg(QLocale::c().toString(m.rotary_base, 'g', 10));
        if (m.rotary_percent != 1.0)
            rope += QStringLiteral(" on %1 % of each head").arg(m.rotary_percent * 100);
        if (m.rope_scaling)
            rope += QStringLiteral(", Llama 3.1 scaling x%1").arg(m.rope_scaling->factor);
        facts << rope;
    }
    if (m.head_dim > 0)
        facts << QStringLiteral("head dim %1").arg(m.head_dim);
    if (m.qk_norm)
        facts << QStringLiteral("QK norm");
    if (m.mla)
        facts << QStringLiteral("MLA (q rank %1, kv rank %2, heads %3+%4 / %5)")
                     .arg(m.mla->q_lora_rank)
                     .arg(m.mla->kv_lora_rank)
                     .arg(m.mla->qk_nope_head_dim)
                     .arg(m.mla->qk_rope_head_dim)
                     .arg(m.mla->v_head_dim);
    if (m.moe) {
        const model::MoeDescription& e = *m.moe;
        QString router = QStringLiteral("router %1").arg(QString::fromLatin1(model::routerScoreName(e.score_function).data(), qsizetype(model::routerScoreName(e.score_function).size())));
        if (e.num_groups > 0)
            router += QStringLiteral(", top %1 of %2 groups").arg(e.group_top_k).arg(e.num_groups);
        if (e.expert_bias)
            router += QStringLiteral(", expert bias");
        if (e.scaling_factor != 1.0)
            router += QStringLiteral(", scaled x%1").arg(e.scaling_factor);
        if (!e.normalize_top_k)
            router += QStringLiteral(", top-k not renormalised");
        facts << router;
        if (e.shared_experts > 0)
            facts << QStringLiteral("%1 shared expert(s) of %2").arg(e.shared_experts).arg(e.shared_expert_ffn_hidden_size);
    }
    return facts.join(QStringLiteral("; "));
}

} // namespace

SynthesizeDialog::SynthesizeDialog(QWidget* parent)
    : QDialog(parent)
    , m_form(new SettingsForm(this))
    , m_model(new QComboBox(this))
    , m_fromConfig(new QPushButton(tr("From config.json…"), this))
    , m_experts(countBox(this, "moe-experts", tr("Routed experts (0: dense)"), 0, limits::kMaxExperts))
    , m_topK(countBox(this, "moe-top-k", tr("Experts per token"), 1, limits::kMaxExperts))
    , m_expertFfn(countBox(this, "moe-expert-ffn-hidden-size", tr("Expert MLP size"), 1, limits::kMaxFfnHiddenSize))
    , m_folder(new PathLineEdit(this))
    , m_clusterFile(new PathLineEdit(this))
    , m_summary(new QLabel(this))
    , m_facts(new QLabel(this))
{
    setWindowTitle(tr("Synthesize profiles"));
    const auto& table = synthesisSettingTable();
    std::vector<settings::SettingSpec> specs;
    std::vector<settings::SettingValue> defaults;
    for (std::string_view flag : modelRows()) {
        specs.push_back(table.at(flag).spec);
        defaults.push_back(table.at(flag).get(SynthesisSettings {}));
    }
    for (std::string_view flag : kClusterRows) {
        specs.push_back(table.at(flag).spec);
        defaults.push_back(table.at(flag).get(SynthesisSettings {}));
    }
    m_form->addSettings(specs, defaults);
    m_summary->setWordWrap(true);
    m_facts->setObjectName(QStringLiteral("synthModelFacts"));
    m_facts->setWordWrap(true);

    // The model: a preset, a config.json or the custom shape, above its fields.
    m_model->setObjectName(QStringLiteral("model"));
    m_model->setAccessibleName(tr("Model"));
    m_model->setToolTip(tr("Start from a published model shape, or read a Hugging Face config.json; every field "
                           "below can be edited."));
    for (const model::ModelDescription& preset : model::modelPresets())
        m_model->addItem(QString::fromStdString(preset.name));
    m_fromConfig->setObjectName(QStringLiteral("fromConfigButton"));
    m_fromConfig->setAccessibleName(tr("Read the model from a Hugging Face config.json"));
    m_fromConfig->setToolTip(tr("A Hugging Face config.json (Llama, Mistral, Mixtral, Qwen, DeepSeek, Gemma, Nemotron, "
                                "GPT-NeoX, GPT-2), as stratex-cli --hf-config reads it"));
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_model, 1);
    modelRow->addWidget(m_fromConfig);
    QFormLayout* modelGroup = m_form->groupLayout(tr("Model"));
    modelGroup->insertRow(0, tr("Model"), modelRow);
    modelGroup->addRow(tr("Routed experts"), m_experts);
    modelGroup->addRow(tr("Experts per token"), m_topK);
    modelGroup->addRow(tr("Expert MLP size"), m_expertFfn);
    m_experts->setToolTip(tr("Routed experts of a MoE layer; 0 for a dense model."));
    modelGroup->addRow(m_facts);
    m_folder->setObjectName(QStringLiteral("synthFolder"));
    m_folder->setAccessibleName(tr("Folder to write the profile set to"));

    auto* browse = new QPushButton(tr("Browse…"), this);
    browse->setAccessibleName(tr("Browse for the folder to write to"));
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    m_form->groupLayout(tr("Cluster"))->addRow(tr("Write to"), folderRow);

    m_clusterFile->setObjectName(QStringLiteral("synthClusterFile"));
    m_clusterFile->setAccessibleName(tr("Calibrated cluster file"));
    m_clusterFile->setPlaceholderText(tr("none: the GPU preset's fitted efficiencies"));
    m_clusterFile->setToolTip(tr("A cluster file written by Calibrate (or stratex-cli calibrate): its GPU figures "
                                 "and calibrated efficiencies are used, as profile synth --cluster does."));
    auto* browseCluster = new QPushButton(tr("Browse…"), this);
    browseCluster->setAccessibleName(tr("Browse for a calibrated cluster file"));
    auto* clusterRow = new QHBoxLayout;
    clusterRow->addWidget(m_clusterFile, 1);
    clusterRow->addWidget(browseCluster);
    m_form->groupLayout(tr("Cluster"))->addRow(tr("Calibrated cluster"), clusterRow);
    const auto loadCluster = [this] {
        QString error;
        if (!setClusterFile(m_clusterFile->text().trimmed(), &error))
            QMessageBox::warning(this, tr("Calibrated cluster"), error);
    };
    connect(m_clusterFile, &QLineEdit::editingFinished, this, loadCluster);
    connect(browseCluster, &QPushButton::clicked, this, [this, loadCluster] {
        const QString file = QFileDialog::getOpenFileName(
            this, tr("Calibrated Cluster"), m_clusterFile->text(), tr("Cluster files (*.json);;All Files (*)"));
        if (file.isEmpty())
            return;
        m_clusterFile->setText(file);
        loadCluster();
    });
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Synthesize and search"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_form);
    layout->addWidget(m_summary);
    layout->addWidget(new QLabel(tr("<i>Estimated from the model's shape and the GPU's datasheet, not measured: "
                                    "good for exploring, to be replaced by profiler output before a real run.</i>"),
        this));
    layout->addWidget(buttons);

    connect(buttons, &QDialogButtonBox::accepted, this, &SynthesizeDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder for the profile set"), folder());
        if (!dir.isEmpty()) {
            m_folder->setText(dir);
            m_folderEdited = true;
        }
    });
    connect(m_folder, &QLineEdit::textEdited, this, [this] { m_folderEdited = true; });
    // A model brings every field of its own (its sequence length too).
    connect(m_model, &QComboBox::currentIndexChanged, this, &SynthesizeDialog::selectModel);
    connect(m_fromConfig, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(
            this, tr("Hugging Face config.json"), QString(), tr("Model configs (*.json);;All Files (*)"));
        if (file.isEmpty())
            return;
        QString error;
        if (!loadHfConfig(file, &error))
            QMessageBox::warning(this, tr("From config.json"), error);
    });
    connect(m_form, &SettingsForm::changed, this, &SynthesizeDialog::updateSummary);
    for (QSpinBox* box : { m_experts, m_topK, m_expertFfn })
        connect(box, &QSpinBox::valueChanged, this, &SynthesizeDialog::updateSummary);
    connect(m_experts, &QSpinBox::valueChanged, this, [this](int experts) {
        m_topK->setEnabled(experts > 0);
        m_expertFfn->setEnabled(experts > 0);
        if (experts > 0)
            m_topK->setMaximum(experts);
    });
    selectModel(0);
    QSettings remembered;
    restoreChoice(remembered);
    updateSummary();
}

void SynthesizeDialog::selectModel(int index)
{
    if (index < 0)
        return;
    const QString text = m_model->itemText(index);
    if (text.startsWith(kCustomPrefix) && m_custom)
        m_base = *m_custom;
    else
        m_base = model::modelPreset(text.toStdString());
    showModel(m_base);
}

void SynthesizeDialog::showModel(const model::ModelDescription& model)
{
    m_showing = true;
    SynthesisSettings values = m_form->read(synthesisSettingTable(), SynthesisSettings {}, nullptr);
    values.model = model;
    values.model_preset = model.name;
    for (std::string_view flag : modelRows())
        m_form->setValue(flag, synthesisSettingTable().at(flag).get(values));
    m_experts->setValue(model.moe ? model.moe->num_experts : 0);
    m_topK->setMaximum(std::max(1, model.moe ? model.moe->num_experts : 1));
    m_topK->setValue(model.moe ? model.moe->top_k : 1);
    m_expertFfn->setValue(model.moe ? model.moe->expert_ffn_hidden_size : model.ffn_hidden_size);
    m_topK->setEnabled(model.moe.has_value());
    m_expertFfn->setEnabled(model.moe.has_value());
    m_showing = false;
    updateSummary();
}

void SynthesizeDialog::setCustomModel(const model::ModelDescription& model, const QString& source)
{
    m_custom = model;
    m_customSource = source;
    const QString item = kCustomPrefix + QString::fromStdString(model.name);
    int index = -1;
    for (int i = 0; i < m_model->count(); ++i) {
        if (m_model->itemText(i).startsWith(kCustomPrefix))
            index = i;
    }
    if (index < 0) {
        m_model->addItem(item);
        index = m_model->count() - 1;
    } else {
        m_model->setItemText(index, item);
    }
    if (m_model->currentIndex() == index)
        selectModel(index);
    else
        m_model->setCurrentIndex(index);
}

bool SynthesizeDialog::loadHfConfig(const QString& path, QString* error)
{
    try {
        const model::HfModel hf = model::readHfConfigFile(path.toStdString());
        m_notes = hf.notes;
        setCustomModel(hf.model, tr("config.json %1").arg(path));
        return true;
    } catch (const Error& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

QString SynthesizeDialog::modelSource() const
{
    const bool custom = m_model->currentText().startsWith(kCustomPrefix);
    const QString source = custom ? m_customSource : tr("the preset %1").arg(m_model->currentText());
    return settings().model == m_base ? source : source + tr(", edited");
}

// The last accepted model (its JSON, as plan files carry it) and cluster.
void SynthesizeDialog::saveChoice(QSettings& stored) const
{
    const SynthesisSettings chosen = settings();
    stored.beginGroup(QStringLiteral("synthesize"));
    stored.setValue(QStringLiteral("model"), QString::fromStdString(model::toJson(chosen.model).dump()));
    const bool custom = m_model->currentText().startsWith(kCustomPrefix);
    stored.setValue(QStringLiteral("preset"), custom ? QString() : m_model->currentText());
    stored.setValue(QStringLiteral("source"), custom ? m_customSource : QString());
    stored.setValue(QStringLiteral("gpu"), QString::fromStdString(chosen.gpu_preset));
    stored.setValue(QStringLiteral("nodes"), chosen.cluster.num_nodes);
    stored.setValue(QStringLiteral("gpusPerNode"), chosen.cluster.gpus_per_node);
    stored.setValue(QStringLiteral("precision"), QString::fromStdString(chosen.precision));
    stored.endGroup();
}

void SynthesizeDialog::restoreChoice(QSettings& stored)
{
    stored.beginGroup(QStringLiteral("synthesize"));
    const QString json = stored.value(QStringLiteral("model")).toString();
    const QString preset = stored.value(QStringLiteral("preset")).toString();
    const QString source = stored.value(QStringLiteral("source")).toString();
    if (!json.isEmpty()) {
        try {
            // Read back as a plan file's model is: a damaged entry falls back to the defaults.
            const JsonDocument document = JsonDocument::parse(json.toStdString(), "remembered model");
            const model::ModelDescription remembered = model::readModel(document.root());
            if (!preset.isEmpty() && m_model->findText(preset) >= 0) {
                m_model->setCurrentText(preset);
                showModel(remembered); // the preset's fields as edited
            } else {
                setCustomModel(remembered, source.isEmpty() ? tr("the last choice") : source);
            }
        } catch (const Error&) {
        }
    }
    if (const QString gpu = stored.value(QStringLiteral("gpu")).toString(); gpuBox()->findText(gpu) >= 0)
        gpuBox()->setCurrentText(gpu);
    const auto restoreInt = [&](const char* key, std::string_view flag) {
        bool ok = false;
        const int value = stored.value(QString::fromLatin1(key)).toInt(&ok);
        if (ok && value > 0)
            m_form->fieldAs<QSpinBox>(flag)->setValue(value);
    };
    restoreInt("nodes", "num-nodes");
    restoreInt("gpusPerNode", "num-gpus-per-node");
    if (auto* precision = m_form->fieldAs<QComboBox>("mixed-precision")) {
        if (const QString value = stored.value(QStringLiteral("precision")).toString(); precision->findText(value) >= 0)
            precision->setCurrentText(value);
    }
    stored.endGroup();
}

QComboBox* SynthesizeDialog::gpuBox() const
{
    return m_form->fieldAs<QComboBox>("gpu");
}

QSpinBox* SynthesizeDialog::nodesBox() const
{
    return m_form->fieldAs<QSpinBox>("num-nodes");
}

QSpinBox* SynthesizeDialog::seqBox() const
{
    return m_form->fieldAs<QSpinBox>("seq-length");
}

SynthesisSettings SynthesizeDialog::settings() const
{
    // The fields over the model they started from (its MLA, RoPE and routing facts kept).
    SynthesisSettings base;
    base.model = m_base;
    base.model_preset = m_base.name;
    SynthesisSettings chosen = m_form->read(synthesisSettingTable(), base, nullptr);
    chosen.model_preset = chosen.model.name;
    if (m_experts->value() == 0) {
        chosen.model.moe.reset();
    } else {
        model::MoeDescription moe = m_base.moe.value_or(model::MoeDescription {});
        moe.num_experts = m_experts->value();
        moe.top_k = m_topK->value();
        moe.expert_ffn_hidden_size = m_expertFfn->value();
        if (!m_base.moe)
            moe.shared_expert_ffn_hidden_size = 0;
        chosen.model.moe = moe;
    }
    // The form's shape over the file's GPU and efficiencies; a calibration holds for its own GPU only.
    if (m_cluster && chosen.cluster.gpu.name == m_cluster->gpu.name) {
        chosen.cluster.gpu = m_cluster->gpu;
        chosen.cluster.efficiency = m_cluster->efficiency;
    }
    return chosen;
}

bool SynthesizeDialog::setClusterFile(const QString& path, QString* error)
{
    m_clusterFile->setText(path);
    if (path.isEmpty()) {
        m_cluster.reset();
        updateSummary();
        return true;
    }
    try {
        const ClusterDescription cluster = readClusterFile(path.toStdString());
        // The GPU field offers the presets; a file with a GPU of its own is for the command line.
        if (gpuBox()->findText(QString::fromStdString(cluster.gpu.name)) < 0)
            throw Error(path.toStdString() + ": its GPU \"" + cluster.gpu.name
                + "\" is not a preset; synthesize for it with stratex-cli profile synth --cluster");
        m_cluster = cluster;
        gpuBox()->setCurrentText(QString::fromStdString(cluster.gpu.name));
        nodesBox()->setValue(cluster.num_nodes);
        m_form->fieldAs<QSpinBox>("num-gpus-per-node")->setValue(cluster.gpus_per_node);
        updateSummary();
        return true;
    } catch (const Error& e) {
        m_cluster.reset();
        updateSummary();
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

QString SynthesizeDialog::defaultFolder() const
{
    const SynthesisSettings chosen = settings();
    QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/stratex");
    return QStringLiteral("%1/profiles/%2-%3-%4x%5-seq%6")
        .arg(base, QString::fromStdString(chosen.model_preset), QString::fromStdString(chosen.gpu_preset))
        .arg(chosen.cluster.num_nodes)
        .arg(chosen.cluster.gpus_per_node)
        .arg(chosen.model.seq_length);
}

void SynthesizeDialog::updateSummary()
{
    if (!m_folderEdited)
        m_folder->setText(defaultFolder());
    const SynthesisSettings chosen = settings();
    const model::ModelDescription& model = chosen.model;
    QString facts = modelFacts(model);
    for (const std::string& note : m_notes) {
        if (m_model->currentText().startsWith(kCustomPrefix))
            facts += (facts.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(note);
    }
    m_facts->setText(facts);
    QString invalid;
    try {
        model.validate();
    } catch (const Error& e) {
        invalid = QStringLiteral(" <b>%1</b>").arg(QString::fromUtf8(e.what()).toHtmlEscaped());
    }
    m_summary->setText(tr("%1 (%8): %2 B parameters, %3 layers, hidden %4, %5 key/value heads of %6, "
                          "on %7 GPUs.")
                           .arg(QString::fromStdString(chosen.model_preset),
                               QLocale::c().toString(modelParameters(model) / 1e9, 'f', 2))
                           .arg(model.num_layers)
                           .arg(model.hidden_size)
                           .arg(model.num_kv_heads)
                           .arg(model.num_heads)
                           .arg(chosen.cluster.worldSize())
                           .arg(m_showing ? QString() : modelSource().toHtmlEscaped())
        + invalid
        + (chosen.cluster.efficiency
                ? tr(" Calibrated efficiencies from %1.").arg(QFileInfo(m_clusterFile->text()).fileName())
                : QString()));
}

QString SynthesizeDialog::folder() const
{
    return m_folder->text().trimmed();
}

bool SynthesizeDialog::synthesize(QString* error)
{
    try {
        const SynthesisSettings chosen = settings();
        SynthesisOptions options;
        options.precision = chosen.precision;
        writeProfileFiles(folder().toStdString(), synthesizeProfiles(chosen.model, chosen.cluster, options));
        return true;
    } catch (const Error& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

void SynthesizeDialog::accept()
{
    QString error;
    if (!synthesize(&error)) {
        QMessageBox::warning(this, windowTitle(), error);
        return;
    }
    QSettings remembered;
    saveChoice(remembered);
    QDialog::accept();
}

} // namespace stratex::ui
