// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/image_export.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace stratex::ui {

namespace {
bool commit(QSaveFile& file, QString* error)
{
    if (file.commit())
        return true;
    if (error)
        *error = QCoreApplication::translate("ImageExport", "%1: %2").arg(file.fileName(), file.errorString());
    return false;
}
} // namespace

bool saveRendering(
    const QString& path, QSize size, const std::function<void(QPainter&)>& render, const QString& title, QString* error)
{
    if (size.isEmpty()) {
        if (error)
            *error = QCoreApplication::translate("ImageExport", "nothing to export");
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QCoreApplication::translate("ImageExport", "%1: %2").arg(path, file.errorString());
        return false;
    }
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(title);
        generator.setDescription(QCoreApplication::translate("ImageExport", "Exported by Stratex"));
        {
            QPainter painter(&generator);
            render(painter);
        }
        file.write(buffer.data());
        return commit(file, error);
    }
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        render(painter);
    }
    if (!image.save(&file, "PNG")) {
        file.cancelWriting();
        if (error)
            *error = QCoreApplication::translate("ImageExport", "%1: cannot encode PNG").arg(path);
        return false;
    }
    return commit(file, error);
}

QString imageFileFilter()
{
    return QCoreApplication::translate("ImageExport", "PNG image (*.png);;SVG image (*.svg)");
}

} // namespace stratex::ui
