// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include "core/ranks/parallel_config.h"
#include "ui/page.h"
#include "ui/ranks/rank_grid_view.h"

class QAction;
class QCheckBox;
class QLabel;
class QComboBox;
class QListWidget;

namespace stratex::controllers {
class RanksController;
}

namespace stratex::ui {

class ParallelConfigForm;
class RankDetails;
class RankGridWidget;
class TracerPanel;

// The Ranks page: a parallel-config form that validates as you type, Megatron's rank grid
// (pipeline stages as bands, node boundaries, groups coloured and highlighted, tracer ranks
// marked), the selected rank's groups, and the tracer's batch configs. A view over RanksController,
// which lays the grid out and plans the tracer on workers.
class RanksPage : public Page {
    Q_OBJECT
public:
    explicit RanksPage(QWidget* parent = nullptr);
    ~RanksPage() override;

    QString pageId() const override { return QStringLiteral("ranks"); }
    QString title() const override { return tr("Ranks"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;
    bool hasPendingWork() const override;
    QList<QAction*> exportActions() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;
    bool canOpen(const QString& path) const override;
    bool openFile(const QString& path, QString* error) override;

    controllers::RanksController* controller() const { return m_controller; }
    ParallelConfigForm* form() const { return m_form; }
    RankGridWidget* grid() const { return m_grid; }
    TracerPanel* tracer() const { return m_tracer; }
    RankDetails* details() const { return m_details; }
    QListWidget* warnings() const { return m_warnings; }
    QComboBox* colourBox() const { return m_colourBy; }
    QComboBox* highlightBox() const { return m_highlight; }
    QCheckBox* overviewBox() const { return m_overview; }
    QLabel* hoverLine() const { return m_hoverLine; }

    // Saves the whole grid as PNG or SVG (by extension). False with `error` on failure.
    bool exportGridImage(const QString& path, QString* error) const;

public Q_SLOTS:
    void exportGridImageWithDialog();

private:
    void showView(std::shared_ptr<const RankGridView> view);
    void showLayoutFailure(const QString& message);
    void showHovered(int rank);

    controllers::RanksController* m_controller;
    ParallelConfigForm* m_form;
    QListWidget* m_warnings;
    RankDetails* m_details;
    QComboBox* m_colourBy;
    QComboBox* m_highlight;
    RankGridWidget* m_grid;
    QCheckBox* m_overview;
    QLabel* m_hoverLine;
    TracerPanel* m_tracer;
    QAction* m_exportImage;
    QAction* m_exportScript;
};

} // namespace stratex::ui
