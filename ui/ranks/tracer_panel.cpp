// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/tracer_panel.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
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
#include <QVBoxLayout>

#include "ui/ranks/batch_config_model.h"

#include "controllers/ranks_controller.h"

namespace stratex::ui {

using namespace stratex::ranks;

namespace {
const QString kDefaultCommand = QStringLiteral(
    "python pretrain_gpt.py --is-scaling-mode --fake-world-size {world} --fake-wrank {rank} --fake-pp {pp} "
    "--fake-tp {tp} --fake-dp {dp}");
}

TracerPanel::TracerPanel(controllers::RanksController* controller, QWidget* parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_model(new BatchConfigModel(this))
    , m_table(new QTableView(this))
    , m_modelName(new QLineEdit(QStringLiteral("485"), this))
    , m_microBatchSize(new QSpinBox(this))
    , m_microBatches(new QSpinBox(this))
    , m_globalBatch(new QSpinBox(this))
    , m_moe(new QCheckBox(tr("MoE: one rank per (stage, expert-parallel rank)"), this))
    , m_command(new QLineEdit(kDefaultCommand, this))
    , m_summary(new QLabel(this))
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
    auto* showInGrid = new QPushButton(tr("Show in Grid"), this);
    showInGrid->setObjectName(QStringLiteral("showConfigInGridButton"));
    showInGrid->setToolTip(tr("Lay out the selected config in the rank grid (its world size, PP and TP go to the "
                              "parallel configuration; also a double-click on its DP or ranks)"));
    auto* load = new QPushButton(tr("Load…"), this);
    load->setToolTip(tr("Load \"WORLD_SIZE PP TP\" lines from a text file"));
    m_undoLoad = new QPushButton(tr("Undo load"), this);
    m_undoLoad->setObjectName(QStringLiteral("undoLoadButton"));
    m_undoLoad->setShortcut(QKeySequence::Undo);
    m_undoLoad->setEnabled(false);
    m_undoLoad->setToolTip(tr("Put back the configs the last loaded file replaced (Ctrl+Z)"));
    auto* exportButton = new QPushButton(tr("Export tracer script…"), this);
    exportButton->setObjectName(QStringLiteral("exportScriptButton"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(showInGrid);
    buttons->addWidget(load);
    buttons->addWidget(m_undoLoad);
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

    // Edits go to the controller, which plans after a quiet period.
    connect(m_model, &BatchConfigModel::configsChanged, this, [this] {
        m_controller->setBatchConfigs(m_model->configs());
        // An edit after a load: undoing the load would now throw the edit away.
        if (!m_loading) {
            m_beforeLoad.reset();
            m_undoLoad->setEnabled(false);
        }
    });
    connect(m_undoLoad, &QPushButton::clicked, this, &TracerPanel::undoLoad);
    connect(m_modelName, &QLineEdit::textChanged, this, &TracerPanel::applySettings);
    for (QSpinBox* box : { m_microBatchSize, m_microBatches, m_globalBatch })
        connect(box, &QSpinBox::valueChanged, this, &TracerPanel::applySettings);
    connect(m_moe, &QCheckBox::toggled, this, &TracerPanel::applySettings);
    connect(add, &QPushButton::clicked, this, &TracerPanel::addConfig);
    connect(remove, &QPushButton::clicked, this, &TracerPanel::removeSelectedConfigs);
    connect(load, &QPushButton::clicked, this, &TracerPanel::loadBatchFileWithDialog);
    connect(exportButton, &QPushButton::clicked, this, &TracerPanel::exportScriptWithDialog);
    // A double-click on WORLD_SIZE, PP or TP edits the cell; only one on the plan's columns (or
    // Show in Grid) shows the config in the grid. Issue 24, finding 10: the double-click that opened
    // the editor also sent the row's previous values to the layout form.
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        if (!(index.flags() & Qt::ItemIsEditable))
            showConfigInGrid(index.row());
    });
    connect(showInGrid, &QPushButton::clicked, this, [this] {
        if (const QModelIndex current = m_table->currentIndex(); current.isValid())
            showConfigInGrid(current.row());
    });

    using controllers::RanksController;
    connect(m_controller, &RanksController::tracerPlansReady, this, &TracerPanel::showPlans);
    connect(m_controller, &RanksController::tracerPlanningFailed, this,
        [this](const QString& message) { m_summary->setText(tr("Planning failed: %1").arg(message)); });
    connect(m_controller, &RanksController::batchConfigsLoaded, this, [this](const QString& path) {
        m_loading = true;
        m_model->setConfigs(m_controller->batchConfigs());
        m_loading = false;
        Q_EMIT statusMessage(tr("Loaded %1 batch configs from %2").arg(m_model->rowCount()).arg(path));
        Q_EMIT batchFileLoaded(path);
    });
    connect(m_controller, &RanksController::scriptExported, this,
        [this](const QString& written) { Q_EMIT statusMessage(tr("Wrote tracer script %1").arg(written)); });
    connect(m_controller, &RanksController::scriptExportFailed, this, [this](const QString& message) {
        Q_EMIT statusMessage(tr("Tracer script not written: %1").arg(message));
        // Asynchronous (open(), not exec()): the GUI never waits in a nested event loop.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Export tracer script"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    applySettings();
}

TracerPanel::~TracerPanel() = default;

ranks::TracerSettings TracerPanel::settings() const
{
    return m_controller->tracerSettings();
}

void TracerPanel::applySettings()
{
    TracerSettings settings;
    settings.model = m_modelName->text().trimmed().toStdString();
    settings.selection = m_moe->isChecked() ? TraceSelection::Moe : TraceSelection::Dense;
    settings.microBatchSize = m_microBatchSize->value();
    settings.microBatches = m_microBatches->value();
    settings.globalBatch = m_globalBatch->value();
    m_controller->setTracerSettings(settings);
}

void TracerPanel::setSettings(const TracerSettings& settings)
{
    m_modelName->setText(QString::fromStdString(settings.model));
    m_microBatchSize->setValue(settings.microBatchSize);
    m_microBatches->setValue(settings.microBatches);
    m_globalBatch->setValue(settings.globalBatch);
    m_moe->setChecked(settings.selection == TraceSelection::Moe);
    applySettings();
}

QString TracerPanel::commandTemplate() const
{
    return m_command->text();
}

void TracerPanel::setCommandTemplate(const QString& command)
{
    m_command->setText(command);
}

void TracerPanel::showPlans()
{
    m_model->setPlans(m_controller->tracerPlans());
    if (m_model->configs().empty()) {
        m_summary->setText(tr("No batch configs: the tracer script falls back to the default 8192 2 2."));
        return;
    }
    const ranks::TracerSummary summary = m_controller->tracerSummary();
    m_summary->setText(tr("%1 of %2 configs valid: trace %3 ranks instead of %4 (%5 % fewer runs). Invalid configs are "
                          "skipped by the script.")
                           .arg(summary.valid)
                           .arg(m_controller->tracerPlans().size())
                           .arg(QLocale().toString(summary.selected_ranks), QLocale().toString(summary.original_ranks))
                           .arg(QLocale::c().toString(summary.saving_percent, 'f', 1)));
}

QString TracerPanel::summaryText() const
{
    return m_summary->text();
}

void TracerPanel::addConfig()
{
    BatchConfig config = defaultBatchConfig();
    const ParallelConfig& layout = m_controller->layout();
    if (layout.world > 0) {
        config.world = layout.world;
        config.pp = layout.pp;
        config.tp = layout.tp;
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
    std::vector<BatchConfig> configs;
    if (!controllers::RanksController::readBatchFile(path, &configs, error))
        return false;
    replaceWithLoaded(path, std::move(configs));
    return true;
}

void TracerPanel::replaceWithLoaded(const QString& path, std::vector<BatchConfig> configs)
{
    m_beforeLoad = m_model->configs();
    m_loadedFile = path;
    m_controller->setLoadedBatchConfigs(path, std::move(configs));
    m_undoLoad->setEnabled(true);
    m_undoLoad->setToolTip(
        tr("Put back the %n batch config(s) %1 replaced (Ctrl+Z)", nullptr, int(m_beforeLoad->size()))
            .arg(QFileInfo(path).fileName()));
}

bool TracerPanel::openBatchFile(const QString& path, QString* error)
{
    std::vector<BatchConfig> configs;
    if (!controllers::RanksController::readBatchFile(path, &configs, error))
        return false;
    const std::vector<BatchConfig>& current = m_model->configs();
    // Nothing of the user's to lose: no configs, the tracer's default, or the file's own.
    const bool untouched = current.empty() || current == std::vector<BatchConfig> { defaultBatchConfig() };
    if (untouched || current == configs) {
        replaceWithLoaded(path, std::move(configs));
        return true;
    }
    if (auto* previous = findChild<QMessageBox*>(QStringLiteral("replaceBatchConfigsQuestion"))) {
        previous->setObjectName(QString());
        previous->close();
    }
    // Asynchronous (open(), not exec()): the GUI never waits in a nested event loop.
    auto* box = new QMessageBox(QMessageBox::Question, tr("Open batch configs"),
        tr("Replace the %n batch config(s) in the table with the %1 of %2?", nullptr, int(current.size()))
            .arg(configs.size())
            .arg(QFileInfo(path).fileName()),
        QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("replaceBatchConfigsQuestion"));
    box->setInformativeText(tr("Undo load (Ctrl+Z) puts the table back afterwards."));
    QPushButton* replace = box->addButton(tr("Replace"), QMessageBox::AcceptRole);
    replace->setObjectName(QStringLiteral("replaceConfigs"));
    QPushButton* cancel = box->addButton(QMessageBox::Cancel);
    // Cancel is the default: Enter must not throw the user's configs away.
    box->setDefaultButton(cancel);
    box->setEscapeButton(cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::buttonClicked, this,
        [this, replace, path, configs = std::move(configs)](QAbstractButton* button) mutable {
            if (button == replace)
                replaceWithLoaded(path, std::move(configs));
            else
                Q_EMIT statusMessage(tr("%1 not loaded: the batch configs stay").arg(path));
        });
    box->open();
    return true;
}

bool TracerPanel::undoLoad()
{
    if (!m_beforeLoad)
        return false;
    std::vector<BatchConfig> configs = std::move(*m_beforeLoad);
    m_beforeLoad.reset();
    m_undoLoad->setEnabled(false);
    m_loading = true;
    m_model->setConfigs(std::move(configs));
    m_loading = false;
    Q_EMIT statusMessage(tr("Load of %1 undone: %2 batch configs back").arg(m_loadedFile).arg(m_model->rowCount()));
    return true;
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
    m_controller->exportScript(path, m_command->text());
}

void TracerPanel::exportScriptWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export tracer script"),
        QStringLiteral("update_pretrain_gpt.sh"), tr("Shell scripts (*.sh);;All files (*)"));
    if (path.isEmpty())
        return;
    exportScript(path);
}

void TracerPanel::showConfigInGrid(int row)
{
    // The config as it is now, not as last planned: a plan may be of the values before an edit.
    const auto& configs = m_model->configs();
    const auto& plans = m_model->plans();
    if (row < 0 || std::size_t(row) >= configs.size() || std::size_t(row) >= plans.size())
        return;
    const BatchConfig& config = configs[std::size_t(row)];
    const ranks::TraceConfigPlan& plan = plans[std::size_t(row)];
    if (!plan.valid || plan.input.world != config.world || plan.input.pp != config.pp || plan.input.tp != config.tp)
        return;
    Q_EMIT configActivated(config.world, config.pp, config.tp);
}

} // namespace stratex::ui
