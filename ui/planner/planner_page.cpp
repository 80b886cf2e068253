// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/planner/planner_page.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/planner/dynapipe_cost_model.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "ui/planner/mode_compare_chart.h"
#include "ui/planner/plan_compare_model.h"
#include "ui/planner/planner_form.h"

#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::planner;
using namespace stratex::sim;

struct PlannerPage::Inputs {
    std::shared_ptr<const LayerCostModel> prebuilt; // the search's Galvatron profile, if chosen
    QByteArray costModelJson;
    std::string costModelName;
    bool synthetic = true;
    SyntheticLengthSpec spec;
    std::string lengthsFile;
    PlannerConfig config;
    std::vector<int> batches;
    QString error; // set when the inputs could not be collected

    // Runs on the worker: parse the model (unless prebuilt) and draw or read the samples.
    std::shared_ptr<const LayerCostModel> model() const
    {
        if (prebuilt)
            return prebuilt;
        const JsonDocument document = JsonDocument::parse(
            std::string_view(costModelJson.constData(), std::size_t(costModelJson.size())), costModelName);
        return std::make_shared<const DynapipeCostModel>(DynapipeCostModel::fromJson(document.root()));
    }
    std::vector<Sample> samples(const LayerCostModel& model) const
    {
        if (synthetic)
            return generateSyntheticSamples(spec, model.architecture() == ModelArchitecture::EncoderDecoder);
        return loadSampleLengths(lengthsFile);
    }
};

namespace {

QString ms(double value)
{
    return QLocale::c().toString(value, 'f', value < 100 ? 2 : 1) + QStringLiteral(" ms");
}

QString recomputeLetters(const std::vector<RecomputeType>& perDevice)
{
    QString text;
    for (RecomputeType type : perDevice)
        text += type == RecomputeType::None    ? QLatin1Char('-')
            : type == RecomputeType::Selective ? QLatin1Char('s')
                                               : QLatin1Char('F');
    return text;
}

QString planLine(const QString& label, const PlanResult& plan)
{
    if (!plan.feasible)
        return QObject::tr("<b>%1</b>: no plan fits (%2)")
            .arg(label, QString::fromStdString(plan.infeasible_reason).toHtmlEscaped());
    const GroupPlan& group = plan.groups.front();
    double peak = 0;
    for (double mb : plan.peak_memory_mb_per_device)
        peak = std::max(peak, mb);
    return QObject::tr("<b>%1</b>: makespan %2 · planned in %3 (%4 simulations) · %5, %6 micro-batches, "
                       "%7 recompute start · peak %8 GB")
        .arg(label, ms(plan.makespan_ms), ms(plan.planning_time_ms))
        .arg(plan.candidates_simulated)
        .arg(QString::fromUtf8(scheduleName(group.schedule).data()))
        .arg(plan.global_microbatches())
        .arg(QString::fromUtf8(recomputeTypeName(group.base_recompute).data()),
            QLocale::c().toString(peak / 1000.0, 'f', 2));
}

} // namespace

