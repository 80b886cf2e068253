// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>

#include "core/sim/timeline.h"
#include "ui/page.h"

#include "controllers/timeline_request.h"
#include "controllers/timeline_sources.h"

class QAction;
class QComboBox;
class QLabel;

namespace stratex::controllers {
class MeasuredRunImport;
}

namespace stratex::ui {

class TimelineLegend;
class TimelineWidget;

// The Timeline page: the Gantt of a simulated pipeline plan, or of two plans on a shared time
// axis. A view over controllers::TimelineSources, which holds the plans (simulation cases files --
// stratex-cli simulate's format, the bundled example opens at start -- and the other pages'
// results) and simulates the selection on a worker; the plan boxes mirror its sources and
// selection.
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
    // Simulation cases (stratex-cli simulate --cases): a JSON object with "cases", or a file that
    // does not parse (its error is reported here).
    bool canOpen(const QString& path) const override;
    bool openFile(const QString& path, QString* error) override;

protected:
    // The timeline takes the keyboard when the page shows: W/S/A/D work without a click.
    void showEvent(QShowEvent* event) override;

public:

    controllers::TimelineSources* sources() const { return m_sources; }
    // A measured run (Megatron-LM log, PyTorch traces, record) against its prediction: a traced
    // run is shown with each stage's measured lane above its predicted one.
    controllers::MeasuredRunImport* measuredRuns() const { return m_measured; }

    // A plan computed elsewhere; shown at once when nothing is shown yet. Returns its position in
    // the plan boxes.
    int addTimeline(const QString& name, sim::Timeline timeline, double memoryLimitMb = 0);
    // Adds the timelines and shows the first (compared with the second, if any).
    void showRequests(const controllers::TimelineRequests& requests);
    // The plans at these positions of the plan list (first box; the second box lists "—" first).
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
    void openMeasuredRunWithDialog();
    void exportImageWithDialog();
    void exportChromeTraceWithDialog();

Q_SIGNALS:
    void traceExported(const QString& path);

private:
    void refreshPlanBoxes();
    void showSelection();
    void selectFromBoxes();
    void showDocument(std::shared_ptr<const controllers::TimelineDocument> document);
    void showFailure(controllers::TimelineSources::Job job, const QString& message);

    controllers::TimelineSources* m_sources;
    controllers::MeasuredRunImport* m_measured;
    QComboBox* m_first;
    QComboBox* m_second;
    TimelineWidget* m_widget;
    TimelineLegend* m_legend = nullptr;
    QLabel* m_summary;
    QAction* m_exportImage;
    QAction* m_exportTrace;
    bool m_updatingBoxes = false;
};

} // namespace stratex::ui
