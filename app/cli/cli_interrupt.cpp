// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/cli_interrupt.h"

#include <atomic>
#include <csignal>
#include <unistd.h>

#include "core/common/atomic_file.h"

namespace stratex::cli {

namespace {

std::atomic<bool> g_cooperative { false };
std::atomic<bool> g_interrupted { false };
static_assert(std::atomic<bool>::is_always_lock_free, "used in a signal handler");

extern "C" void onSignal(int signal)
{
    if (signal == SIGINT && g_cooperative.load()) {
        g_interrupted.store(true);
        return;
    }
    removePendingTemporaries();
    ::_exit(128 + signal);
}

} // namespace

void installInterruptHandlers()
{
    struct sigaction action { };
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

InterruptProgress::InterruptProgress()
{
    g_interrupted.store(false);
    g_cooperative.store(true);
}

InterruptProgress::~InterruptProgress()
{
    g_cooperative.store(false);
}

bool InterruptProgress::cancelled() const
{
    return g_interrupted.load(std::memory_order_relaxed);
}

void InterruptProgress::finish()
{
    g_cooperative.store(false);
    if (g_interrupted.load())
        throw Cancelled {};
}

} // namespace stratex::cli
