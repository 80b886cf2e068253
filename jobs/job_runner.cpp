// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobs/job_runner.h"

#include <QCoreApplication>

namespace stratex::jobs {

JobRunner::JobRunner(QObject* parent)
    : QObject(parent)
{
}

JobRunner::~JobRunner()
{
    if (m_currentWatcher) {
        m_currentWatcher->disconnect(this);
        m_currentWatcher->cancel();
    }
    if (m_waitCurrent)
        m_waitCurrent();
}

quint64 JobRunner::beginJob(const QString& title, QFutureWatcherBase* watcher)
{
    if (m_currentWatcher)
        m_currentWatcher->cancel(); // its outcome is dropped by the id check
    const quint64 id = ++m_currentId;
    m_currentWatcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, id](int value) {
        if (id == m_currentId)
            Q_EMIT progressChanged(value, m_currentWatcher ? m_currentWatcher->progressText() : QString());
    });
    const bool wasRunning = m_running;
    m_running = true;
    Q_EMIT started(title);
    if (!wasRunning)
        Q_EMIT runningChanged(true);
    return id;
}

void JobRunner::endJob(quint64 id, End end, const QString& error)
{
    if (id != m_currentId)
        return;
    m_currentWatcher = nullptr;
    m_waitCurrent = nullptr;
    m_running = false;
    switch (end) {
    case End::Succeeded:
        Q_EMIT succeeded();
        break;
    case End::Failed:
        Q_EMIT failed(error);
        break;
    case End::Cancelled:
        Q_EMIT cancelled();
        break;
    }
    Q_EMIT runningChanged(false);
}

std::function<void(std::function<void()>)> JobRunner::posterForNextJob()
{
    const quint64 id = m_currentId + 1; // start() gives the next job this id
    QPointer<JobRunner> runner(this);
    return [runner, id](std::function<void()> delivery) {
        // invokeMethod with `runner` as context drops the call if the runner is gone.
        QMetaObject::invokeMethod(
            runner.data(),
            [runner, id, delivery = std::move(delivery)] {
                if (runner && runner->m_currentId == id && runner->m_running)
                    delivery();
            },
            Qt::QueuedConnection);
    };
}

void JobRunner::cancel()
{
    if (m_currentWatcher)
        m_currentWatcher->cancel();
}

void JobRunner::waitForIdle()
{
    while (m_running) {
        if (m_waitCurrent)
            m_waitCurrent();
        // Deliver the watcher's finished signal (queued to this thread).
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
}

} // namespace stratex::jobs
