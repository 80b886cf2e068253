// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/categorical_palette.h"

#include <array>

namespace stratex::ui {

QColor categoricalColor(int index)
{
    static constexpr std::array<QRgb, kCategoricalColorCount> kColors { 0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2,
        0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC };
    const int slot = ((index % kCategoricalColorCount) + kCategoricalColorCount) % kCategoricalColorCount;
    return QColor::fromRgb(kColors[std::size_t(slot)]);
}

QColor contrastingTextColor(const QColor& background)
{
    // Relative luminance per ITU-R BT.709, good enough to pick black or white text.
    const double luminance = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace stratex::ui
