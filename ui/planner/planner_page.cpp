// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/planner/planner_page.h"

#include <algorithm>

#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "ui/common/long_work_question.h"
#include "ui/planner/mode_compare_chart.h"
#include "ui/planner/plan_compare_model.h"
#include "ui/planner/planner_form.h"

#include "controllers/planner_controller.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::planner;
using namespace stratex::sim;

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
    QString line = QObject::tr("<b>%1</b>: makespan %2 · planned in %3 (%4 simulations) · %5, %6 micro-batches, "
                               "%7 recompute start · peak %8 GB")
                       .arg(label, ms(plan.makespan_ms), ms(plan.planning_time_ms))
                       .arg(plan.candidates_simulated)
                       .arg(QString::fromUtf8(scheduleName(group.schedule).data()))
                       .arg(plan.global_microbatches())
                       .arg(QString::fromUtf8(recomputeTypeName(group.base_recompute).data()),
                           QLocale::c().toString(peak / 1000.0, 'f', 2));
    if (plan.groups.size() > 1)
        line += QObject::tr(" · %1 data-parallel groups (the slowest sets the makespan)").arg(plan.groups.size());
    line += plan.communication_modelled ? QObject::tr(" · transfers modelled (hidden %1)").arg(plan.hidden_size)
                                        : QObject::tr(" · transfers free");
    return line;
}

} // namespace

PlannerPage::PlannerPage(QWidget* parent)
    : Page(parent)
    , m_controller(new controllers::PlannerController(this))
    , m_form(new PlannerForm(this))
    , m_plan(new QPushButton(tr("Plan batch"), this))
    , m_compare(new QPushButton(tr("Compare modes"), this))
    , m_openTimeline(new QPushButton(tr("Open in Timeline"), this))
    , m_tabs(new QTabWidget(this))
    , m_chart(new ModeCompareChart(this))
    , m_compareModel(new PlanCompareModel(this))
    , m_compareTable(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_compareSummary(new QLabel(this))
    , m_showMode(new QComboBox(this))
    , m_microbatches(new QTableWidget(this))
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
    m_compareSummary->setObjectName(QStringLiteral("compareSummary"));
    m_compareSummary->setWordWrap(true);
    m_compareSummary->setTextFormat(Qt::PlainText);
    m_compareSummary->setText(tr("Compare modes to see which one each batch should be planned in."));
    m_showMode->setObjectName(QStringLiteral("planModeBox"));
    m_showMode->setAccessibleName(tr("Plan whose micro-batches are shown"));
    m_showMode->addItems({ tr("normal plan"), tr("fast plan") });
    m_microbatches->setObjectName(QStringLiteral("microbatchTable"));
    m_microbatches->setAccessibleName(tr("Micro-batches of the plan"));
    m_microbatches->setColumnCount(6);
    m_microbatches->setHorizontalHeaderLabels({ tr("Order"), tr("Micro-batch"), tr("Samples"), tr("Padded length"),
        tr("Recompute per device"), tr("Estimated ms") });
    // Each column as wide as its header and its cells (the table scrolls sideways when narrow):
    // "Recompute per device" was cut to 100 px at the window's default size (issue 24).
    m_microbatches->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_microbatches->horizontalHeader()->setStretchLastSection(true);
    m_microbatches->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_microbatches->setToolTip(tr("Recompute per device: - none, s selective, F full"));
    m_compareTable->setObjectName(QStringLiteral("compareTable"));
    m_compareTable->setAccessibleName(tr("Fast against normal mode by global batch"));
    m_compareTable->setModel(m_compareModel);
    // Every column as wide as its header and cells: stretched, the last one ("Fast makespan (ms)")
    // got 100 px once the others filled the view (issue 24).
    m_compareTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_compareTable->horizontalHeader()->setStretchLastSection(false);
    m_compareTable->setAlternatingRowColors(true);

    auto* formScroll = new QScrollArea(this);
    formScroll->setWidget(m_form);
    formScroll->setWidgetResizable(true);
    // As wide as the form needs, so nothing of it is cut off at any window size (issue 24 finding
    // 11); the tabs on the right take the rest.
    formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    formScroll->setMinimumWidth(m_form->minimumSizeHint().width()
        + formScroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 2 * formScroll->frameWidth());
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
    compareLayout->addWidget(m_compareSummary);
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

    m_tabs->setObjectName(QStringLiteral("plannerTabs"));
    m_tabs->setAccessibleName(tr("Planner results"));
    m_tabs->tabBar()->setAccessibleName(tr("Planner results"));
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
    connect(m_showMode, &QComboBox::currentIndexChanged, m_controller,
        [this](int index) { m_controller->selectMode(index == 0 ? PlannerMode::Normal : PlannerMode::Fast); });
    connect(exportButton, &QPushButton::clicked, this, &PlannerPage::exportCompareCsvWithDialog);
    connect(m_exportCsv, &QAction::triggered, this, &PlannerPage::exportCompareCsvWithDialog);

    connect(m_controller->planRunner(), &jobs::JobRunner::started, this,
        [this] { m_summary->setText(tr("Planning in normal and fast mode…")); });
    connect(m_controller, &controllers::PlannerController::plansReady, this,
        [this](const std::shared_ptr<const ModePair>& plans, const QString& costModelName) {
            showPlans(*plans, costModelName);
        });
    connect(m_controller, &controllers::PlannerController::selectedPlanChanged, this, &PlannerPage::showMicrobatches);
    connect(m_controller, &controllers::PlannerController::comparisonReady, this,
        [this](const std::vector<PlanCompareRow>& rows) {
            m_chart->setRows(rows);
            m_compareModel->setRows(rows);
            showRecommendations(rows);
        });
    connect(m_controller, &controllers::PlannerController::failed, this, &PlannerPage::showFailure);
    // Beyond the work budget the CLI refuses; here the user decides. The plans shown stay.
    connect(
        m_controller, &controllers::PlannerController::workBudgetExceeded, this, [this](const WorkEstimate& estimate) {
            askToRunLongWork(this, tr("Planner"), estimate, [this] { m_controller->planBatch(true); });
        });
    connect(m_controller, &controllers::PlannerController::compareWorkBudgetExceeded, this,
        [this](const WorkEstimate& estimate) {
            askToRunLongWork(this, tr("Planner"), estimate, [this] { m_controller->compareModes(true); });
        });
    connect(m_controller, &controllers::PlannerController::searchCostModelOffered, m_form,
        &PlannerForm::setSearchProfileAvailable);
}

