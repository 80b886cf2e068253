// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/profiles_controller.h"

#include <utility>

#include "core/profile/profile_discovery.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_settings.h"

#include "jobs/job_runner.h"

namespace stratex::controllers {

profile::ProfileOverview readProfileOverview(const QString& dir)
{
    profile::ProfileDiscovery request;
    request.profilesDir = dir.toStdString();
    // The search's own loading: the same files, the same sequence length.
    galvatron::SearchSettings settings;
    settings.time_profile_mode = profile::TimeProfileMode::Static;
    const galvatron::SearchInputs inputs = galvatron::loadSearchInputs(request, settings, {});
    profile::ProfileOverview overview = profile::describeProfiles(inputs.profiles, settings.model.seq_length);
    overview.estimated = inputs.estimated;
    return overview;
}

ProfilesController::ProfilesController(QObject* parent)
    : QObject(parent)
    , m_runner(new jobs::JobRunner(this))
{
    connect(m_runner, &jobs::JobRunner::failed, this, [this](const QString& message) {
        m_overview.reset();
        Q_EMIT loadFailed(message);
    });
}

ProfilesController::~ProfilesController() = default;

void ProfilesController::load(const QString& dir)
{
    m_folder = dir;
    Q_EMIT loadStarted(dir);
    m_runner->start<std::shared_ptr<const profile::ProfileOverview>>(
        tr("Reading profiles"),
        [dir](ProgressSink&) { return std::make_shared<const profile::ProfileOverview>(readProfileOverview(dir)); },
        [this](std::shared_ptr<const profile::ProfileOverview> overview) {
            m_overview = overview;
            Q_EMIT overviewReady(std::move(overview));
        });
}

} // namespace stratex::controllers
