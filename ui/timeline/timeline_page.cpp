// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_page.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QVBoxLayout>

#include "core/common/atomic_file.h"
#include "core/common/json_reader.h"
#include "core/export/chrome_trace.h"
#include "ui/common/image_export.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_widget.h"

#include "controllers/timeline_document.h"
#include "jobs/job_runner.h"

namespace stratex::ui {

using namespace stratex::sim;
using controllers::TimelineDocument;
using controllers::TimelinePlanView;
using controllers::makeTimelinePlanView;

namespace {

QLabel* legendSwatch(const QString& text, OpKind kind, QWidget* parent)
{
    TimelineOp op;
    op.kind = kind;
    auto* label = new QLabel(QStringLiteral("<span style=\"background:%1\">&nbsp;&nbsp;&nbsp;</span> %2")
                                 .arg(timelineOpColor(op).name(), text),
        parent);
    return label;
}

struct PlanRequest {
    QString name;
    std::optional<SimulationCase> simulation;
    std::shared_ptr<const Timeline> timeline;
    double memoryLimitMb = 0;
};

TimelinePlanView planView(const PlanRequest& request, ProgressSink& progress)
{
    progress.throwIfCancelled();
    if (request.timeline)
        return makeTimelinePlanView(request.name, *request.timeline, request.memoryLimitMb);
    SimulationOptions options = request.simulation->options;
    options.build_timeline = true;
    SimulationResult result = simulate(request.simulation->input, request.simulation->schedule, options);
    return makeTimelinePlanView(request.name, std::move(result.timeline), options.memory_limit_mb);
}

} // namespace

TimelinePage::TimelinePage(QWidget* parent)
    : Page(parent)
    , m_first(new QComboBox(this))
    , m_second(new QComboBox(this))
    , m_widget(new TimelineWidget(this))
    , m_summary(new QLabel(this))
    , m_loadRunner(new jobs::JobRunner(this))
    , m_simulateRunner(new jobs::JobRunner(this))
    , m_exportRunner(new jobs::JobRunner(this))
    , m_exportImage(new QAction(tr("Timeline Image…"), this))
    , m_exportTrace(new QAction(tr("Timeline as Chrome Trace (Perfetto)…"), this))
{
    m_first->setObjectName(QStringLiteral("firstPlanBox"));
    m_second->setObjectName(QStringLiteral("secondPlanBox"));
    m_widget->setObjectName(QStringLiteral("timelineWidget"));
    m_summary->setObjectName(QStringLiteral("timelineSummary"));
    m_summary->setWordWrap(true);
    m_first->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_second->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    auto* open = new QPushButton(tr("Open cases…"), this);
    open->setToolTip(tr("Open a simulation cases file (the format of stratex-cli simulate --cases)"));
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Show the whole step (0 or Home)"));
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setToolTip(tr("Save the current view as PNG or SVG"));
    auto* traceButton = new QPushButton(tr("Chrome trace…"), this);
    traceButton->setToolTip(tr("Save the shown plans as Chrome-trace JSON, to open in ui.perfetto.dev"));
    auto* toolbar = new QHBoxLayout;
    toolbar->addWidget(new QLabel(tr("Plan"), this));
    toolbar->addWidget(m_first);
    toolbar->addWidget(new QLabel(tr("compared with"), this));
    toolbar->addWidget(m_second);
    toolbar->addStretch();
    toolbar->addWidget(open);
    toolbar->addWidget(fit);
    toolbar->addWidget(exportButton);
    toolbar->addWidget(traceButton);

    auto* legend = new QHBoxLayout;
    legend->addWidget(legendSwatch(tr("forward"), OpKind::Forward, this));
    legend->addWidget(legendSwatch(tr("backward"), OpKind::Backward, this));
    legend->addWidget(legendSwatch(tr("weight gradient"), OpKind::Weight, this));
    legend->addWidget(legendSwatch(tr("send"), OpKind::Send, this));
    legend->addWidget(legendSwatch(tr("receive"), OpKind::Recv, this));
    legend->addWidget(new QLabel(tr("<span style=\"color:#e15759\">—</span> memory"), this));
    legend->addStretch();
    legend->addWidget(new QLabel(tr("W/S zoom · A/D pan · Ctrl+wheel zoom · drag pan · 0 fit · click: highlight "
                                    "micro-batch"),
        this));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(toolbar);
    layout->addWidget(m_widget, 1);
    layout->addWidget(m_summary);
    layout->addLayout(legend);

    connect(open, &QPushButton::clicked, this, &TimelinePage::openCasesWithDialog);
    connect(fit, &QPushButton::clicked, m_widget, &TimelineWidget::fit);
    connect(exportButton, &QPushButton::clicked, this, &TimelinePage::exportImageWithDialog);
    connect(m_exportImage, &QAction::triggered, this, &TimelinePage::exportImageWithDialog);
    connect(traceButton, &QPushButton::clicked, this, &TimelinePage::exportChromeTraceWithDialog);
    connect(m_exportTrace, &QAction::triggered, this, &TimelinePage::exportChromeTraceWithDialog);
    connect(m_exportRunner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { Q_EMIT statusMessage(tr("Chrome trace not written: %1").arg(message)); });
    connect(m_first, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updatingBoxes)
            simulateSelection();
    });
    connect(m_second, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_updatingBoxes)
            simulateSelection();
    });
    connect(m_simulateRunner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { m_summary->setText(tr("Simulation failed: %1").arg(message)); });
    connect(m_loadRunner, &jobs::JobRunner::failed, this, [this](const QString& message) {
        m_summary->setText(tr("Cannot open cases: %1").arg(message));
        Q_EMIT statusMessage(message);
    });

    QFile bundled(QStringLiteral(":/examples/pipeline-cases.json"));
    if (bundled.open(QIODevice::ReadOnly))
        loadCases(tr("example"), bundled.readAll(), QStringLiteral("pipeline-cases.json"));
}

