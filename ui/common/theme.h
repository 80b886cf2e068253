// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace stratex::ui {

// View > Theme. Qt 6.4 has no colour-scheme API, so Light and Dark are the Fusion style with our
// own palettes (and unchecked check boxes and radio buttons outlined so that they are seen:
// theme.cpp); System keeps the platform's style and palette. Custom widgets draw from the
// palette, so they follow.
enum class Theme { System, Light, Dark };

void applyTheme(Theme theme);
QString themeName(Theme theme);
Theme themeFromName(const QString& name);

} // namespace stratex::ui
