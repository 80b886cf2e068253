// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/tracer_panel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/export/tracer_script.h"
#include "ui/ranks/batch_config_model.h"

#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::ranks;

namespace {
const QString kDefaultCommand = QStringLiteral(
    "python pretrain_gpt.py --is-scaling-mode --fake-world-size {world} --fake-wrank {rank} --fake-pp {pp} "
    "--fake-tp {tp} --fake-dp {dp}");
}

TracerPanel::TracerPanel(QWidget* parent)
    : QWidget(parent)
    , m_model(new BatchConfigModel(this))
    , m_table(new QTableView(this))
    , m_modelName(new QLineEdit(QStringLiteral("485"), this))
    , m_microBatchSize(new QSpinBox(this))
    , m_microBatches(new QSpinBox(this))
    , m_globalBatch(new QSpinBox(this))
    , m_moe(new QCheckBox(tr("MoE: one rank per (stage, expert-parallel rank)"), this))
    , m_command(new QLineEdit(kDefaultCommand, this))
    , m_summary(new QLabel(this))
    , m_debounce(new QTimer(this))
    , m_runner(new jobs::JobRunner(this))
    , m_exportRunner(new jobs::JobRunner(this))
{
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("batchConfigTable"));
    m_table->setAccessibleName(tr("Tracer batch configs"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setSectionResizeMode(BatchConfigModel::StatusColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(BatchConfigModel::RanksColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);

    m_modelName->setObjectName(QStringLiteral("tracerModelName"));
    m_modelName->setAccessibleName(tr("Tracer model name"));
    m_microBatchSize->setAccessibleName(tr("Micro-batch size"));
    m_microBatches->setAccessibleName(tr("Micro-batches per step"));
    m_globalBatch->setAccessibleName(tr("Global batch"));
    m_modelName->setToolTip(tr("Model name used in the log directory names (SIM_GPT_<model>_Config<i>_…)"));
    m_microBatchSize->setRange(1, 1 << 20);
    m_microBatchSize->setToolTip(tr("Micro-batch size (MICROB_SIZE)"));
    m_microBatches->setRange(0, 1 << 20);
    m_microBatches->setSpecialValueText(tr("auto"));
    m_microBatches->setToolTip(tr("Micro-batches per step; auto: global batch / (micro-batch size × DP), or 1"));
    m_globalBatch->setRange(0, 1 << 30);
    m_globalBatch->setSpecialValueText(tr("auto"));
    m_globalBatch->setToolTip(tr("Global batch; auto: micro-batches × micro-batch size × DP"));
    m_command->setObjectName(QStringLiteral("tracerCommand"));
    m_command->setAccessibleName(tr("Command per rank"));
    m_command->setToolTip(tr("Command the script runs per traced rank. Placeholders: {rank} {world} {pp} {tp} {dp} "
                             "{cp} {ep} {model} {config} {log_dir} {micro_batches} {micro_batch_size} {global_batch}"));
    m_summary->setObjectName(QStringLiteral("tracerSummary"));
    m_summary->setWordWrap(true);

    // Two short rows rather than one long one: the page must fit a 1280 px window.
    auto* settingsRow = new QHBoxLayout;
    settingsRow->addWidget(new QLabel(tr("Model"), this));
    settingsRow->addWidget(m_modelName);
    settingsRow->addWidget(new QLabel(tr("Micro-batch size"), this));
    settingsRow->addWidget(m_microBatchSize);
    settingsRow->addStretch();
    auto* batchRow = new QHBoxLayout;
    batchRow->addWidget(new QLabel(tr("Micro-batches"), this));
    batchRow->addWidget(m_microBatches);
    batchRow->addWidget(new QLabel(tr("Global batch"), this));
    batchRow->addWidget(m_globalBatch);
    batchRow->addWidget(m_moe);
    batchRow->addStretch();

    auto* add = new QPushButton(tr("Add"), this);
    add->setObjectName(QStringLiteral("addConfigButton"));
    auto* remove = new QPushButton(tr("Remove"), this);
    auto* load = new QPushButton(tr("Load…"), this);
    load->setToolTip(tr("Load \"WORLD_SIZE PP TP\" lines from a text file"));
    auto* exportButton = new QPushButton(tr("Export tracer script…"), this);
    exportButton->setObjectName(QStringLiteral("exportScriptButton"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(load);
    buttons->addStretch();
    buttons->addWidget(exportButton);
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(new QLabel(tr("Command per rank"), this));
    commandRow->addWidget(m_command, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(settingsRow);
    layout->addLayout(batchRow);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_summary);
    layout->addLayout(buttons);
    layout->addLayout(commandRow);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(120);
    connect(m_debounce, &QTimer::timeout, this, &TracerPanel::plan);
    connect(m_model, &BatchConfigModel::configsChanged, this, &TracerPanel::schedulePlanning);
    connect(m_modelName, &QLineEdit::textChanged, this, &TracerPanel::schedulePlanning);
    for (QSpinBox* box : { m_microBatchSize, m_microBatches, m_globalBatch })
        connect(box, &QSpinBox::valueChanged, this, &TracerPanel::schedulePlanning);
    connect(m_moe, &QCheckBox::toggled, this, &TracerPanel::schedulePlanning);
    connect(add, &QPushButton::clicked, this, &TracerPanel::addConfig);
    connect(remove, &QPushButton::clicked, this, &TracerPanel::removeSelectedConfigs);
    connect(load, &QPushButton::clicked, this, &TracerPanel::loadBatchFileWithDialog);
    connect(exportButton, &QPushButton::clicked, this, &TracerPanel::exportScriptWithDialog);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const auto& plans = m_model->plans();
        if (std::size_t(index.row()) < plans.size() && plans[std::size_t(index.row())].valid) {
            const BatchConfig& input = plans[std::size_t(index.row())].input;
            Q_EMIT configActivated(input.world, input.pp, input.tp);
        }
    });
    connect(m_runner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { m_summary->setText(tr("Planning failed: %1").arg(message)); });
    connect(m_exportRunner, &jobs::JobRunner::failed, this, [this](const QString& message) {
        Q_EMIT exportFailed(message);
        Q_EMIT statusMessage(tr("Tracer script not written: %1").arg(message));
        // Asynchronous (open(), not exec()): the GUI never waits in a nested event loop.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Export tracer script"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

TracerPanel::~TracerPanel() = default;

void TracerPanel::setLayout(const ParallelConfig& layout)
{
    m_layout = layout;
    schedulePlanning();
}

TracerSettings TracerPanel::settings() const
{
    TracerSettings settings;
    settings.model = m_modelName->text().trimmed().toStdString();
    settings.cp = m_layout.cp;
    settings.ep = m_layout.ep;
    settings.etp = m_layout.etp;
    settings.order = m_layout.order;
    settings.gpusPerNode = m_layout.gpusPerNode;
    settings.selection = m_moe->isChecked() ? TraceSelection::Moe : TraceSelection::Dense;
    settings.microBatchSize = m_microBatchSize->value();
    settings.microBatches = m_microBatches->value();
    settings.globalBatch = m_globalBatch->value();
    return settings;
}

void TracerPanel::setSettings(const TracerSettings& settings)
{
    m_modelName->setText(QString::fromStdString(settings.model));
    m_microBatchSize->setValue(settings.microBatchSize);
    m_microBatches->setValue(settings.microBatches);
    m_globalBatch->setValue(settings.globalBatch);
    m_moe->setChecked(settings.selection == TraceSelection::Moe);
}

QString TracerPanel::commandTemplate() const
{
    return m_command->text();
}

void TracerPanel::setCommandTemplate(const QString& command)
{
    m_command->setText(command);
}

bool TracerPanel::hasPendingWork() const
{
    return m_debounce->isActive();
}

void TracerPanel::schedulePlanning()
{
    m_debounce->start();
}

void TracerPanel::plan()
{
    std::vector<BatchConfig> configs = m_model->configs();
    const TracerSettings settings = this->settings();
    m_runner->start<std::vector<TraceConfigPlan>>(
        tr("Planning tracer ranks"),
        [configs = std::move(configs), settings](ProgressSink& progress) {
            std::vector<TraceConfigPlan> plans;
            plans.reserve(configs.size());
            for (std::size_t i = 0; i < configs.size(); ++i) {
                progress.throwIfCancelled();
                plans.push_back(planTraceConfig(int(i) + 1, configs[i], settings));
                progress.report(double(i + 1) / double(configs.size()), "planning tracer ranks");
            }
            return plans;
        },
        [this](std::vector<TraceConfigPlan> plans) {
            m_model->setPlans(std::move(plans));
            updateSummary();
        });
}

QString TracerPanel::summaryText() const
{
    return m_summary->text();
}

void TracerPanel::updateSummary()
{
    const auto& plans = m_model->plans();
    if (m_model->configs().empty()) {
        m_summary->setText(tr("No batch configs: the tracer script falls back to the default 8192 2 2."));
        return;
    }
    int valid = 0;
    long long selected = 0;
    long long original = 0;
    for (const TraceConfigPlan& plan : plans) {
        if (!plan.valid)
            continue;
        ++valid;
        selected += static_cast<long long>(plan.ranks.size());
        original += plan.originalRanks;
    }
    const double saving = original > 0 ? 100.0 * (1.0 - double(selected) / double(original)) : 0.0;
    m_summary->setText(tr("%1 of %2 configs valid: trace %3 ranks instead of %4 (%5 % fewer runs). Invalid configs are "
                          "skipped by the script.")
                           .arg(valid)
                           .arg(plans.size())
                           .arg(QLocale().toString(selected), QLocale().toString(original))
                           .arg(QLocale::c().toString(saving, 'f', 1)));
}

void TracerPanel::addConfig()
{
    BatchConfig config = defaultBatchConfig();
    if (m_layout.world > 0) {
        config.world = m_layout.world;
        config.pp = m_layout.pp;
        config.tp = m_layout.tp;
        config.source
            = std::to_string(config.world) + " " + std::to_string(config.pp) + " " + std::to_string(config.tp);
    }
    m_model->appendConfig(config);
    m_table->selectRow(m_model->rowCount() - 1);
}

void TracerPanel::removeSelectedConfigs()
{
    QList<int> rows;
    for (const QModelIndex& index : m_table->selectionModel()->selectedRows())
        rows << index.row();
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int row : rows)
        m_model->removeRows(row, 1);
}

bool TracerPanel::loadBatchFile(const QString& path, QString* error)
{
    try {
        m_model->setConfigs(loadBatchConfigs(path.toStdString()));
        Q_EMIT statusMessage(tr("Loaded %1 batch configs from %2").arg(m_model->rowCount()).arg(path));
        return true;
    } catch (const Error& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

void TracerPanel::loadBatchFileWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load tracer batch configs"), QString(), tr("Batch configs (*.txt *.conf *.cfg);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadBatchFile(path, &error))
        QMessageBox::warning(this, tr("Load batch configs"), error);
}

void TracerPanel::exportScript(const QString& path)
{
    const std::vector<BatchConfig> configs = m_model->configs();
    const TracerSettings settings = this->settings();
    const std::string command = m_command->text().toStdString();
    const std::string file = path.toStdString();
    m_exportRunner->start<QString>(
        tr("Writing tracer script"),
        [configs, settings, command, file](ProgressSink&) {
            // Planned again here so the script matches the table exactly, including an empty
            // list's fallback to the default config.
            const std::vector<TraceConfigPlan> plans = planTracer(configs, settings);
            exporting::TracerScriptOptions options;
            options.commandTemplate = command;
            writeFileAtomically(file, exporting::tracerScript(plans, settings, options), FileMode::Executable);
            return QString::fromStdString(file);
        },
        [this](const QString& written) {
            Q_EMIT statusMessage(tr("Wrote tracer script %1").arg(written));
            Q_EMIT scriptExported(written);
        });
}

void TracerPanel::exportScriptWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export tracer script"),
        QStringLiteral("update_pretrain_gpt.sh"), tr("Shell scripts (*.sh);;All files (*)"));
    if (path.isEmpty())
        return;
    exportScript(path);
}

} // namespace stratex::ui
