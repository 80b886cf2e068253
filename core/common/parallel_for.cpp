// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"

namespace stratex {

int effectiveThreads(int requested)
{
    if (requested > 0)
        return std::min(requested, limits::kMaxThreads);
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? int(hardware) : 1;
}

void parallelFor(int count, int threads, const std::function<void(int worker, int item)>& body)
{
    threads = std::max(1, std::min({ threads, count, limits::kMaxThreads }));
    std::atomic<int> next { 0 };
    std::atomic<bool> failed { false };
    std::mutex errorMutex;
    int errorItem = -1;
    std::exception_ptr error;

    const auto work = [&](int worker) {
        while (!failed.load(std::memory_order_relaxed)) {
            const int item = next.fetch_add(1, std::memory_order_relaxed);
            if (item >= count)
                return;
            try {
                body(worker, item);
            } catch (...) {
                const std::lock_guard lock(errorMutex);
                if (errorItem < 0 || item < errorItem) {
                    errorItem = item;
                    error = std::current_exception();
                }
                failed.store(true, std::memory_order_relaxed);
            }
        }
    };

    std::vector<std::thread> pool;
    pool.reserve(std::size_t(threads - 1));
    for (int worker = 1; worker < threads; ++worker) {
        // A thread the system cannot create (EAGAIN: out of memory for its stack, or a process
        // limit) is not an error: the items are shared by the threads that exist. Letting
        // std::system_error unwind the vector of joinable threads called std::terminate (SIGABRT
        // for `search --threads 400` under a memory limit, issue 26).
        try {
            pool.emplace_back(work, worker);
        } catch (const std::system_error&) {
            break;
        }
    }
    work(0);
    for (std::thread& thread : pool)
        thread.join();
    if (error)
        std::rethrow_exception(error);
}

} // namespace stratex
