// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <vector>

#include <QList>
#include <QObject>
#include <QString>

#include "core/ranks/batch_config.h"
#include "core/ranks/parallel_config.h"
#include "core/ranks/tracer_plan.h"

#include "controllers/rank_grid_view.h"

class QTimer;

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {


// The Ranks page's state below its widgets: the parallel layout, laid out as a rank grid on a
// worker (Megatron's rules, the layout's warnings, the groups and the tracer's ranks), and the
// workload tracer's batch configs and settings, planned on a worker and written as a tracer
// script. Edits come in bursts (typing), so both jobs start after a short quiet period; a new
// edit supersedes the job still running (JobRunner: latest request wins).
class RanksController : public QObject {
    Q_OBJECT
public:
    static constexpr int kLayoutDelayMs = 150;
    static constexpr int kPlanningDelayMs = 120;

    explicit RanksController(QObject* parent = nullptr);
    ~RanksController() override;

    // The layout to show: laid out after kLayoutDelayMs (viewReady or layoutFailed follows);
    // the tracer takes its cp, ep, etp, order and GPUs per node and plans again.
    void setLayout(const ranks::ParallelConfig& layout);
    const ranks::ParallelConfig& layout() const { return m_layout; }
    // The last layout laid out, or null (none yet, or the last one was invalid).
    std::shared_ptr<const RankGridView> view() const { return m_view; }

    // The tracer's batch configs as the user edits them: planned after kPlanningDelayMs
    // (tracerPlansReady or tracerPlanningFailed follows).
    void setBatchConfigs(std::vector<ranks::BatchConfig> configs);
    const std::vector<ranks::BatchConfig>& batchConfigs() const { return m_configs; }
    // Reads "WORLD_SIZE PP TP" lines (ranks::loadBatchConfigs); batchConfigsLoaded follows. A
    // bad field is a config whose plan says so. False with `error` naming the file (and line)
    // when it cannot be read, is not UTF-8, holds control characters or has no config; the
    // configs stay.
    bool loadBatchFile(const QString& path, QString* error);
    // Reads a batch file as loadBatchFile does, changing nothing: false with `error` also when no
    // line of it reads as a config (the file is not a batch list). For a page that asks before
    // replacing the user's configs (setLoadedBatchConfigs then).
    static bool readBatchFile(const QString& path, std::vector<ranks::BatchConfig>* configs, QString* error);
    // The configs read from `path` replace the current ones; batchConfigsLoaded follows.
    void setLoadedBatchConfigs(const QString& path, std::vector<ranks::BatchConfig> configs);
    // The tracer's own settings (model name, micro-batches, selection); the layout's fields of
    // `settings` are ignored: they follow setLayout.
    void setTracerSettings(const ranks::TracerSettings& settings);
    // The settings the tracer plans with: the user's, with the layout's cp, ep, etp, order and
    // GPUs per node.
    ranks::TracerSettings tracerSettings() const;
    // The plans of the current configs (empty until planned).
    const std::vector<ranks::TraceConfigPlan>& tracerPlans() const { return m_plans; }
    ranks::TracerSummary tracerSummary() const { return ranks::summarizeTracer(m_plans); }
    // Writes the tracer script for the current configs on a worker; scriptExported or
    // scriptExportFailed follows. `commandTemplate`: the command per traced rank.
    void exportScript(const QString& path, const QString& commandTemplate);

    // A layout or a planning waits for its quiet period.
    bool hasPendingWork() const;
    jobs::JobRunner* layoutRunner() const { return m_layoutRunner; }
    jobs::JobRunner* planningRunner() const { return m_planningRunner; }
    jobs::JobRunner* exportRunner() const { return m_exportRunner; }
    QList<jobs::JobRunner*> runners() const { return { m_layoutRunner, m_planningRunner, m_exportRunner }; }

Q_SIGNALS:
    void viewReady(std::shared_ptr<const stratex::controllers::RankGridView> view);
    void layoutFailed(const QString& message);
    void batchConfigsLoaded(const QString& path);
    void tracerPlansReady();
    void tracerPlanningFailed(const QString& message);
    void scriptExported(const QString& path);
    void scriptExportFailed(const QString& message);

private:
    void layOut();
    void plan();

    ranks::ParallelConfig m_layout;
    std::shared_ptr<const RankGridView> m_view;
    std::vector<ranks::BatchConfig> m_configs;
    ranks::TracerSettings m_tracer;
    std::vector<ranks::TraceConfigPlan> m_plans;
    QTimer* m_layoutDelay;
    QTimer* m_planningDelay;
    jobs::JobRunner* m_layoutRunner;
    jobs::JobRunner* m_planningRunner;
    jobs::JobRunner* m_exportRunner;
};

} // namespace stratex::controllers
