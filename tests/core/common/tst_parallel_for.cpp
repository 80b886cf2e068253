// SPDX-License-Identifier: GPL-3.0-or-later
// The search's thread pool: every item runs exactly once on any number of threads, the caller's
// thread takes part, and a failure is reported as the lowest failing item's, whatever the timing.
#include <atomic>
#include <cstdio>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <mutex>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include <QTest>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"
#include "core/common/parallel_for.h"

using namespace stratex;

class TestParallelFor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyItemOnce_data();
    void everyItemOnce();
    void lowestFailureWins();
    void effectiveThreadCount();
    void threadsTheSystemRefusesAreNotAnError();
};

void TestParallelFor::everyItemOnce_data()
{
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("threads");
    QTest::newRow("empty") << 0 << 4;
    QTest::newRow("one thread") << 100 << 1;
    QTest::newRow("two threads") << 1000 << 2;
    QTest::newRow("more threads than items") << 3 << 16;
}

void TestParallelFor::everyItemOnce()
{
    QFETCH(int, count);
    QFETCH(int, threads);
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
    std::mutex mutex;
    std::set<std::thread::id> threadIds;
    std::set<int> workers;
    parallelFor(count, threads, [&](int worker, int item) {
        runs[std::size_t(item)].fetch_add(1);
        const std::lock_guard lock(mutex);
        threadIds.insert(std::this_thread::get_id());
        workers.insert(worker);
    });
    for (const auto& r : runs)
        QCOMPARE(r.load(), 1);
    for (int worker : workers)
        QVERIFY(worker >= 0 && worker < std::max(1, threads));
    if (count > 0)
        QVERIFY(threadIds.size() <= std::size_t(std::min(count, threads)));
}

void TestParallelFor::lowestFailureWins()
{
    for (int attempt = 0; attempt < 20; ++attempt) {
        try {
            parallelFor(200, 3, [&](int, int item) {
                if (item == 150 || item == 40 || item == 170)
                    throw Error("item " + std::to_string(item));
                std::this_thread::sleep_for(std::chrono::microseconds(item % 7));
            });
            QFAIL("expected an exception");
        } catch (const Error& error) {
            QCOMPARE(std::string(error.what()), std::string("item 40"));
        }
    }
}

void TestParallelFor::effectiveThreadCount()
{
    QCOMPARE(effectiveThreads(3), 3);
    QVERIFY(effectiveThreads(0) >= 1);
    QCOMPARE(effectiveThreads(400), limits::kMaxThreads); // issue 26: --threads 400 is clamped
    QCOMPARE(effectiveThreads(std::numeric_limits<int>::max()), limits::kMaxThreads);
}

void TestParallelFor::threadsTheSystemRefusesAreNotAnError()
{
    // Issue 26: under `ulimit -v` the threads' stacks could not be mapped, std::thread threw and
    // the vector of joinable threads was destroyed: std::terminate (SIGABRT). In a child process
    // whose address space is capped a little above what it uses, 200 threads (8 MB stacks each)
    // cannot all be created; every item must still run once and the child exit normally.
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        long pages = 0;
        if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(statm, "%ld", &pages) != 1)
                pages = 0;
            std::fclose(statm);
        }
        if (pages <= 0)
            ::_exit(3);
        const rlim_t cap = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(64) << 20);
        const rlimit limit { cap, cap };
        if (::setrlimit(RLIMIT_AS, &limit) != 0)
            ::_exit(4);
        std::atomic<int> done { 0 };
        try {
            parallelFor(2000, 200, [&](int, int) { done.fetch_add(1); });
        } catch (...) {
            ::_exit(5);
        }
        ::_exit(done.load() == 2000 ? 0 : 6);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFEXITED(status), WIFSIGNALED(status) ? qPrintable(QStringLiteral("signal %1").arg(WTERMSIG(status)))
                                                    : "stopped");
    QCOMPARE(WEXITSTATUS(status), 0);
}

QTEST_GUILESS_MAIN(TestParallelFor)
#include "tst_parallel_for.moc"
