// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>

namespace stratex::ui {

// A fixed qualitative palette (Tableau 10, designed to stay distinguishable for colour-vision
// deficiencies) readable on light and dark backgrounds. Indices cycle.
QColor categoricalColor(int index);
inline constexpr int kCategoricalColorCount = 10;

// Black or white, whichever reads better on `background`.
QColor contrastingTextColor(const QColor& background);

} // namespace stratex::ui