TimelinePage::~TimelinePage() = default;

QIcon TimelinePage::icon() const
{
    return QIcon(QStringLiteral(":/icons/timeline.svg"));
}

QList<jobs::JobRunner*> TimelinePage::jobRunners() const
{
    return { m_loadRunner, m_simulateRunner, m_exportRunner };
}

QList<QAction*> TimelinePage::exportActions() const
{
    return { m_exportImage, m_exportTrace };
}

bool TimelinePage::canOpen(const QString& path) const
{
    return QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) == 0;
}

bool TimelinePage::openFile(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    loadCases(QFileInfo(path).completeBaseName(), file.readAll(), path);
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

void TimelinePage::loadCases(const QString& label, QByteArray json, const QString& fileName)
{
    m_loadRunner->start<std::vector<SimulationCase>>(
        tr("Reading %1").arg(QFileInfo(fileName).fileName()),
        [json = std::move(json), file = fileName.toStdString()](ProgressSink&) {
            const JsonDocument document
                = JsonDocument::parse(std::string_view(json.constData(), std::size_t(json.size())), file);
            return readSimulationCases(document.root());
        },
        [this, label](std::vector<SimulationCase> cases) {
            const int firstNew = int(m_sources.size());
            for (std::size_t i = 0; i < cases.size(); ++i) {
                const QString description = QString::fromStdString(cases[i].description);
                Source source;
                source.name = QStringLiteral("%1 #%2: %3")
                                  .arg(label)
                                  .arg(i + 1)
                                  .arg(description.isEmpty() ? QString::fromUtf8(scheduleName(cases[i].schedule).data())
                                                             : description);
                source.memoryLimitMb = cases[i].options.memory_limit_mb;
                source.simulation = std::move(cases[i]);
                m_sources.push_back(std::move(source));
            }
            refreshPlanBoxes();
            if (!cases.empty())
                showPlans(firstNew, cases.size() > 1 ? std::optional<int>(firstNew + 1) : std::nullopt);
        });
}

int TimelinePage::addTimeline(const QString& name, Timeline timeline, double memoryLimitMb)
{
    Source source;
    source.name = name;
    source.timeline = std::make_shared<const Timeline>(std::move(timeline));
    source.memoryLimitMb = memoryLimitMb;
    m_sources.push_back(std::move(source));
    refreshPlanBoxes();
    return int(m_sources.size()) - 1;
}

void TimelinePage::showRequests(const controllers::TimelineRequests& requests)
{
    if (requests.isEmpty())
        return;
    const int first = int(m_sources.size());
    for (const controllers::TimelineRequest& request : requests) {
        Source source;
        source.name = request.name;
        source.timeline = request.timeline;
        source.memoryLimitMb = request.memoryLimitMb;
        m_sources.push_back(std::move(source));
    }
    refreshPlanBoxes();
    showPlans(first, requests.size() > 1 ? std::optional<int>(first + 1) : std::nullopt);
}

QStringList TimelinePage::planNames() const
{
    QStringList names;
    for (const Source& source : m_sources)
        names << source.name;
    return names;
}

void TimelinePage::refreshPlanBoxes()
{
    m_updatingBoxes = true;
    const int first = m_first->currentIndex();
    const int second = m_second->currentIndex();
    m_first->clear();
    m_second->clear();
    m_second->addItem(tr("—"));
    for (const Source& source : m_sources) {
        m_first->addItem(source.name);
        m_second->addItem(source.name);
    }
    m_first->setCurrentIndex(std::max(0, first));
    m_second->setCurrentIndex(std::max(0, second));
    m_updatingBoxes = false;
}

void TimelinePage::showPlans(int first, std::optional<int> second)
{
    m_updatingBoxes = true;
    m_first->setCurrentIndex(first);
    m_second->setCurrentIndex(second ? *second + 1 : 0);
    m_updatingBoxes = false;
    simulateSelection();
}

void TimelinePage::simulateSelection()
{
    std::vector<PlanRequest> requests;
    const auto request = [&](int index) {
        if (index < 0 || index >= int(m_sources.size()))
            return;
        const Source& source = m_sources[std::size_t(index)];
        requests.push_back({ source.name, source.simulation, source.timeline, source.memoryLimitMb });
    };
    request(m_first->currentIndex());
    if (m_second->currentIndex() > 0 && m_second->currentIndex() - 1 != m_first->currentIndex())
        request(m_second->currentIndex() - 1);
    if (requests.empty())
        return;
    m_simulateRunner->start<std::shared_ptr<const TimelineDocument>>(
        tr("Simulating the pipeline"),
        [requests = std::move(requests)](ProgressSink& progress) {
            auto document = std::make_shared<TimelineDocument>();
            for (std::size_t i = 0; i < requests.size(); ++i) {
                document->plans.push_back(planView(requests[i], progress));
                progress.report(double(i + 1) / double(requests.size()), "simulated");
            }
            return std::shared_ptr<const TimelineDocument>(std::move(document));
        },
        [this](std::shared_ptr<const TimelineDocument> document) { showDocument(std::move(document)); });
}

void TimelinePage::showDocument(std::shared_ptr<const TimelineDocument> document)
{
    QStringList parts;
    for (const TimelinePlanView& plan : document->plans) {
        parts << tr("<b>%1</b>: makespan %2 ms, peak memory %3 GB, average bubble %4 %, %5 ops")
                     .arg(plan.name.toHtmlEscaped(), QLocale::c().toString(plan.timeline.makespan_us / 1000.0, 'f', 2),
                         QLocale::c().toString(plan.maxPeakMemoryMb / 1000.0, 'f', 2),
                         QLocale::c().toString(plan.averageBubblePercent(), 'f', 1))
                     .arg(plan.timeline.opCount());
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
    return saveRendering(
        path, m_widget->renderSize(), [this](QPainter& painter) { m_widget->render(painter); }, tr("Pipeline timeline"),
        error);
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
    // The document is immutable and shared: the worker reads it while the page goes on.
    std::shared_ptr<const TimelineDocument> document = m_widget->sharedDocument();
    if (!document) {
        Q_EMIT statusMessage(tr("No timeline to export"));
        return;
    }
    m_exportRunner->start<QString>(
        tr("Writing Chrome trace"),
        [document, file = path.toStdString()](ProgressSink&) {
            std::vector<exporting::ChromeTraceSection> sections;
            for (const TimelinePlanView& plan : document->plans)
                sections.push_back({ plan.name.toStdString(), &plan.timeline });
            exporting::writeChromeTrace(file, sections);
            return QString::fromStdString(file);
        },
        [this](const QString& written) {
            Q_EMIT statusMessage(tr("Wrote %1 (open it in ui.perfetto.dev)").arg(written));
            Q_EMIT traceExported(written);
        });
}

void TimelinePage::exportChromeTraceWithDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome trace"),
        QStringLiteral("timeline.trace.json"), tr("Chrome trace (*.json);;All files (*)"));
    if (!path.isEmpty())
        exportChromeTrace(path);
}

} // namespace stratex::ui