PlannerPage::PlannerPage(QWidget* parent)
    : Page(parent)
    , m_form(new PlannerForm(this))
    , m_plan(new QPushButton(tr("Plan batch"), this))
    , m_compare(new QPushButton(tr("Compare modes"), this))
    , m_openTimeline(new QPushButton(tr("Open in Timeline"), this))
    , m_tabs(new QTabWidget(this))
    , m_chart(new ModeCompareChart(this))
    , m_compareModel(new PlanCompareModel(this))
    , m_compareTable(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_showMode(new QComboBox(this))
    , m_microbatches(new QTableWidget(this))
    , m_planRunner(new jobs::JobRunner(this))
    , m_compareRunner(new jobs::JobRunner(this))
    , m_exportCsv(new QAction(tr("Planner Mode Comparison (CSV)…"), this))
{
    m_plan->setObjectName(QStringLiteral("planButton"));
    m_plan->setToolTip(tr("Plan the whole batch in normal and in fast mode"));
    m_compare->setObjectName(QStringLiteral("compareButton"));
    m_compare->setToolTip(tr("Plan each compare batch in both modes and chart planning time and makespan"));
    m_openTimeline->setObjectName(QStringLiteral("openTimelineButton"));
    m_openTimeline->setEnabled(false);
    m_openTimeline->setToolTip(tr("Show the normal and the fast plan on the Timeline page, on one time axis"));
    m_summary->setObjectName(QStringLiteral("planSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setText(tr("Plan a batch to see the normal and the fast plan side by side."));
    m_showMode->addItems({ tr("normal plan"), tr("fast plan") });
    m_microbatches->setObjectName(QStringLiteral("microbatchTable"));
    m_microbatches->setColumnCount(6);
    m_microbatches->setHorizontalHeaderLabels({ tr("Order"), tr("Micro-batch"), tr("Samples"), tr("Padded length"),
        tr("Recompute per device"), tr("Estimated ms") });
    m_microbatches->horizontalHeader()->setStretchLastSection(true);
    m_microbatches->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_microbatches->setToolTip(tr("Recompute per device: - none, s selective, F full"));
    m_compareTable->setObjectName(QStringLiteral("compareTable"));
    m_compareTable->setModel(m_compareModel);
    m_compareTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_compareTable->horizontalHeader()->setStretchLastSection(true);
    m_compareTable->setAlternatingRowColors(true);

    auto* formScroll = new QScrollArea(this);
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    formScroll->setMinimumWidth(320);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_plan);
    buttons->addWidget(m_compare);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(formScroll, 1);
    leftLayout->addLayout(buttons);

    auto* compareTab = new QWidget(this);
    auto* compareLayout = new QVBoxLayout(compareTab);
    auto* exportButton = new QPushButton(tr("Export CSV…"), compareTab);
    compareLayout->addWidget(m_chart, 3);
    compareLayout->addWidget(m_compareTable, 2);
    auto* exportRow = new QHBoxLayout;
    exportRow->addStretch();
    exportRow->addWidget(exportButton);
    compareLayout->addLayout(exportRow);

    auto* planTab = new QWidget(this);
    auto* planLayout = new QVBoxLayout(planTab);
    auto* planRow = new QHBoxLayout;
    planRow->addWidget(new QLabel(tr("Micro-batches of the"), planTab));
    planRow->addWidget(m_showMode);
    planRow->addStretch();
    planRow->addWidget(m_openTimeline);
    planLayout->addWidget(m_summary);
    planLayout->addLayout(planRow);
    planLayout->addWidget(m_microbatches, 1);

    m_tabs->addTab(compareTab, tr("Fast vs normal"));
    m_tabs->addTab(planTab, tr("Plan"));
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(left);
    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_plan, &QPushButton::clicked, this, &PlannerPage::planBatch);
    connect(m_compare, &QPushButton::clicked, this, &PlannerPage::compareModes);
    connect(m_openTimeline, &QPushButton::clicked, this, &PlannerPage::openInTimeline);
    connect(m_showMode, &QComboBox::currentIndexChanged, this, &PlannerPage::showMicrobatches);
    connect(exportButton, &QPushButton::clicked, this, &PlannerPage::exportCompareCsvWithDialog);
    connect(m_exportCsv, &QAction::triggered, this, &PlannerPage::exportCompareCsvWithDialog);
    for (jobs::JobRunner* runner : { m_planRunner, m_compareRunner }) {
        connect(runner, &jobs::JobRunner::failed, this, [this](const QString& message) {
            m_summary->setText(tr("Planning failed: %1").arg(message.toHtmlEscaped()));
            Q_EMIT statusMessage(message);
        });
    }
}

PlannerPage::~PlannerPage() = default;

QIcon PlannerPage::icon() const
{
    return QIcon(QStringLiteral(":/icons/planner.svg"));
}

QList<jobs::JobRunner*> PlannerPage::jobRunners() const
{
    return { m_planRunner, m_compareRunner };
}

QList<QAction*> PlannerPage::exportActions() const
{
    return { m_exportCsv };
}

PlannerPage::Inputs PlannerPage::collectInputs() const
{
    Inputs inputs;
    if (m_form->costModelSource() == PlannerForm::CostModelSource::SearchProfile) {
        inputs.prebuilt = m_searchCostModel;
    } else {
        const QString path = m_form->costModelPath();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            inputs.error = tr("%1: %2").arg(path, file.errorString());
            return inputs;
        }
        inputs.costModelJson = file.readAll();
        inputs.costModelName
            = path == PlannerForm::kBundledCostModel ? std::string("bundled synthetic cost model") : path.toStdString();
    }
    inputs.synthetic = m_form->syntheticLengths();
    inputs.spec = m_form->syntheticSpec();
    inputs.lengthsFile = m_form->lengthsFile().toStdString();
    if (!inputs.synthetic && inputs.lengthsFile.empty())
        inputs.error = tr("choose a lengths file, or synthetic lengths");
    inputs.config = m_form->config();
    try {
        inputs.batches = m_form->globalBatches();
    } catch (const Error& error) {
        inputs.error = QString::fromUtf8(error.what());
    }
    return inputs;
}

void PlannerPage::planBatch()
{
    const Inputs inputs = collectInputs();
    if (!inputs.error.isEmpty()) {
        m_summary->setText(inputs.error.toHtmlEscaped());
        return;
    }
    m_tabs->setCurrentIndex(1);
    m_summary->setText(tr("Planning in normal and fast mode…"));
    m_planRunner->start<std::shared_ptr<const PlanPair>>(
        tr("Planning the batch (normal and fast)"),
        [inputs](ProgressSink& progress) {
            const std::shared_ptr<const LayerCostModel> model = inputs.model();
            const std::vector<Sample> samples = inputs.samples(*model);
            PlannerConfig config = inputs.config;
            auto plans = std::make_shared<PlanPair>();
            plans->modelName = QString::fromStdString(model->name());
            config.mode = PlannerMode::Normal;
            SubProgress normal(progress, 0.0, 0.85);
            plans->normal = planGlobalBatch(samples, *model, config, normal);
            config.mode = PlannerMode::Fast;
            SubProgress fast(progress, 0.85, 1.0);
            plans->fast = planGlobalBatch(samples, *model, config, fast);
            return std::shared_ptr<const PlanPair>(std::move(plans));
        },
        [this](std::shared_ptr<const PlanPair> plans) { showPlans(std::move(plans)); });
}

