// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <string_view>

namespace stratex {

// Thrown by long-running core jobs when the caller asked them to stop. Not an error: the
// caller requested it, so it is kept outside the Error hierarchy.
struct Cancelled { };

// Core's own progress and cancellation channel, so that core stays Qt-free. app/ adapts it to
// QPromise; the CLI uses it as is. Implementations must be thread-safe: a parallel job reports
// from several worker threads.
class ProgressSink {
public:
    virtual ~ProgressSink() = default;

    // fraction in [0, 1]; message is a short human-readable description of the current step.
    virtual void report(double fraction, std::string_view message) = 0;
    virtual bool cancelled() const = 0;

    void throwIfCancelled() const
    {
        if (cancelled())
            throw Cancelled {};
    }
};

// Never cancelled, ignores reports.
class NullProgress final : public ProgressSink {
public:
    void report(double, std::string_view) override { }
    bool cancelled() const override { return false; }
};

// A sink whose cancel flag is set from outside; useful for the CLI (signals) and for tests.
class CancelFlagProgress : public ProgressSink {
public:
    void report(double, std::string_view) override { }
    bool cancelled() const override { return m_cancelled.load(std::memory_order_relaxed); }
    void cancel() { m_cancelled.store(true, std::memory_order_relaxed); }

private:
    std::atomic<bool> m_cancelled { false };
};

// Maps the [0, 1] progress of a sub-step onto [begin, end] of its parent, so nested jobs do
// not need to know where they sit in the whole.
class SubProgress final : public ProgressSink {
public:
    SubProgress(ProgressSink& parent, double begin, double end);
    void report(double fraction, std::string_view message) override;
    bool cancelled() const override { return m_parent.cancelled(); }

private:
    ProgressSink& m_parent;
    double m_begin;
    double m_end;
};

} // namespace stratex
