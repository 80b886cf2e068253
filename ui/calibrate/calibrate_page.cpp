// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/calibrate/calibrate_page.h"

#include <algorithm>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/hardware/cluster_description.h"
#include "core/hardware/efficiency.h"
#include "ui/calibrate/calibration_run_model.h"
#include "ui/calibrate/calibration_scatter_chart.h"
#include "ui/common/long_work_question.h"
#include "ui/common/path_line_edit.h"
#include "ui/common/plan_table_view.h"

#include "jobs/job_runner.h"

namespace stratex::ui {

namespace {

constexpr int kPathRole = Qt::UserRole;
constexpr int kNameRole = Qt::UserRole + 1;

QString efficiencyValue(double value)
{
    return QLocale::c().toString(value, 'g', 4);
}

QString parameterToolTip(const hardware::EfficiencyField& field)
{
    return QObject::tr("%1: \"%2\" in a cluster file, %3 for stratex-cli calibrate --fit")
        .arg(QString::fromUtf8(field.label), QString::fromLatin1(field.key), QString::fromLatin1(field.name));
}

} // namespace

CalibratePage::CalibratePage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::CalibrationController(this))
    , m_runList(new QListWidget(this))
    , m_startCluster(new PathLineEdit(this))
    , m_gpu(new QComboBox(this))
    , m_gpusPerNode(new QSpinBox(this))
    , m_warmup(new QSpinBox(this))
    , m_fit(new QListWidget(this))
    , m_calibrate(new QPushButton(tr("Calibrate"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_save(new QPushButton(tr("Save Calibrated Cluster…"), this))
    , m_summary(new QLabel(this))
    , m_whatToBring(new QLabel(this))
    , m_chart(new CalibrationScatterChart(this))
    , m_runModel(new CalibrationRunModel(this))
    , m_runTable(new QTableView(this))
    , m_parameters(new QTableWidget(this))
    , m_saveAction(new QAction(tr("Save Calibrated Cluster…"), this))
{
    // The form: what was measured, on which cluster, and what to fit.
    m_runList->setObjectName(QStringLiteral("calibrationRuns"));
    m_runList->setAccessibleName(tr("Measured runs"));
    m_runList->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_runList->setToolTip(tr("Run records (resources/reference-runs format) or folders of them, Megatron-LM logs "
                             "with their argument dump, PyTorch-profiler Chrome traces of one iteration"));
    auto* addFiles = new QPushButton(tr("Add Files…"), this);
    auto* addFolder = new QPushButton(tr("Add Folder…"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    auto* runButtons = new QHBoxLayout;
    runButtons->addWidget(addFiles);
    runButtons->addWidget(addFolder);
    runButtons->addWidget(remove);
    auto* runsBox = new QGroupBox(tr("Measured runs"), this);
    auto* runsLayout = new QVBoxLayout(runsBox);
    // What to bring stays on the page (issue 24, finding 10: it was a tooltip, then a summary that
    // the first result replaced); its run count follows the checked parameters.
    m_whatToBring->setObjectName(QStringLiteral("whatToBring"));
    m_whatToBring->setWordWrap(true);
    m_whatToBring->setTextInteractionFlags(Qt::TextSelectableByMouse);
    runsLayout->addWidget(m_whatToBring);
    runsLayout->addWidget(m_runList);
    runsLayout->addLayout(runButtons);

    m_startCluster->setObjectName(QStringLiteral("startCluster"));
    m_startCluster->setAccessibleName(tr("Cluster to start from"));
    m_gpu->setAccessibleName(tr("GPU of logs and traces"));
    m_gpusPerNode->setAccessibleName(tr("GPUs per node"));
    m_warmup->setAccessibleName(tr("Warm-up iterations"));
    m_startCluster->setPlaceholderText(tr("the runs' cluster"));
    m_startCluster->setToolTip(tr("A cluster file to start from (its efficiencies, or its GPU preset's); empty: the "
                                  "first run's cluster"));
    auto* browseCluster = new QPushButton(tr("Browse…"), this);
    auto* clusterRow = new QHBoxLayout;
    clusterRow->addWidget(m_startCluster, 1);
    clusterRow->addWidget(browseCluster);
    m_gpu->setObjectName(QStringLiteral("calibrationGpu"));
    m_gpu->addItem(tr("from the runs (records, traces)"), QString());
    for (const hardware::GpuDescription& gpu : hardware::gpuPresets())
        m_gpu->addItem(QString::fromStdString(gpu.name), QString::fromStdString(gpu.name));
    m_gpu->setToolTip(tr("The GPU of runs given as Megatron logs or traces: a log does not name it"));
    m_gpusPerNode->setRange(1, 64);
    m_gpusPerNode->setValue(8);
    m_gpusPerNode->setToolTip(tr("GPUs per node of runs given as Megatron logs or traces"));
    m_warmup->setRange(0, 1000);
    m_warmup->setValue(2);
    m_warmup->setToolTip(tr("Megatron logs: iterations up to this one are warm-up and not averaged"));
    auto* clusterBox = new QGroupBox(tr("Cluster"), this);
    auto* clusterForm = new QFormLayout(clusterBox);
    clusterForm->addRow(tr("Start from:"), clusterRow);
    clusterForm->addRow(tr("GPU (logs, traces):"), m_gpu);
    clusterForm->addRow(tr("GPUs per node:"), m_gpusPerNode);
    clusterForm->addRow(tr("Warm-up iterations:"), m_warmup);

    m_fit->setObjectName(QStringLiteral("fitParameters"));
    m_fit->setAccessibleName(tr("Parameters to fit"));
    for (const hardware::EfficiencyField& field : hardware::efficiencyFields()) {
        // The person's name and unit; the identifiers (cluster file key, --fit name) in the tooltip.
        auto* item = new QListWidgetItem(QString::fromUtf8(field.label), m_fit);
        item->setToolTip(parameterToolTip(field));
        item->setData(kNameRole, QString::fromLatin1(field.name));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    setFitParameters(runs::defaultCalibrationParameters());
    auto* fitBox = new QGroupBox(tr("Fit"), this);
    auto* fitLayout = new QVBoxLayout(fitBox);
    fitLayout->addWidget(m_fit);

    m_calibrate->setObjectName(QStringLiteral("calibrateButton"));
    m_calibrate->setDefault(true);
    m_cancel->setEnabled(false);
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_calibrate);
    actions->addWidget(m_cancel);
    actions->addStretch();

    auto* form = new QWidget(this);
    auto* formLayout = new QVBoxLayout(form);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addWidget(runsBox, 2);
    formLayout->addWidget(clusterBox);
    formLayout->addWidget(fitBox, 3);
    formLayout->addLayout(actions);

    // The results: the chart, then each run's numbers beside the parameters.
    m_summary->setObjectName(QStringLiteral("calibrationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setText(tr("Not calibrated yet. Add the measured runs (what to bring: on the left) and press "
                          "Calibrate: the cost model's efficiencies are fitted to them by least squares, as "
                          "<tt>stratex-cli calibrate</tt> does."));
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_runModel);
    proxy->setSortRole(Qt::UserRole);
    setUpPlanTable(m_runTable, proxy);
    m_runTable->setObjectName(QStringLiteral("calibrationRunTable"));
    m_runTable->setAccessibleName(tr("Runs before and after the fit"));
    m_parameters->setObjectName(QStringLiteral("calibrationParameters"));
    m_parameters->setAccessibleName(tr("Fitted parameters"));
    m_parameters->setColumnCount(3);
    m_parameters->setHorizontalHeaderLabels({ tr("Parameter"), tr("Before"), tr("After") });
    m_parameters->verticalHeader()->hide();
    m_parameters->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The values always in view; a long name elides (its tooltip has it whole).
    m_parameters->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_parameters->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_parameters->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_parameters->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_save->setObjectName(QStringLiteral("saveCalibratedCluster"));
    m_save->setEnabled(false);
    m_saveAction->setEnabled(false);

    // The chart with the parameters beside it (a few rows), the runs' table below at full width.
    m_parameters->setFixedWidth(360);
    auto* top = new QWidget(this);
    auto* topLayout = new QHBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_chart, 1);
    topLayout->addWidget(m_parameters);
    auto* saveRow = new QHBoxLayout;
    saveRow->addStretch();
    saveRow->addWidget(m_save);
    auto* results = new QWidget(this);
    auto* resultsLayout = new QVBoxLayout(results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_summary);
    auto* vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(top);
    vertical->addWidget(m_runTable);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);
    vertical->setSizes({ 460, 260 });
    resultsLayout->addWidget(vertical, 1);
    resultsLayout->addLayout(saveRow);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(form);
    splitter->addWidget(results);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({ 340, 900 });
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(addFiles, &QPushButton::clicked, this, &CalibratePage::addRunFilesWithDialog);
    connect(addFolder, &QPushButton::clicked, this, &CalibratePage::addRunFolderWithDialog);
    connect(remove, &QPushButton::clicked, this, &CalibratePage::removeSelectedRuns);
    connect(browseCluster, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Start From Cluster"), m_startCluster->text(), tr("Cluster files (*.json);;All Files (*)"));
        if (!path.isEmpty())
            m_startCluster->setText(path);
    });
    connect(m_calibrate, &QPushButton::clicked, this, &CalibratePage::calibrate);
    connect(m_cancel, &QPushButton::clicked, m_controller, &controllers::CalibrationController::cancel);
    connect(m_save, &QPushButton::clicked, this, &CalibratePage::saveClusterWithDialog);
    connect(m_saveAction, &QAction::triggered, this, &CalibratePage::saveClusterWithDialog);
    connect(m_controller, &controllers::CalibrationController::calibrationFinished, this, &CalibratePage::showOutcome);
    connect(m_controller, &controllers::CalibrationController::calibrationFailed, this, &CalibratePage::showFailure);
    connect(m_controller, &controllers::CalibrationController::calibrationCancelled, this,
        [this] { Q_EMIT statusMessage(tr("Calibration cancelled")); });
    // Beyond the work budget the CLI refuses; here the user decides (the same estimate, from core).
    connect(m_controller, &controllers::CalibrationController::workBudgetExceeded, this,
        [this](const WorkEstimate& estimate) {
            askToRunLongWork(this, tr("Calibrate"), estimate, [this] {
                controllers::CalibrationInputs in = inputs();
                in.lift_work_budget = true;
                m_controller->run(std::move(in));
            });
        });
    connect(m_controller->runner(), &jobs::JobRunner::runningChanged, this, &CalibratePage::updateButtons);
    connect(m_runList->model(), &QAbstractItemModel::rowsInserted, this, &CalibratePage::updateButtons);
    connect(m_runList->model(), &QAbstractItemModel::rowsRemoved, this, &CalibratePage::updateButtons);
    connect(m_fit, &QListWidget::itemChanged, this, &CalibratePage::updateWhatToBring);
    updateButtons();
    updateWhatToBring();
}

CalibratePage::~CalibratePage() = default;

QIcon CalibratePage::icon() const
{
    return QIcon(QStringLiteral(":/icons/calibrate.svg"));
}

QList<jobs::JobRunner*> CalibratePage::jobRunners() const
{
    return { m_controller->runner() };
}

QList<QAction*> CalibratePage::exportActions() const
{
    return { m_saveAction };
}

void CalibratePage::saveSettings(QSettings& settings) const
{
    settings.setValue(QStringLiteral("calibrate/gpu"), m_gpu->currentData());
    settings.setValue(QStringLiteral("calibrate/gpusPerNode"), m_gpusPerNode->value());
}

void CalibratePage::restoreSettings(QSettings& settings)
{
    const int gpu = m_gpu->findData(settings.value(QStringLiteral("calibrate/gpu")).toString());
    if (gpu >= 0)
        m_gpu->setCurrentIndex(gpu);
    m_gpusPerNode->setValue(settings.value(QStringLiteral("calibrate/gpusPerNode"), 8).toInt());
}

QString CalibratePage::summaryText() const
{
    return m_summary->text();
}

QString CalibratePage::whatToBringText() const
{
    return m_whatToBring->text();
}

void CalibratePage::updateWhatToBring()
{
    int checked = 0;
    for (int i = 0; i < m_fit->count(); ++i)
        checked += m_fit->item(i)->checkState() == Qt::Checked ? 1 : 0;
    // runs::calibrationSupport's rule: a fit needs at least one measurement per parameter, and
    // only runs held out of it (3 or more) check it.
    const int heldOut = runs::CalibrationSupport {}.held_out_runs_needed;
    const int toCheck = std::max(checked + 1, heldOut);
    m_whatToBring->setText(
        tr("<b>What to bring:</b> measured runs of one cluster, at least %n for the %1 checked parameter(s) "
           "and %2 or more, of different layouts or model sizes, to check the fit on runs held out of it. "
           "Megatron-LM logs with their argument dump, run records (as in resources/reference-runs) or "
           "PyTorch-profiler traces of one iteration. A sample: Add Folder… on resources/reference-runs.",
            nullptr, std::max(checked, 1))
            .arg(checked)
            .arg(toCheck));
}

void CalibratePage::addRunPaths(const QStringList& paths)
{
    for (const QString& path : paths) {
        bool present = false;
        for (int i = 0; i < m_runList->count(); ++i)
            present = present || m_runList->item(i)->data(kPathRole).toString() == path;
        if (present)
            continue;
        const QFileInfo info(path);
        auto* item
            = new QListWidgetItem(info.isDir() ? info.fileName() + QLatin1Char('/') : info.fileName(), m_runList);
        item->setData(kPathRole, path);
        item->setToolTip(path);
    }
}

void CalibratePage::setFitParameters(const std::vector<std::string>& names)
{
    for (int i = 0; i < m_fit->count(); ++i) {
        QListWidgetItem* item = m_fit->item(i);
        const std::string name = item->data(kNameRole).toString().toStdString();
        item->setCheckState(std::ranges::find(names, name) != names.end() ? Qt::Checked : Qt::Unchecked);
    }
}

controllers::CalibrationInputs CalibratePage::inputs() const
{
    controllers::CalibrationInputs in;
    for (int i = 0; i < m_runList->count(); ++i)
        in.run_paths << m_runList->item(i)->data(kPathRole).toString();
    in.cluster_file = m_startCluster->text().trimmed();
    in.gpu = m_gpu->currentData().toString();
    in.gpus_per_node = m_gpusPerNode->value();
    in.warmup_iterations = m_warmup->value();
    for (int i = 0; i < m_fit->count(); ++i) {
        if (m_fit->item(i)->checkState() == Qt::Checked)
            in.parameters.push_back(m_fit->item(i)->data(kNameRole).toString().toStdString());
    }
    return in;
}

void CalibratePage::calibrate()
{
    controllers::CalibrationInputs in = inputs();
    if (in.run_paths.isEmpty()) {
        showFailure(tr("Add at least one measured run first."));
        return;
    }
    if (in.parameters.empty()) {
        showFailure(tr("Check at least one parameter to fit."));
        return;
    }
    m_summary->setText(tr("Calibrating on %n run file(s)…", nullptr, int(in.run_paths.size())));
    m_controller->run(std::move(in));
}

void CalibratePage::addRunFilesWithDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Add Measured Runs"), QString(), tr("Measured runs (*.json *.log *.txt *.out);;All Files (*)"));
    addRunPaths(paths);
}