PlannerPage::~PlannerPage() = default;

QIcon PlannerPage::icon() const
{
    return QIcon(QStringLiteral(":/icons/planner.svg"));
}

QList<jobs::JobRunner*> PlannerPage::jobRunners() const
{
    return m_controller->jobRunners();
}

QList<QAction*> PlannerPage::exportActions() const
{
    return { m_exportCsv };
}

bool PlannerPage::applyForm(bool withCompareBatches)
{
    if (m_form->costModelSource() == PlannerForm::CostModelSource::SearchProfile)
        m_controller->useSearchCostModel();
    else
        m_controller->setCostModelFile(m_form->costModelPath());
    if (m_form->syntheticLengths())
        m_controller->setSyntheticLengths(m_form->syntheticSpec());
    else
        m_controller->setLengthsFile(m_form->lengthsFile());
    m_controller->setConfig(m_form->config());
    if (withCompareBatches) {
        try {
            m_controller->setCompareBatches(m_form->globalBatches());
            m_controller->setCompareSeeds(m_form->compareSeeds());
        } catch (const Error& error) {
            showFailure(QString::fromUtf8(error.what()));
            return false;
        }
    }
    return true;
}

void PlannerPage::planBatch()
{
    if (!applyForm(false))
        return;
    m_tabs->setCurrentIndex(1);
    m_controller->planBatch();
}

void PlannerPage::compareModes()
{
    if (!applyForm(true))
        return;
    m_tabs->setCurrentIndex(0);
    m_controller->compareModes();
}