void PlannerPage::showPlans(std::shared_ptr<const PlanPair> plans)
{
    m_plans = std::move(plans);
    QStringList lines;
    lines << tr("Cost model: %1").arg(m_plans->modelName.toHtmlEscaped());
    lines << planLine(tr("normal"), m_plans->normal) << planLine(tr("fast"), m_plans->fast);
    if (m_plans->normal.feasible && m_plans->fast.feasible) {
        const double speedup = m_plans->normal.planning_time_ms / std::max(1e-6, m_plans->fast.planning_time_ms);
        const double loss
            = 100.0 * (m_plans->fast.makespan_ms - m_plans->normal.makespan_ms) / m_plans->normal.makespan_ms;
        lines << tr("Fast mode planned %1× faster; its plan is %2 % %3 than normal's.")
                     .arg(QLocale::c().toString(speedup, 'f', 1), QLocale::c().toString(std::abs(loss), 'f', 2),
                         loss >= 0 ? tr("slower") : tr("faster"));
    }
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_openTimeline->setEnabled(m_plans->normal.feasible || m_plans->fast.feasible);
    showMicrobatches();
}

void PlannerPage::showMicrobatches()
{
    m_microbatches->setRowCount(0);
    if (!m_plans)
        return;
    const PlanResult& plan = m_showMode->currentIndex() == 0 ? m_plans->normal : m_plans->fast;
    if (!plan.feasible)
        return;
    const GroupPlan& group = plan.groups.front();
    m_microbatches->setRowCount(int(group.microbatches.size()));
    for (int row = 0; row < int(group.microbatches.size()); ++row) {
        const PlannedMicroBatch& planned = group.microbatches[std::size_t(row)];
        const MicroBatch& mb = planned.microbatch;
        const QStringList cells { QString::number(row), QString::number(mb.id), QString::number(mb.sample_ids.size()),
            QString::number(mb.padded_seqlen), recomputeLetters(planned.recompute_per_device),
            QLocale::c().toString(mb.time_ms, 'f', 2) };
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells[column]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_microbatches->setItem(row, column, item);
        }
    }
}

QString PlannerPage::planSummary() const
{
    return m_summary->text();
}

void PlannerPage::openInTimeline()
{
    if (!m_plans)
        return;
    controllers::TimelineRequests requests;
    const double limit = m_form->config().device_memory_mb;
    for (const auto& [label, plan] :
        { std::pair { tr("normal"), &m_plans->normal }, std::pair { tr("fast"), &m_plans->fast } }) {
        if (!plan->feasible)
            continue;
        const GroupPlan& group = plan->groups.front();
        requests.push_back({ tr("planner %1: %2, %3 micro-batches")
                                 .arg(label, QString::fromUtf8(scheduleName(group.schedule).data()))
                                 .arg(group.microbatches.size()),
            std::make_shared<const Timeline>(group.simulation.timeline), limit });
    }
    Q_EMIT timelinesRequested(requests);
}

void PlannerPage::compareModes()
{
    const Inputs inputs = collectInputs();
    if (!inputs.error.isEmpty()) {
        Q_EMIT statusMessage(inputs.error);
        return;
    }
    m_tabs->setCurrentIndex(0);
    m_compareRunner->start<std::vector<PlanCompareRow>>(
        tr("Comparing fast and normal mode"),
        [inputs](ProgressSink& progress) {
            const std::shared_ptr<const LayerCostModel> model = inputs.model();
            return comparePlannerModes(inputs.samples(*model), inputs.batches, *model, inputs.config, progress);
        },
        [this](std::vector<PlanCompareRow> rows) {
            m_chart->setRows(rows);
            m_compareModel->setRows(std::move(rows));
        });
}

void PlannerPage::setSearchCostModel(std::shared_ptr<const LayerCostModel> model, const QString& description)
{
    m_searchCostModel = std::move(model);
    m_form->setSearchProfileAvailable(description);
}

bool PlannerPage::exportCompareCsv(const QString& path, QString* error) const
{
    if (m_compareModel->rows().empty()) {
        if (error)
            *error = tr("no comparison to export: run Compare modes first");
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    file.write(QByteArray::fromStdString(planCompareCsv(m_compareModel->rows())));
    if (!file.commit()) {
        if (error)
            *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void PlannerPage::exportCompareCsvWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export mode comparison"), QStringLiteral("plan-compare.csv"), tr("CSV (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportCompareCsv(path, &error))
        Q_EMIT statusMessage(tr("Saved %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export mode comparison"), error);
}

} // namespace stratex::ui
