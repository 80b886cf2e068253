// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/progress.h"

#include <algorithm>

namespace stratex {

SubProgress::SubProgress(ProgressSink& parent, double begin, double end)
    : m_parent(parent)
    , m_begin(begin)
    , m_end(end)
{
}

void SubProgress::report(double fraction, std::string_view message)
{
    m_parent.report(m_begin + (m_end - m_begin) * std::clamp(fraction, 0.0, 1.0), message);
}

} // namespace stratex