void CalibratePage::addRunFolderWithDialog()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Add a Folder of Run Records"));
    if (!path.isEmpty())
        addRunPaths({ path });
}

void CalibratePage::removeSelectedRuns()
{
    qDeleteAll(m_runList->selectedItems());
}

void CalibratePage::updateButtons()
{
    const bool running = m_controller->runner()->isRunning();
    m_calibrate->setEnabled(!running && m_runList->count() > 0);
    m_cancel->setEnabled(running);
    const auto outcome = m_controller->outcome();
    // An under-determined fit is not offered for saving (runs::calibrationSupport).
    const bool saveable = outcome && !outcome->support.underDetermined();
    m_save->setEnabled(saveable && !running);
    m_saveAction->setEnabled(saveable && !running);
    const QString why = outcome && !saveable ? QString::fromStdString(outcome->support.warning()) : QString();
    m_save->setToolTip(why.isEmpty() ? tr("Write the calibrated cluster file (as stratex-cli calibrate --out)") : why);
}

void CalibratePage::showOutcome(const std::shared_ptr<const controllers::CalibrationOutcome>& outcome)
{
    const runs::ClusterCalibration& c = outcome->calibration;
    const runs::CalibrationResult& r = c.result;
    m_chart->setErrors(r.before, r.after);
    m_runModel->setOutcome(outcome);
    m_runTable->sortByColumn(-1, Qt::AscendingOrder); // the runs' order

    m_parameters->setRowCount(int(r.parameters.size()));
    for (int row = 0; row < int(r.parameters.size()); ++row) {
        const hardware::EfficiencyField& field = *hardware::findEfficiencyField(r.parameters[std::size_t(row)]);
        auto* name = new QTableWidgetItem(QString::fromUtf8(field.label));
        name->setToolTip(parameterToolTip(field));
        auto* before = new QTableWidgetItem(efficiencyValue(r.initial.*field.member));
        auto* after = new QTableWidgetItem(efficiencyValue(r.fitted.*field.member));
        for (QTableWidgetItem* number : { before, after })
            number->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_parameters->setItem(row, 0, name);
        m_parameters->setItem(row, 1, before);
        m_parameters->setItem(row, 2, after);
    }

    const QLocale l = QLocale::c();
    QString text = tr("<b>%1 run(s) on %2</b>: mean absolute throughput error %3 % before the fit, <b>%4 %</b> after")
                       .arg(r.before.size())
                       .arg(QString::fromStdString(c.cluster.gpu.name))
                       .arg(l.toString(runs::meanAbsoluteThroughputError(r.before) * 100, 'f', 1))
                       .arg(l.toString(runs::meanAbsoluteThroughputError(r.after) * 100, 'f', 1));
    if (c.hasLeftOut())
        text += tr(", <b>%1 %</b> on runs held out of the fit (each predicted by a fit on the others: what the "
                   "calibration predicts)")
                    .arg(l.toString(runs::meanAbsoluteThroughputError(c.left_out) * 100, 'f', 1));
    else
        text += tr("; no held-out error (it needs %1 runs or more)").arg(outcome->support.held_out_runs_needed);
    text += tr(" (%1 Levenberg–Marquardt iterations%2).")
                .arg(r.iterations)
                .arg(r.converged ? QString() : tr(", not converged"));
    // The fit's degrees of freedom, where they cannot carry it: said first, and Save is disabled.
    if (const std::string warning = outcome->support.warning(); !warning.empty())
        text = tr("<b>%1</b><br>%2")
                   .arg(outcome->support.underDetermined() ? tr("Not a calibration:") : tr("Nothing checks this fit:"),
                       QString::fromStdString(warning).toHtmlEscaped())
            + QStringLiteral("<br>") + text;
    m_summary->setText(text);
    updateButtons();
    Q_EMIT statusMessage(tr("Calibrated on %n run(s)", nullptr, int(r.before.size())));
}

void CalibratePage::showFailure(const QString& message)
{
    m_summary->setText(tr("<b>Not calibrated:</b> %1").arg(message.toHtmlEscaped()));
    Q_EMIT statusMessage(message);
}

bool CalibratePage::saveCluster(const QString& path, QString* error) const
{
    return m_controller->saveCluster(path, error);
}

void CalibratePage::saveClusterWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Calibrated Cluster"),
        QDir::home().filePath(QStringLiteral("cluster.json")), tr("Cluster files (*.json);;All Files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveCluster(path, &error))
        QMessageBox::warning(this, tr("Save Calibrated Cluster"), error);
    else
        Q_EMIT statusMessage(tr("Wrote %1").arg(path));
}

} // namespace stratex::ui