void PlannerPage::showFailure(const QString& message)
{
    m_summary->setText(tr("Planning failed: %1").arg(message.toHtmlEscaped()));
    Q_EMIT statusMessage(message);
    // A bad cost model or lengths file is named with its key in the message: shown where it
    // cannot be missed (issue 12). Asynchronous (open(), not exec()): the GUI never waits in a
    // nested event loop; a newer failure replaces an unanswered box instead of stacking up.
    if (QWidget* previous = findChild<QMessageBox*>(QStringLiteral("plannerFailedBox"))) {
        previous->setObjectName(QString());
        previous->close();
    }
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Planner"), message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("plannerFailedBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void PlannerPage::showPlans(const ModePair& plans, const QString& costModelName)
{
    QStringList lines;
    lines << tr("Cost model: %1").arg(costModelName.toHtmlEscaped());
    lines << planLine(tr("normal"), plans.normal) << planLine(tr("fast"), plans.fast);
    const ModeRecommendation recommended = recommendMode(plans);
    if (recommended.decided)
        lines << tr("<b>Recommended: %1</b> — %2 (planning times: median of %3 normal and %4 fast runs)")
                     .arg(QString::fromUtf8(plannerModeName(recommended.mode).data()),
                         QString::fromStdString(recommended.reason).toHtmlEscaped())
                     .arg(plans.normal_timing_runs)
                     .arg(plans.fast_timing_runs);
    if (plans.comparable) {
        const QString speed = plans.speedup > 0
            ? tr("Fast mode planned %1× faster").arg(QLocale::c().toString(plans.speedup, 'f', 1))
            : tr("Fast mode planned too quickly to measure");
        const double loss = plans.quality_loss_percent;
        lines << tr("%1; its plan is %2 % %3 than normal's.")
                     .arg(
                         speed, QLocale::c().toString(std::abs(loss), 'f', 2), loss >= 0 ? tr("slower") : tr("faster"));
    }
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_openTimeline->setEnabled(plans.normal.feasible || plans.fast.feasible);
}

void PlannerPage::showMicrobatches()
{
    m_microbatches->setRowCount(0);
    const PlanResult* plan = m_controller->selectedPlan();
    if (!plan || !plan->feasible)
        return;
    // Every data-parallel group's micro-batches, group after group; the position names the
    // group when there are several ("1:3"), an encoder-decoder length both sides ("512/128").
    int rows = 0;
    for (const GroupPlan& group : plan->groups)
        rows += int(group.microbatches.size());
    m_microbatches->setRowCount(rows);
    int row = 0;
    for (const GroupPlan& group : plan->groups) {
        for (std::size_t position = 0; position < group.microbatches.size(); ++position, ++row) {
            const PlannedMicroBatch& planned = group.microbatches[position];
            const MicroBatch& mb = planned.microbatch;
            const QString where = plan->groups.size() > 1 ? QStringLiteral("%1:%2").arg(group.dp_group).arg(position)
                                                          : QString::number(position);
            const QString length = mb.padded_decoder_seqlen > 0
                ? QStringLiteral("%1/%2").arg(mb.padded_seqlen).arg(mb.padded_decoder_seqlen)
                : QString::number(mb.padded_seqlen);
            const QStringList cells { where, QString::number(mb.id), QString::number(mb.sample_ids.size()), length,
                recomputeLetters(planned.recompute_per_device), QLocale::c().toString(mb.time_ms, 'f', 2) };
            for (int column = 0; column < cells.size(); ++column) {
                auto* item = new QTableWidgetItem(cells[column]);
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_microbatches->setItem(row, column, item);
            }
        }
    }
}

QString PlannerPage::planSummary() const
{
    return m_summary->text();
}

QString PlannerPage::compareSummary() const
{
    return m_compareSummary->text();
}

void PlannerPage::showRecommendations(const std::vector<PlanCompareRow>& rows)
{
    // Per batch, then what `auto` makes of it (planner::autoThreshold; the controller plans `auto`
    // with it from now on).
    QStringList perBatch;
    int runs = 1;
    for (const PlanCompareRow& row : rows) {
        runs = std::max({ runs, row.normal_timing_runs, row.fast_timing_runs });
        if (row.recommended.decided)
            perBatch << tr("%1 → %2").arg(row.global_batch).arg(
                QString::fromUtf8(plannerModeName(row.recommended.mode).data()));
    }
    QStringList lines;
    lines << tr("Recommended mode per batch: %1.").arg(perBatch.isEmpty() ? tr("none (no plan)") : perBatch.join(
                                                                                          QStringLiteral(", ")));
    lines << (runs > 1 ? tr("%1; planning times are the median of up to %2 runs of each mode.").arg(
                  QString::fromStdString(m_controller->autoThreshold().text)).arg(runs)
                       : tr("%1; planning times are the median of 1 run of each mode (runs over 1 s are not repeated).")
                             .arg(QString::fromStdString(m_controller->autoThreshold().text)));
    m_compareSummary->setText(lines.join(QLatin1Char('\n')));
}

bool PlannerPage::hasPlans() const
{
    return m_controller->plans() != nullptr;
}

void PlannerPage::openInTimeline()
{
    m_controller->openInTimeline();
}

void PlannerPage::setSearchCostModel(std::shared_ptr<const LayerCostModel> model, const QString& description)
{
    m_controller->setSearchCostModel(std::move(model), description);
}

bool PlannerPage::exportCompareCsv(const QString& path, QString* error) const
{
    return m_controller->exportCompareCsv(path, error);
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
