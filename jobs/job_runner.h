// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <exception>
#include <functional>
#include <new>
#include <optional>

#include <QFutureWatcher>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QtConcurrent>

#include "jobs/promise_progress.h"
#include "core/common/error.h"
#include "core/common/progress.h"

namespace stratex::jobs {

// What a worker hands back to the GUI thread: a value or the error message. A cancelled job
// hands back nothing.
template <typename T> struct JobOutcome {
    std::optional<T> value;
    QString error;
};

// Runs core jobs on the global thread pool, one at a time per runner, "latest request wins":
// starting a job cancels the one still running and drops its result. The result callback runs
// on the runner's (GUI) thread. Progress, failure and cancellation are signals, so a page and
// the status bar can follow the same job.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(QObject* parent = nullptr);
    ~JobRunner() override; // cancels and waits: no worker outlives its page

    // work: T(stratex::ProgressSink&), may throw stratex::Error (reported by failed()) or
    // stratex::Cancelled. onResult: void(T), called on this object's thread.
    template <typename T, typename Work, typename OnResult>
    void start(const QString& title, Work work, OnResult onResult);

    // For jobs that hand over partial results while they run (the best plan so far): call this
    // right before start() and give the returned function to the job. Called from the worker, it
    // runs `delivery` on this runner's thread -- unless that job has been superseded or the
    // runner destroyed by then.
    std::function<void(std::function<void()> delivery)> posterForNextJob();

    void cancel();
    bool isRunning() const { return m_running; }
    // Blocks until the current job (if any) has delivered its outcome. For tests and batch use;
    // the GUI never calls it.
    void waitForIdle();

Q_SIGNALS:
    void started(const QString& title);
    void progressChanged(int permille, const QString& message);
    void succeeded();
    void failed(const QString& message);
    void cancelled();
    void runningChanged(bool running);

private:
    enum class End { Succeeded, Failed, Cancelled };
    quint64 beginJob(const QString& title, QFutureWatcherBase* watcher);
    void endJob(quint64 id, End end, const QString& error = {});

    quint64 m_currentId = 0;
    bool m_running = false;
    QFutureWatcherBase* m_currentWatcher = nullptr;
    std::function<void()> m_waitCurrent;
};

template <typename T, typename Work, typename OnResult>
void JobRunner::start(const QString& title, Work work, OnResult onResult)
{
    using Outcome = JobOutcome<T>;
    auto* watcher = new QFutureWatcher<Outcome>(this);
    const quint64 id = beginJob(title, watcher);

    connect(
        watcher, &QFutureWatcherBase::finished, this, [this, watcher, id, onResult = std::move(onResult)]() mutable {
            watcher->deleteLater();
            if (id != m_currentId)
                return; // superseded by a newer job
            QFuture<Outcome> future = watcher->future();
            if (future.isCanceled() || future.resultCount() == 0) {
                endJob(id, End::Cancelled);
                return;
            }
            Outcome outcome = future.takeResult();
            if (!outcome.value) {
                endJob(id, End::Failed, outcome.error);
                return;
            }
            onResult(std::move(*outcome.value));
            endJob(id, End::Succeeded);
        });

    QFuture<Outcome> future
        = QtConcurrent::run([work = std::move(work), title](QPromise<Outcome>& promise) mutable {
        PromiseProgress<Outcome> progress(promise);
        Outcome outcome;
        try {
            outcome.value.emplace(work(progress));
        } catch (const Cancelled&) {
            return; // no result: the watcher reports cancellation
        } catch (const std::bad_alloc&) {
            // The job boundary (issue 26: "error: out of memory" named nothing): the job, whose
            // title names what it works on; the unwinding released the memory for the message.
            outcome.error = QStringLiteral("out of memory: %1 needs more than this machine holds "
                                           "(README.md, \"Limits\")")
                                .arg(title);
        } catch (const std::exception& error) {
            outcome.error = QString::fromUtf8(error.what());
        }
        promise.addResult(std::move(outcome));
    });
    m_waitCurrent = [future]() mutable { future.waitForFinished(); };
    watcher->setFuture(future);
}

} // namespace stratex::jobs
