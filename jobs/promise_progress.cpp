// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobs/promise_progress.h"

#include <algorithm>
#include <cmath>

namespace stratex::jobs {

int ProgressThrottle::accept(double fraction, std::string_view message)
{
    const int value = static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * kRange));
    std::lock_guard lock(m_mutex);
    const bool newMessage = message != m_lastMessage;
    if (value == m_lastValue && !newMessage)
        return -1;
    m_lastValue = value;
    if (newMessage)
        m_lastMessage.assign(message);
    return value;
}

} // namespace stratex::jobs
