// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/file_routing.h"

#include <QDir>
#include <QFileInfo>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/galvatron/strategy_file.h"
#include "core/megatron/plan_file.h"

namespace stratex::controllers {

bool searchPageOpens(const QString& path)
{
    const QFileInfo info(path);
    if (info.isFile())
        return galvatron::isStrategyFile(path.toStdString()) || megatron::isPlanFile(path.toStdString());
    return info.isDir()
        && !QDir(path).entryList({ QStringLiteral("computation_profiling_*.json") }, QDir::Files).isEmpty();
}

bool ranksPageOpens(const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("txt") || suffix == QLatin1String("conf") || suffix == QLatin1String("cfg");
}

bool timelinePageOpens(const QString& path)
{
    if (QFileInfo(path).suffix().compare(QLatin1String("json"), Qt::CaseInsensitive) != 0)
        return false;
    try {
        const JsonDocument document = JsonDocument::load(path.toStdString());
        return document.root().isObject() && document.root().has("cases");
    } catch (const Error&) {
        return true;
    }
}

FileRoute fileRoute(const QString& path)
{
    if (searchPageOpens(path))
        return FileRoute::Search;
    if (ranksPageOpens(path))
        return FileRoute::Ranks;
    if (timelinePageOpens(path))
        return FileRoute::Timeline;
    return FileRoute::None;
}

QString routePageId(FileRoute route)
{
    switch (route) {
    case FileRoute::Search:
        return QStringLiteral("search");
    case FileRoute::Ranks:
        return QStringLiteral("ranks");
    case FileRoute::Timeline:
        return QStringLiteral("timeline");
    case FileRoute::None:
        break;
    }
    return {};
}

} // namespace stratex::controllers
