// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/sim/sim_cases.h"
#include "core/sim/timeline.h"
#include "ui/page.h"

#include "controllers/timeline_request.h"

class QAction;
class QComboBox;
class QLabel;

namespace stratex::controllers {
struct TimelineDocument;
}

namespace stratex::ui {

class TimelineWidget;

// The Timeline page: the Gantt of a simulated pipeline plan, or of two plans on a shared time
// axis. Plans come from simulation cases files (stratex-cli simulate's format; the bundled example
// opens at start) and from the other pages (planner results). Simulation runs on a worker thread.
class TimelinePage : public Page {
    Q_OBJECT
public:
    explicit TimelinePage(QWidget* parent = nullptr);
    ~TimelinePage() override;

    QString pageId() const override { return QStringLiteral("timeline"); }
    QString title() const override { return tr("Timeline"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;
    QList<QAction*> exportActions() const override;
    bool canOpen(const QString& path) const override;
    bool openFile(const QString& path, QString* error) override;

    // A plan computed elsewhere (e.g. by the planner); shown at once as plan A (and B if given).
    int addTimeline(const QString& name, sim::Timeline timeline, double memoryLimitMb = 0);
    // Adds the timelines and shows the first (compared with the second, if any).
    void showRequests(const controllers::TimelineRequests& requests);
    void showPlans(int first, std::optional<int> second = std::nullopt);
    QStringList planNames() const;

    TimelineWidget* timeline() const { return m_widget; }
    QComboBox* firstPlanBox() const { return m_first; }
    QComboBox* secondPlanBox() const { return m_second; }
    QString summaryText() const;

    bool exportImage(const QString& path, QString* error) const;
    // Writes the shown plans as a Chrome trace (opens in Perfetto) on a worker thread;
    // traceExported() or the runner's failed() follows.
    void exportChromeTrace(const QString& path);

public Q_SLOTS:
    void openCasesWithDialog();
    void exportImageWithDialog();
    void exportChromeTraceWithDialog();

Q_SIGNALS:
    void traceExported(const QString& path);

private:
    struct Source {
        QString name;
        std::optional<sim::SimulationCase> simulation; // simulated on demand
        std::shared_ptr<const sim::Timeline> timeline; // or given
        double memoryLimitMb = 0;
    };

    void loadCases(const QString& label, QByteArray json, const QString& fileName);
    void refreshPlanBoxes();
    void simulateSelection();
    void showDocument(std::shared_ptr<const controllers::TimelineDocument> document);

    std::vector<Source> m_sources;
    QComboBox* m_first;
    QComboBox* m_second;
    TimelineWidget* m_widget;
    QLabel* m_summary;
    jobs::JobRunner* m_loadRunner;
    jobs::JobRunner* m_simulateRunner;
    jobs::JobRunner* m_exportRunner;
    QAction* m_exportImage;
    QAction* m_exportTrace;
    bool m_updatingBoxes = false;
};

} // namespace stratex::ui
