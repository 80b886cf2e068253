// SPDX-License-Identifier: GPL-3.0-or-later
// The worker-thread glue: results arrive on the GUI thread, progress flows through core's
// ProgressSink, cancel stops a job, errors become failed(), and the latest job wins.
#include <atomic>
#include <chrono>
#include <thread>

#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include "jobs/job_runner.h"
#include "core/common/error.h"

using namespace stratex;
using namespace stratex::jobs;

class TestJobRunner : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deliversResultOnOwnerThread();
    void reportsProgress();
    void cancelStopsJob();
    void errorBecomesFailed_data();
    void errorBecomesFailed();
    void latestJobWins();
    void destructorWaitsForWorker();
    void partialResultsArriveWhileRunning();
};

void TestJobRunner::deliversResultOnOwnerThread()
{
    JobRunner runner;
    QSignalSpy succeeded(&runner, &JobRunner::succeeded);
    QSignalSpy running(&runner, &JobRunner::runningChanged);
    std::atomic<bool> ranOnOtherThread { false };
    int result = 0;
    QThread* resultThread = nullptr;
    runner.start<int>(
        QStringLiteral("sum"),
        [&](ProgressSink&) {
            ranOnOtherThread = QThread::currentThread() != qApp->thread();
            int sum = 0;
            for (int i = 1; i <= 100; ++i)
                sum += i;
            return sum;
        },
        [&](int value) {
            result = value;
            resultThread = QThread::currentThread();
        });
    QVERIFY(runner.isRunning());
    QVERIFY(succeeded.wait(5000));
    QCOMPARE(result, 5050);
    QVERIFY(ranOnOtherThread);
    QCOMPARE(resultThread, qApp->thread());
    QVERIFY(!runner.isRunning());
    QCOMPARE(running.count(), 2); // true, then false
}

void TestJobRunner::reportsProgress()
{
    JobRunner runner;
    QSignalSpy progress(&runner, &JobRunner::progressChanged);
    QSignalSpy succeeded(&runner, &JobRunner::succeeded);
    runner.start<int>(
        QStringLiteral("steps"),
        [](ProgressSink& sink) {
            for (int i = 1; i <= 5; ++i) {
                sink.report(i / 5.0, "step " + std::to_string(i));
                std::this_thread::sleep_for(std::chrono::milliseconds(60));
            }
            return 0;
        },
        [](int) {});
    QVERIFY(succeeded.wait(5000));
    QVERIFY(progress.count() >= 1);
    // Values are per mille and end at the last report.
    const QList<QVariant> last = progress.takeLast();
    QCOMPARE(last.at(0).toInt(), 1000);
    QCOMPARE(last.at(1).toString(), QStringLiteral("step 5"));
}

void TestJobRunner::cancelStopsJob()
{
    JobRunner runner;
    QSignalSpy cancelled(&runner, &JobRunner::cancelled);
    QSignalSpy succeeded(&runner, &JobRunner::succeeded);
    std::atomic<bool> started { false };
    std::atomic<int> iterations { 0 };
    bool delivered = false;
    runner.start<int>(
        QStringLiteral("endless"),
        [&](ProgressSink& sink) {
            started = true;
            for (;;) {
                sink.throwIfCancelled();
                ++iterations;
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return 0;
        },
        [&](int) { delivered = true; });
    QTRY_VERIFY_WITH_TIMEOUT(started.load(), 5000);
    runner.cancel();
    QVERIFY(cancelled.wait(5000));
    QCOMPARE(succeeded.count(), 0);
    QVERIFY(!delivered);
    QVERIFY(!runner.isRunning());
    const int after = iterations;
    QTest::qWait(50);
    QCOMPARE(iterations.load(), after); // the worker really stopped
}

void TestJobRunner::errorBecomesFailed_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("stratex-error") << 0 << "world size 10 is not divisible";
    QTest::newRow("std-exception") << 1 << "which is 3";
}

void TestJobRunner::errorBecomesFailed()
{
    QFETCH(int, kind);
    QFETCH(QString, message);
    JobRunner runner;
    QSignalSpy failed(&runner, &JobRunner::failed);
    runner.start<int>(
        QStringLiteral("bad"),
        [kind](ProgressSink&) -> int {
            if (kind == 0)
                throw Error("world size 10 is not divisible by tp*pp*cp = 4");
            return std::vector<int> {}.at(3);
        },
        [](int) {});
    QVERIFY(failed.wait(5000));
    QVERIFY2(failed.at(0).at(0).toString().contains(message), qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(!runner.isRunning());
}

void TestJobRunner::latestJobWins()
{
    JobRunner runner;
    QSignalSpy succeeded(&runner, &JobRunner::succeeded);
    QList<int> delivered;
    std::atomic<bool> firstStarted { false };
    runner.start<int>(
        QStringLiteral("slow"),
        [&](ProgressSink& sink) {
            firstStarted = true;
            for (int i = 0; i < 5000; ++i) {
                sink.throwIfCancelled();
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return 1;
        },
        [&](int value) { delivered << value; });
    QTRY_VERIFY_WITH_TIMEOUT(firstStarted.load(), 5000);
    runner.start<int>(
        QStringLiteral("fast"), [](ProgressSink&) { return 2; }, [&](int value) { delivered << value; });
    QVERIFY(succeeded.wait(5000));
    QTest::qWait(100);
    QCOMPARE(delivered, QList<int> { 2 });
    QCOMPARE(succeeded.count(), 1);
    QVERIFY(!runner.isRunning());
}

void TestJobRunner::destructorWaitsForWorker()
{
    std::atomic<bool> finished { false };
    {
        JobRunner runner;
        std::atomic<bool> started { false };
        runner.start<int>(
            QStringLiteral("cancel-on-destroy"),
            [&](ProgressSink& sink) {
                started = true;
                while (!sink.cancelled())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                finished = true;
                return 0;
            },
            [](int) {});
        QTRY_VERIFY_WITH_TIMEOUT(started.load(), 5000);
    }
    QVERIFY(finished.load());
}

void TestJobRunner::partialResultsArriveWhileRunning()
{
    JobRunner runner;
    QList<int> partial;
    QList<int> partialWhenFinished;
    QSignalSpy succeeded(&runner, &JobRunner::succeeded);
    auto post = runner.posterForNextJob();
    runner.start<int>(
        QStringLiteral("streaming"),
        [post, &partial](ProgressSink&) {
            for (int i = 1; i <= 3; ++i) {
                post([i, &partial] { partial << i; });
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            return 42;
        },
        [&](int) { partialWhenFinished = partial; });
    QVERIFY(succeeded.wait(5000));
    QCOMPARE(partialWhenFinished, (QList<int> { 1, 2, 3 })); // delivered on this thread, before the result
    partial.clear();

    // Real deliveries, and none from a superseded job.
    auto stalePost = runner.posterForNextJob();
    std::atomic<bool> release { false };
    runner.start<int>(
        QStringLiteral("stale"),
        [stalePost, &release](ProgressSink& sink) {
            while (!release && !sink.cancelled())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return 0;
        },
        [](int) {});
    auto currentPost = runner.posterForNextJob();
    runner.start<int>(
        QStringLiteral("current"),
        [currentPost, stalePost, &partial](ProgressSink&) {
            stalePost([&partial] { partial << -1; });
            currentPost([&partial] { partial << 7; });
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            return 1;
        },
        [](int) {});
    release = true;
    QVERIFY(succeeded.wait(5000));
    QCOMPARE(partial, QList<int> { 7 });
}

QTEST_GUILESS_MAIN(TestJobRunner)
#include "tst_job_runner.moc"
