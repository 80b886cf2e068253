// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <mutex>
#include <string>

#include <QPromise>
#include <QString>

#include "core/common/progress.h"

namespace stratex::jobs {

// The throttling half of PromiseProgress, independent of the promise's result type: decides
// whether a report is worth sending (a change of at least 0.1 % or a new message).
class ProgressThrottle {
public:
    static constexpr int kRange = 1000;
    // Returns the 0..kRange value to send, or -1 when the report adds nothing.
    int accept(double fraction, std::string_view message);

private:
    std::mutex m_mutex;
    int m_lastValue = -1;
    std::string m_lastMessage;
};

// Adapts core's ProgressSink to a QPromise: fractions become progress values in 0..1000,
// messages the progress text, and cancelling the future makes cancelled() true.
template <typename T> class PromiseProgress final : public ProgressSink {
public:
    explicit PromiseProgress(QPromise<T>& promise)
        : m_promise(promise)
    {
        m_promise.setProgressRange(0, ProgressThrottle::kRange);
    }

    void report(double fraction, std::string_view message) override
    {
        const int value = m_throttle.accept(fraction, message);
        if (value >= 0)
            m_promise.setProgressValueAndText(value, QString::fromUtf8(message.data(), qsizetype(message.size())));
    }

    bool cancelled() const override { return m_promise.isCanceled(); }

private:
    QPromise<T>& m_promise;
    ProgressThrottle m_throttle;
};

} // namespace stratex::jobs
