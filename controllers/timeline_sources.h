// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "core/sim/sim_cases.h"
#include "core/sim/timeline.h"

#include "controllers/timeline_document.h"
#include "controllers/timeline_request.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// Names a source for the controller's lifetime and is never reused: a selection keeps meaning the
// same plans while sources are added, which positions in a list would not.
enum class TimelineSourceId : int {};

struct TimelineSource {
    TimelineSourceId id {};
    QString name;
};

struct TimelineSelection {
    TimelineSourceId first {};
    std::optional<TimelineSourceId> second; // compared with the first on one time axis

    bool operator==(const TimelineSelection&) const = default;
};

// The Timeline page's plans: the cases of simulation cases files (simulated when selected) and
// timelines other pages computed. Holds which one or two are shown, simulates them on a worker
// and hands the result over as one immutable document; writes that document as a Chrome trace.
class TimelineSources : public QObject {
    Q_OBJECT
public:
    enum class Job { Load, Simulate, Export };
    Q_ENUM(Job)

    explicit TimelineSources(QObject* parent = nullptr);
    ~TimelineSources() override;

    std::vector<TimelineSource> sources() const;
    QStringList names() const;
    std::optional<TimelineSelection> selection() const { return m_selection; }
    // The last document delivered by documentReady(), or null.
    std::shared_ptr<const TimelineDocument> document() const { return m_document; }

    // Parses a cases file (stratex-cli simulate --cases) on a worker. Its cases are named
    // "<label> #<n>: <description, or schedule>" and the first one (compared with the second,
    // if any) is shown. `fileName` names the file in error messages.
    void loadCases(const QString& label, QByteArray json, const QString& fileName);
    // Reads the file, then loadCases() with its base name as label. False (and the reason) only
    // when the file cannot be read; a malformed file is reported by failed().
    bool openCasesFile(const QString& path, QString* error);

    // A timeline computed elsewhere. Shown at once when nothing is shown yet.
    TimelineSourceId addTimeline(const TimelineRequest& request);
    // Adds the timelines and shows the first (compared with the second, if any).
    void showRequests(const TimelineRequests& requests);

    // Shows the sources (re-simulating cases). Unknown ids are ignored: an unknown first keeps
    // the current selection, an unknown second shows the first alone.
    void select(const TimelineSelection& selection);

    // Writes the shown document as a Chrome trace on a worker; traceExported() or
    // failed(Job::Export) follows. False when nothing is shown.
    bool exportChromeTrace(const QString& path);

    jobs::JobRunner* loadRunner() const { return m_loadRunner; }
    jobs::JobRunner* simulateRunner() const { return m_simulateRunner; }
    jobs::JobRunner* exportRunner() const { return m_exportRunner; }
    QList<jobs::JobRunner*> runners() const { return { m_loadRunner, m_simulateRunner, m_exportRunner }; }

Q_SIGNALS:
    void sourcesChanged();
    void selectionChanged();
    void documentReady(std::shared_ptr<const TimelineDocument> document);
    void traceExported(const QString& path);
    void failed(TimelineSources::Job job, const QString& message);

private:
    struct Source {
        TimelineSource entry;
        std::optional<sim::SimulationCase> simulation; // simulated on demand
        std::shared_ptr<const sim::Timeline> timeline; // or given
        double memoryLimitMb = 0;
        QStringList deviceLabels;
    };

    static Source givenTimeline(const TimelineRequest& request);
    TimelineSourceId append(Source source);
    const Source* find(TimelineSourceId id) const;
    void simulateSelection();

    std::vector<Source> m_sources;
    int m_nextId = 0;
    std::optional<TimelineSelection> m_selection;
    std::shared_ptr<const TimelineDocument> m_document;
    jobs::JobRunner* m_loadRunner;
    jobs::JobRunner* m_simulateRunner;
    jobs::JobRunner* m_exportRunner;
};

} // namespace stratex::controllers
