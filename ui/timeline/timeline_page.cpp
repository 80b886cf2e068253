// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_page.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/common/plan_figures.h"
#include "ui/common/eliding_combo_box.h"
#include "ui/common/image_export.h"
#include "ui/timeline/timeline_legend.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_widget.h"

#include "controllers/file_routing.h"
#include "controllers/measured_run_import.h"
#include "controllers/timeline_document.h"

namespace stratex::ui {

using namespace stratex::sim;
using controllers::TimelineDocument;
using controllers::TimelinePlanView;
using controllers::TimelineSelection;
using controllers::TimelineSourceId;
using controllers::TimelineSources;

namespace {

// The source a plan box item stands for; "—" in the second box has none.
std::optional<TimelineSourceId> sourceIdOf(const QComboBox* box)
{
    const QVariant data = box->currentData();
    if (!data.isValid())
        return std::nullopt;
    return TimelineSourceId(data.toInt());
}

void setCurrentSource(QComboBox* box, std::optional<TimelineSourceId> id, int noneIndex)
{
    box->setCurrentIndex(id ? box->findData(int(*id)) : noneIndex);
}

// One definition per number: the summary's figures explained by the texts the Search page's
// tables use (core/common/plan_figures.h).
QString figureToolTips()
{
    QStringList lines;
    for (figures::Figure figure : { figures::Figure::PipelineMakespan, figures::Figure::IterationTime,
             figures::Figure::PipelineBubble, figures::Figure::PlannedPeak }) {
        const std::string_view tip = figures::toolTip(figure);
        lines << QString::fromUtf8(tip.data(), qsizetype(tip.size())).toHtmlEscaped();
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace

TimelinePage::TimelinePage(QWidget* parent)
    : Page(parent)
    , m_sources(new TimelineSources(this))
    , m_measured(new controllers::MeasuredRunImport(this))
    , m_first(new ElidingComboBox(this))
    , m_second(new ElidingComboBox(this))
    , m_widget(new TimelineWidget(this))
    , m_summary(new QLabel(this))
    , m_exportImage(new QAction(tr("Timeline Image…"), this))
    , m_exportTrace(new QAction(tr("Timeline as Chrome Trace (Perfetto)…"), this))
{
    m_first->setObjectName(QStringLiteral("firstPlanBox"));
    m_first->setAccessibleName(tr("Plan"));
    m_second->setObjectName(QStringLiteral("secondPlanBox"));
    m_second->setAccessibleName(tr("Plan compared with"));
    m_widget->setObjectName(QStringLiteral("timelineWidget"));
    m_summary->setObjectName(QStringLiteral("timelineSummary"));
    m_summary->setWordWrap(true);
    // One definition per number: what the Search page's figures are, against this page's.
    m_summary->setToolTip(figureToolTips());
    // The plan names are long ("search plan: pp 2, 32 micro-batches, gbsz 64 (estimate 7.761 s)"):
    // the boxes share the width of the page on a row of their own, elide what does not fit and
    // hold the whole name in their tooltips (issue 24: sized to their longest names, the boxes
    // and the buttons asked for a 1,559 px wide page).

    auto* open = new QPushButton(tr("Open cases…"), this);
    open->setToolTip(tr("Open a simulation cases file (the format of stratex-cli simulate --cases)"));
    auto* measured = new QPushButton(tr("Measured run…"), this);
    measured->setObjectName(QStringLiteral("openMeasuredRun"));
    measured->setToolTip(tr("Open a Megatron-LM log and/or PyTorch-profiler traces (one per rank) of a real run: "
                            "its stages' measured lanes are drawn above the predicted ones"));
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Show the whole step (0 or Home)"));
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setToolTip(tr("Save the current view as PNG or SVG"));
    auto* traceButton = new QPushButton(tr("Chrome trace…"), this);
    traceButton->setToolTip(tr("Save the shown plans as Chrome-trace JSON, to open in ui.perfetto.dev"));
    auto* plans = new QHBoxLayout;
    plans->addWidget(new QLabel(tr("Plan"), this));
    plans->addWidget(m_first, 1);
    plans->addWidget(new QLabel(tr("compared with"), this));
    plans->addWidget(m_second, 1);
    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(open);
    toolbar->addWidget(measured);
    toolbar->addWidget(fit);
    toolbar->addWidget(exportButton);
    toolbar->addWidget(traceButton);
    toolbar->addStretch();

    auto* keys = new QLabel(
        tr("Shades of a colour: micro-batches in turn · W/S zoom · A/D pan · Ctrl+wheel zoom · drag pan · 0 fit · "
           "click: highlight micro-batch · Esc: clear"),
        this);
    keys->setObjectName(QStringLiteral("timelineKeys"));
    keys->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(plans);
    layout->addLayout(toolbar);
    layout->addWidget(m_widget, 1);
    layout->addWidget(m_summary);
    m_legend = new TimelineLegend(this);
    m_legend->setObjectName(QStringLiteral("timelineLegend"));
    layout->addWidget(m_legend);
    layout->addWidget(keys);

    connect(open, &QPushButton::clicked, this, &TimelinePage::openCasesWithDialog);
    connect(fit, &QPushButton::clicked, m_widget, &TimelineWidget::fit);
    connect(measured, &QPushButton::clicked, this, &TimelinePage::openMeasuredRunWithDialog);
    connect(m_measured, &controllers::MeasuredRunImport::imported, this,
        [this](std::shared_ptr<const runs::RunComparison> comparison, controllers::TimelineRequest request) {
            const runs::ComparedValue& iteration = comparison->iteration_ms;
            const QString line = tr("Measured run: %1 ms per iteration, predicted %2 ms")
                                     .arg(QLocale::c().toString(iteration.measured.value_or(0), 'f', 1),
                                         QLocale::c().toString(iteration.predicted.value_or(0), 'f', 1));
            Q_EMIT statusMessage(line);
            if (request.timeline)
                m_sources->showRequests({ request });
            else
                m_summary->setText(line + tr(" (no trace: nothing to draw per stage)"));
        });
    connect(m_measured, &controllers::MeasuredRunImport::failed, this, [this](const QString& message) {
        m_summary->setText(tr("Cannot import the run: %1").arg(message));
        Q_EMIT statusMessage(message);
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Open measured run"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(exportButton, &QPushButton::clicked, this, &TimelinePage::exportImageWithDialog);
    connect(m_exportImage, &QAction::triggered, this, &TimelinePage::exportImageWithDialog);
    connect(traceButton, &QPushButton::clicked, this, &TimelinePage::exportChromeTraceWithDialog);
    connect(m_exportTrace, &QAction::triggered, this, &TimelinePage::exportChromeTraceWithDialog);
    connect(m_first, &QComboBox::currentIndexChanged, this, &TimelinePage::selectFromBoxes);
    connect(m_second, &QComboBox::currentIndexChanged, this, &TimelinePage::selectFromBoxes);
    connect(m_sources, &TimelineSources::sourcesChanged, this, &TimelinePage::refreshPlanBoxes);
    connect(m_sources, &TimelineSources::selectionChanged, this, &TimelinePage::showSelection);
    connect(m_sources, &TimelineSources::documentReady, this, &TimelinePage::showDocument);
    connect(m_sources, &TimelineSources::failed, this, &TimelinePage::showFailure);
    connect(m_sources, &TimelineSources::traceExported, this, [this](const QString& written) {
        Q_EMIT statusMessage(tr("Wrote %1 (open it in ui.perfetto.dev)").arg(written));
        Q_EMIT traceExported(written);
    });

    QFile bundled(QStringLiteral(":/examples/pipeline-cases.json"));
    if (bundled.open(QIODevice::ReadOnly))
        m_sources->loadCases(tr("example"), bundled.readAll(), QStringLiteral("pipeline-cases.json"));
}

TimelinePage::~TimelinePage() = default;

QIcon TimelinePage::icon() const
{
    return QIcon(QStringLiteral(":/icons/timeline.svg"));
}

QList<jobs::JobRunner*> TimelinePage::jobRunners() const
{
    return m_sources->runners() << m_measured->runner();
}

QList<QAction*> TimelinePage::exportActions() const
{
    return { m_exportImage, m_exportTrace };
}

void TimelinePage::showEvent(QShowEvent* event)
{
    Page::showEvent(event);
    m_widget->setFocus(Qt::OtherFocusReason);
}

bool TimelinePage::canOpen(const QString& path) const
{
    return controllers::timelinePageOpens(path);
}

bool TimelinePage::openFile(const QString& path, QString* error)
{
    if (!m_sources->openCasesFile(path, error))
        return false;
    Q_EMIT fileOpened(path);
    return true;
}

void TimelinePage::openCasesWithDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open simulation cases"), QString(), tr("Simulation cases (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!openFile(path, &error))
        QMessageBox::warning(this, tr("Open simulation cases"), error);
}

void TimelinePage::openMeasuredRunWithDialog()
{
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open measured run"), QString(),
        tr("Megatron-LM logs, PyTorch traces, run records (*.log *.txt *.json);;All files (*)"));
    if (paths.isEmpty())
        return;
    // Logs and traces do not say how many GPUs a node has; a trace names the GPU, a log does not.
    bool ok = false;
    const int perNode = QInputDialog::getInt(this, tr("Open measured run"), tr("GPUs per node:"), 8, 1, 64, 1, &ok);
    if (!ok)
        return;
    QStringList presets { tr("from the trace or record") };
    for (const hardware::GpuDescription& gpu : hardware::gpuPresets())
        presets << QString::fromStdString(gpu.name);
    const QString gpu = QInputDialog::getItem(this, tr("Open measured run"), tr("GPU:"), presets, 0, false, &ok);
    if (!ok)
        return;
    m_measured->import(paths, gpu == presets.front() ? std::nullopt : std::optional<QString>(gpu), perNode);
}

int TimelinePage::addTimeline(const QString& name, Timeline timeline, double memoryLimitMb)
{
    m_sources->addTimeline({ name, std::make_shared<const Timeline>(std::move(timeline)), memoryLimitMb });
    return int(m_sources->sources().size()) - 1;
}

void TimelinePage::showRequests(const controllers::TimelineRequests& requests)
{
    m_sources->showRequests(requests);
}

QStringList TimelinePage::planNames() const
{
    return m_sources->names();
}

void TimelinePage::showPlans(int first, std::optional<int> second)
{
    const std::vector<controllers::TimelineSource> sources = m_sources->sources();
    const auto idAt = [&](int position) -> std::optional<TimelineSourceId> {
        if (position < 0 || position >= int(sources.size()))
            return std::nullopt;
        return sources[std::size_t(position)].id;
    };
    if (const std::optional<TimelineSourceId> firstId = idAt(first))
        m_sources->select({ *firstId, second ? idAt(*second) : std::nullopt });
}

void TimelinePage::refreshPlanBoxes()
{
    m_updatingBoxes = true;
    m_first->clear();
    m_second->clear();
    m_second->addItem(tr("—"));
    for (const controllers::TimelineSource& source : m_sources->sources()) {
        m_first->addItem(source.name, int(source.id));
        m_second->addItem(source.name, int(source.id));
    }
    m_updatingBoxes = false;
    showSelection();
}

void TimelinePage::showSelection()
{
    const std::optional<TimelineSelection> selection = m_sources->selection();
    m_updatingBoxes = true;
    setCurrentSource(m_first, selection ? std::optional(selection->first) : std::nullopt, -1);
    setCurrentSource(m_second, selection ? selection->second : std::nullopt, 0);
    m_updatingBoxes = false;
}

void TimelinePage::selectFromBoxes()
{
    if (m_updatingBoxes)
        return;
    if (const std::optional<TimelineSourceId> first = sourceIdOf(m_first))
        m_sources->select({ *first, sourceIdOf(m_second) });
}

void TimelinePage::showFailure(TimelineSources::Job job, const QString& message)
{
    switch (job) {
    case TimelineSources::Job::Load: {
        m_summary->setText(tr("Cannot open cases: %1").arg(message));
        Q_EMIT statusMessage(message);
        // The message names the file and the key: the user must see it, not only the label.
        // Asynchronous (open(), not exec()): the GUI never waits in a nested event loop.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Open simulation cases"), message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        break;
    }
    case TimelineSources::Job::Simulate:
        m_summary->setText(tr("Simulation failed: %1").arg(message));
        break;
    case TimelineSources::Job::Export:
        Q_EMIT statusMessage(tr("Chrome trace not written: %1").arg(message));
        break;
    }
}

void TimelinePage::showDocument(std::shared_ptr<const TimelineDocument> document)
{
    QStringList parts;
    const auto label = [](figures::Figure figure) {
        return QString::fromUtf8(figures::label(figure).data()).toLower();
    };
    for (const TimelinePlanView& plan : document->plans) {
        // The labels of the one definition of each number (core/common/plan_figures.h).
        parts << tr("<b>%1</b>: %7 %2, %8 %3 GB, %9 %4 % (busiest device idle; mean idle over devices %5 %), %6 ops")
                     .arg(plan.name.toHtmlEscaped(), formatDuration(plan.timeline.makespan_us),
                         QLocale::c().toString(plan.maxPeakMemoryMb / 1000.0, 'f', 2),
                         QLocale::c().toString(plan.pipelineBubblePercent(), 'f', 1),
                         QLocale::c().toString(plan.averageBubblePercent(), 'f', 1))
                     .arg(plan.timeline.opCount())
                     .arg(label(figures::Figure::PipelineMakespan), label(figures::Figure::PlannedPeak),
                         label(figures::Figure::PipelineBubble));
    }
    if (document->plans.size() == 2) {
        const double a = document->plans[0].timeline.makespan_us;
        const double b = document->plans[1].timeline.makespan_us;
        parts << tr("second vs first: %1 %").arg(QLocale::c().toString(a > 0 ? 100.0 * (b - a) / a : 0.0, 'f', 1));
    }
    m_summary->setText(parts.join(QStringLiteral("<br>")));
    m_widget->setDocument(std::move(document));
}

QString TimelinePage::summaryText() const
{
    return m_summary->text();
}

bool TimelinePage::exportImage(const QString& path, QString* error) const
{
    if (!m_widget->document()) {
        if (error)
            *error = tr("no timeline to export");
        return false;
    }
    // The legend goes under the timeline: an exported picture explains its colours on its own.
    const QSize timeline = m_widget->renderSize();
    const int legendHeight = m_legend->heightForWidth(timeline.width());
    return saveRendering(
        path, QSize(timeline.width(), timeline.height() + legendHeight),
        [this, timeline, legendHeight](QPainter& painter) {
            m_widget->render(painter);
            painter.save();
            painter.fillRect(QRect(0, timeline.height(), timeline.width(), legendHeight), m_legend->palette().window());
            painter.translate(0, timeline.height());
            m_legend->paintEntries(painter, timeline.width());
            painter.restore();
        },
        tr("Pipeline timeline"), error);
}

void TimelinePage::exportImageWithDialog()
{
    const QString path
        = QFileDialog::getSaveFileName(this, tr("Export timeline"), QStringLiteral("timeline.png"), imageFileFilter());
    if (path.isEmpty())
        return;
    QString error;
    if (exportImage(path, &error))
        Q_EMIT statusMessage(tr("Saved %1").arg(path));
    else
        QMessageBox::warning(this, tr("Export timeline"), error);
}

} // namespace stratex::ui

namespace stratex::ui {

void TimelinePage::exportChromeTrace(const QString& path)
{
    if (!m_sources->exportChromeTrace(path))
        Q_EMIT statusMessage(tr("No timeline to export"));
}

void TimelinePage::exportChromeTraceWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome trace"),
        QStringLiteral("timeline.trace.json"), tr("Chrome trace (*.json);;All files (*)"));
    if (!path.isEmpty())
        exportChromeTrace(path);
}

} // namespace stratex::ui
