// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include <QSize>
#include <QString>

class QPainter;

namespace stratex::ui {

// Saves a rendering to PNG or SVG, chosen by the file's extension (.svg → SVG, anything else →
// PNG). `render` paints into a canvas of `size` pixels. Written through QSaveFile, so a failure
// leaves no half-written file. Returns false and fills `error` on failure.
bool saveRendering(const QString& path, QSize size, const std::function<void(QPainter&)>& render, const QString& title,
    QString* error);

// "Images (*.png *.svg)" style filter for file dialogs.
QString imageFileFilter();

} // namespace stratex::ui
