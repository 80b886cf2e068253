// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include <QObject>
#include <QString>

#include "core/profile/profile_overview.h"

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::controllers {

// The Profiles page's state below its widgets: reads a profile set (the search's way of finding
// and loading files, at the profiles' own sequence length) on a worker and keeps what it says as
// a ProfileOverview. A new folder supersedes the one still loading.
class ProfilesController : public QObject {
    Q_OBJECT
public:
    explicit ProfilesController(QObject* parent = nullptr);
    ~ProfilesController() override;

    // Loads the set in `dir`: loadStarted, then overviewReady or loadFailed.
    void load(const QString& dir);
    // The folder last asked for.
    QString folder() const { return m_folder; }
    // The overview of the last set read; null before the first, after a failure.
    std::shared_ptr<const profile::ProfileOverview> overview() const { return m_overview; }

    jobs::JobRunner* runner() const { return m_runner; }

Q_SIGNALS:
    void loadStarted(const QString& dir);
    void overviewReady(std::shared_ptr<const stratex::profile::ProfileOverview> overview);
    void loadFailed(const QString& message);

private:
    QString m_folder;
    std::shared_ptr<const profile::ProfileOverview> m_overview;
    jobs::JobRunner* m_runner;
};

// What the set in `dir` says, read the search's way (the same files, the same sequence length).
// Throws stratex::Error naming the file and key that do not parse.
profile::ProfileOverview readProfileOverview(const QString& dir);

} // namespace stratex::controllers
