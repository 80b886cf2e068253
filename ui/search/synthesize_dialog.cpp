// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/synthesize_dialog.h"

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
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/transformer_estimates.h"
#include "ui/common/path_line_edit.h"
#include "ui/common/settings_form.h"

namespace stratex::ui {

using namespace profile::synth;
using namespace hardware;

namespace {

// The fields a quick estimate needs; the command line offers every row.
constexpr std::string_view kDialogRows[]
    = { "model", "seq-length", "gpu", "num-nodes", "num-gpus-per-node", "mixed-precision" };

} // namespace

SynthesizeDialog::SynthesizeDialog(QWidget* parent)
    : QDialog(parent)
    , m_form(new SettingsForm(this))
    , m_folder(new PathLineEdit(this))
    , m_clusterFile(new PathLineEdit(this))
    , m_summary(new QLabel(this))
{
    setWindowTitle(tr("Synthesize profiles"));
    const auto& table = synthesisSettingTable();
    std::vector<settings::SettingSpec> specs;
    std::vector<settings::SettingValue> defaults;
    for (std::string_view flag : kDialogRows) {
        specs.push_back(table.at(flag).spec);
        defaults.push_back(table.at(flag).get(SynthesisSettings {}));
    }
    m_form->addSettings(specs, defaults);
    m_summary->setWordWrap(true);
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
    // A new model preset brings its own sequence length.
    connect(modelBox(), &QComboBox::currentTextChanged, this,
        [this] { seqBox()->setValue(model::modelPreset(modelBox()->currentText().toStdString()).seq_length); });
    connect(m_form, &SettingsForm::changed, this, &SynthesizeDialog::updateSummary);
    updateSummary();
}

QComboBox* SynthesizeDialog::modelBox() const
{
    return m_form->fieldAs<QComboBox>("model");
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
    SynthesisSettings chosen = m_form->read(synthesisSettingTable(), SynthesisSettings {}, nullptr);
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
    m_summary->setText(tr("%1: %2 B parameters, %3 layers, hidden %4, %5 key/value heads of %6, "
                          "on %7 GPUs.")
                           .arg(QString::fromStdString(chosen.model_preset),
                               QLocale::c().toString(modelParameters(model) / 1e9, 'f', 2))
                           .arg(model.num_layers)
                           .arg(model.hidden_size)
                           .arg(model.num_kv_heads)
                           .arg(model.num_heads)
                           .arg(chosen.cluster.worldSize())
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
    QDialog::accept();
}

} // namespace stratex::ui
