// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/timeline_sources.h"

#include <QFile>
#include <QFileInfo>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/export/chrome_trace.h"

#include "jobs/job_runner.h"

namespace stratex::controllers {

using namespace stratex::sim;

namespace {

// What a worker needs of a source: a copy, so the list may change while it runs.
struct PlanRequest {
    QString name;
    std::optional<SimulationCase> simulation;
    std::shared_ptr<const Timeline> timeline;
    double memoryLimitMb = 0;
    QStringList deviceLabels;
};

TimelinePlanView planView(const PlanRequest& request, ProgressSink& progress)
{
    progress.throwIfCancelled();
    if (request.timeline) {
        TimelinePlanView view = makeTimelinePlanView(request.name, *request.timeline, request.memoryLimitMb);
        view.deviceLabels = request.deviceLabels;
        return view;
    }
    SimulationOptions options = request.simulation->options;
    options.build_timeline = true;
    SimulationResult result = simulate(request.simulation->input, request.simulation->schedule, options);
    return makeTimelinePlanView(request.name, std::move(result.timeline), options.memory_limit_mb);
}

QString caseName(const QString& label, std::size_t position, const SimulationCase& simulationCase)
{
    const QString description = QString::fromStdString(simulationCase.description);
    return QStringLiteral("%1 #%2: %3")
        .arg(label)
        .arg(position + 1)
        .arg(description.isEmpty() ? QString::fromUtf8(scheduleName(simulationCase.schedule).data()) : description);
}

// The first new source, compared with the second new one if there is one.
TimelineSelection firstTwo(const std::vector<TimelineSourceId>& added)
{
    TimelineSelection selection { added.front(), std::nullopt };
    if (added.size() > 1)
        selection.second = added[1];
    return selection;
}

} // namespace

TimelineSources::TimelineSources(QObject* parent)
    : QObject(parent)
    , m_loadRunner(new jobs::JobRunner(this))
    , m_simulateRunner(new jobs::JobRunner(this))
    , m_exportRunner(new jobs::JobRunner(this))
{
    connect(m_loadRunner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { Q_EMIT failed(Job::Load, message); });
    connect(m_simulateRunner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { Q_EMIT failed(Job::Simulate, message); });
    connect(m_exportRunner, &jobs::JobRunner::failed, this,
        [this](const QString& message) { Q_EMIT failed(Job::Export, message); });
}

TimelineSources::~TimelineSources() = default;

std::vector<TimelineSource> TimelineSources::sources() const
{
    std::vector<TimelineSource> entries;
    entries.reserve(m_sources.size());
    for (const Source& source : m_sources)
        entries.push_back(source.entry);
    return entries;
}

QStringList TimelineSources::names() const
{
    QStringList names;
    for (const Source& source : m_sources)
        names << source.entry.name;
    return names;
}

void TimelineSources::loadCases(const QString& label, QByteArray json, const QString& fileName)
{
    m_loadRunner->start<std::vector<SimulationCase>>(
        tr("Reading %1").arg(QFileInfo(fileName).fileName()),
        [json = std::move(json), file = fileName.toStdString()](ProgressSink&) {
            const JsonDocument document
                = JsonDocument::parse(std::string_view(json.constData(), std::size_t(json.size())), file);
            return readSimulationCases(document.root());
        },
        [this, label](std::vector<SimulationCase> cases) {
            if (cases.empty())
                return;
            std::vector<TimelineSourceId> added;
            for (std::size_t i = 0; i < cases.size(); ++i) {
                Source source;
                source.entry.name = caseName(label, i, cases[i]);
                source.memoryLimitMb = cases[i].options.memory_limit_mb;
                source.simulation = std::move(cases[i]);
                added.push_back(append(std::move(source)));
            }
            Q_EMIT sourcesChanged();
            select(firstTwo(added));
        });
}

bool TimelineSources::openCasesFile(const QString& path, QString* error)
{
    std::string text;
    try {
        // Regular files of bounded size only: a device or a FIFO must not hang the window.
        text = readTextFile(path.toStdString());
    } catch (const Error& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    loadCases(QFileInfo(path).completeBaseName(), QByteArray::fromStdString(text), path);
    return true;
}

TimelineSourceId TimelineSources::addTimeline(const TimelineRequest& request)
{
    const TimelineSourceId id = append(givenTimeline(request));
    Q_EMIT sourcesChanged();
    if (!m_selection)
        select({ id, std::nullopt });
    return id;
}

void TimelineSources::showRequests(const TimelineRequests& requests)
{
    if (requests.isEmpty())
        return;
    std::vector<TimelineSourceId> added;
    for (const TimelineRequest& request : requests)
        added.push_back(append(givenTimeline(request)));
    Q_EMIT sourcesChanged();
    select(firstTwo(added));
}

void TimelineSources::select(const TimelineSelection& selection)
{
    if (!find(selection.first))
        return;
    TimelineSelection valid = selection;
    if (valid.second && !find(*valid.second))
        valid.second.reset();
    if (m_selection != valid) {
        m_selection = valid;
        Q_EMIT selectionChanged();
    }
    // Even an unchanged selection is simulated again: the request may follow a failed run.
    simulateSelection();
}

bool TimelineSources::exportChromeTrace(const QString& path)
{
    // The document is immutable and shared: the worker reads it while new ones replace it here.
    std::shared_ptr<const TimelineDocument> document = m_document;
    if (!document)
        return false;
    m_exportRunner->start<QString>(
        tr("Writing Chrome trace"),
        [document, file = path.toStdString()](ProgressSink&) {
            std::vector<exporting::ChromeTraceSection> sections;
            for (const TimelinePlanView& plan : document->plans)
                sections.push_back({ plan.name.toStdString(), &plan.timeline });
            exporting::writeChromeTrace(file, sections);
            return QString::fromStdString(file);
        },
        [this](const QString& written) { Q_EMIT traceExported(written); });
    return true;
}

TimelineSources::Source TimelineSources::givenTimeline(const TimelineRequest& request)
{
    Source source;
    source.entry.name = request.name;
    source.timeline = request.timeline;
    source.memoryLimitMb = request.memoryLimitMb;
    source.deviceLabels = request.deviceLabels;
    return source;
}

TimelineSourceId TimelineSources::append(Source source)
{
    source.entry.id = TimelineSourceId(m_nextId++);
    m_sources.push_back(std::move(source));
    return m_sources.back().entry.id;
}

const TimelineSources::Source* TimelineSources::find(TimelineSourceId id) const
{
    for (const Source& source : m_sources) {
        if (source.entry.id == id)
            return &source;
    }
    return nullptr;
}

void TimelineSources::simulateSelection()
{
    if (!m_selection)
        return;
    std::vector<PlanRequest> requests;
    const auto request = [&](TimelineSourceId id) {
        const Source& source = *find(id);
        requests.push_back(
            { source.entry.name, source.simulation, source.timeline, source.memoryLimitMb, source.deviceLabels });
    };
    request(m_selection->first);
    if (m_selection->second && *m_selection->second != m_selection->first)
        request(*m_selection->second);
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
        [this](std::shared_ptr<const TimelineDocument> document) {
            m_document = document;
            Q_EMIT documentReady(std::move(document));
        });
}

} // namespace stratex::controllers
