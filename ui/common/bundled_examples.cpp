// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/bundled_examples.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QStandardPaths>

#include "core/common/error.h"
#include "core/profile/synth/synthesis_record.h"

namespace stratex::ui {

namespace {

constexpr const char* kExampleName = "llama2-13b-a100-40gb-2x8";

} // namespace

BundledProfiles extractBundledProfiles()
{
    BundledProfiles example;
    const QString source = QStringLiteral(":/examples/") + QLatin1String(kExampleName);
    QString base = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    if (base.isEmpty())
        base = QDir::tempPath() + QStringLiteral("/stratex");
    const QString target = base + QStringLiteral("/examples/") + QLatin1String(kExampleName);
    if (!QDir().mkpath(target)) {
        example.error = QObject::tr("cannot create %1").arg(target);
        return example;
    }
    const QStringList names = QDir(source).entryList(QDir::Files, QDir::Name);
    if (names.isEmpty()) {
        example.error = QObject::tr("the bundled example is missing from the resources");
        return example;
    }
    for (const QString& name : names) {
        QFile in(source + QLatin1Char('/') + name);
        QSaveFile out(target + QLatin1Char('/') + name);
        if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly) || out.write(in.readAll()) < 0
            || !out.commit()) {
            example.error = QObject::tr("cannot write %1: %2").arg(out.fileName(), out.errorString());
            return example;
        }
    }
    example.dir = target;
    try {
        if (const auto record = profile::synth::readSynthesisRecord(target.toStdString()))
            example.description = modelOnCluster(record->model.name, record->cluster);
    } catch (const Error&) {
        // The search reports a damaged record; the description is only a label.
    }
    return example;
}

QString modelOnCluster(const std::string& model, const std::optional<hardware::ClusterDescription>& cluster)
{
    const QString name = QString::fromStdString(model);
    if (!cluster)
        return name;
    // GPU presets are named in lower case ("a100-40gb"); datasheets and users write "A100-40GB".
    return QObject::tr("%1 on %2 × %3 %4")
        .arg(name)
        .arg(cluster->num_nodes)
        .arg(cluster->gpus_per_node)
        .arg(QString::fromStdString(cluster->gpu.name).toUpper());
}

} // namespace stratex::ui
