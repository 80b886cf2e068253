// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include "core/profile/profile_overview.h"
#include "ui/page.h"

class QLabel;
class QLineEdit;

namespace stratex::controllers {
class ProfilesController;
}

namespace stratex::ui {

class PaletteChartView;

// The Profiles page: what a profile set (measured by Galvatron's profilers, or estimated by the
// synthesizer) says — forward time against batch size and sequence length with the fits the
// search uses, memory per layer by TP degree, collective bandwidths — so a user can judge the
// numbers before trusting a search on them. A view over ProfilesController, which reads the set
// on a worker thread.
class ProfilesPage : public Page {
    Q_OBJECT
public:
    explicit ProfilesPage(QWidget* parent = nullptr);

    QString pageId() const override { return QStringLiteral("profiles"); }
    QString title() const override { return tr("Profiles"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;

    // Loads and shows the set in `dir` (the search's way of finding files).
    void showFolder(const QString& dir);
    QString folder() const;
    const profile::ProfileOverview* overview() const;
    controllers::ProfilesController* controller() const { return m_controller; }
    QString summaryText() const;

Q_SIGNALS:
    // "Synthesize…" wrote a set: the window searches it.
    void synthesized(const QString& dir);

private:
    void show(const profile::ProfileOverview* overview);

    controllers::ProfilesController* m_controller;
    QLineEdit* m_folder;
    QLabel* m_summary;
    PaletteChartView* m_batch;
    PaletteChartView* m_sequence;
    PaletteChartView* m_memory;
    PaletteChartView* m_bandwidth;
};

} // namespace stratex::ui
