// SPDX-License-Identifier: GPL-3.0-or-later
// The search's thread pool: every item runs exactly once on any number of threads, the caller's
// thread takes part, and a failure is reported as the lowest failing item's, whatever the timing.
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <QTest>

#include "core/common/error.h"
#include "core/common/parallel_for.h"

using namespace stratex;

class TestParallelFor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyItemOnce_data();
    void everyItemOnce();
    void lowestFailureWins();
    void effectiveThreadCount();
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
}

QTEST_GUILESS_MAIN(TestParallelFor)
#include "tst_parallel_for.moc"
