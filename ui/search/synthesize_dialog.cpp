// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/synthesize_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
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
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/transformer_estimates.h"

namespace stratex::ui {

using namespace profile::synth;

SynthesizeDialog::SynthesizeDialog(QWidget* parent)
    : QDialog(parent)
    , m_model(new QComboBox(this))
    , m_gpu(new QComboBox(this))
    , m_nodes(new QSpinBox(this))
    , m_gpusPerNode(new QComboBox(this))
    , m_seq(new QSpinBox(this))
    , m_precision(new QComboBox(this))
    , m_folder(new QLineEdit(this))
    , m_summary(new QLabel(this))
{
    setWindowTitle(tr("Synthesize profiles"));
    for (const ModelDescription& model : modelPresets())
        m_model->addItem(QString::fromStdString(model.name));
    for (const GpuDescription& gpu : gpuPresets())
        m_gpu->addItem(QString::fromStdString(gpu.name));
    m_gpu->setCurrentText(QStringLiteral("a100-80gb"));
    // Galvatron's hardware files halve the world size: both counts are powers of two.
    m_nodes->setRange(1, 4096);
    m_nodes->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    for (int gpus : { 1, 2, 4, 8, 16 })
        m_gpusPerNode->addItem(QString::number(gpus));
    m_gpusPerNode->setCurrentText(QStringLiteral("8"));
    m_seq->setRange(128, 1 << 20);
    m_seq->setSingleStep(1024);
    m_precision->addItems({ QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("fp32") });
    m_summary->setWordWrap(true);
    m_model->setObjectName(QStringLiteral("synthModel"));
    m_gpu->setObjectName(QStringLiteral("synthGpu"));
    m_nodes->setObjectName(QStringLiteral("synthNodes"));
    m_seq->setObjectName(QStringLiteral("synthSeq"));
    m_folder->setObjectName(QStringLiteral("synthFolder"));

    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Sequence length"), m_seq);
    form->addRow(tr("GPU"), m_gpu);
    form->addRow(tr("Nodes"), m_nodes);
    form->addRow(tr("GPUs per node"), m_gpusPerNode);
    form->addRow(tr("Precision"), m_precision);
    form->addRow(tr("Write to"), folderRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Synthesize and search"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
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
    connect(m_model, &QComboBox::currentTextChanged, this, [this] {
        m_seq->setValue(modelPreset(m_model->currentText().toStdString()).seq_length);
        updateSummary();
    });
    for (QComboBox* box : { m_gpu, m_gpusPerNode, m_precision })
        connect(box, &QComboBox::currentTextChanged, this, &SynthesizeDialog::updateSummary);
    for (QSpinBox* box : { m_nodes, m_seq })
        connect(box, &QSpinBox::valueChanged, this, &SynthesizeDialog::updateSummary);
    m_seq->setValue(modelPreset(m_model->currentText().toStdString()).seq_length);
    updateSummary();
}

QString SynthesizeDialog::defaultFolder() const
{
    QString base = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/stratex");
    return QStringLiteral("%1/profiles/%2-%3-%4x%5-seq%6")
        .arg(base, m_model->currentText(), m_gpu->currentText())
        .arg(m_nodes->value())
        .arg(m_gpusPerNode->currentText())
        .arg(m_seq->value());
}

void SynthesizeDialog::updateSummary()
{
    if (!m_folderEdited)
        m_folder->setText(defaultFolder());
    const ModelDescription model = modelPreset(m_model->currentText().toStdString());
    m_summary->setText(tr("%1: %2 B parameters, %3 layers, hidden %4, %5 key/value heads of %6, "
                          "on %7 GPUs.")
                           .arg(m_model->currentText(), QLocale::c().toString(modelParameters(model) / 1e9, 'f', 2))
                           .arg(model.num_layers)
                           .arg(model.hidden_size)
                           .arg(model.num_kv_heads)
                           .arg(model.num_heads)
                           .arg(m_nodes->value() * m_gpusPerNode->currentText().toInt()));
}

QString SynthesizeDialog::folder() const
{
    return m_folder->text().trimmed();
}

bool SynthesizeDialog::synthesize(QString* error)
{
    try {
        ModelDescription model = modelPreset(m_model->currentText().toStdString());
        model.seq_length = m_seq->value();
        ClusterDescription cluster;
        cluster.gpu = gpuPreset(m_gpu->currentText().toStdString());
        cluster.num_nodes = m_nodes->value();
        cluster.gpus_per_node = m_gpusPerNode->currentText().toInt();
        SynthesisOptions options;
        options.precision = m_precision->currentText().toStdString();
        writeProfileFiles(folder().toStdString(), synthesizeProfiles(model, cluster, options));
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
