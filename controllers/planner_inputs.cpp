// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/planner_inputs.h"

#include <QCoreApplication>
#include <QFile>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/planner/dynapipe_cost_model.h"

namespace stratex::controllers {

using namespace stratex::planner;

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("stratex::controllers::PlannerInputs", text);
}

std::shared_ptr<const LayerCostModel> loadCostModelFile(const QString& path)
{
    QByteArray json;
    if (path.startsWith(QLatin1Char(':'))) { // a Qt resource
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            throw Error(tr("%1: %2").arg(path, file.errorString()).toStdString());
        json = file.readAll();
    } else {
        json = QByteArray::fromStdString(readTextFile(path.toStdString()));
    }
    // Errors name the document: the resource path would mean nothing to a user.
    const std::string name
        = path == bundledCostModelPath() ? std::string("bundled synthetic cost model") : path.toStdString();
    const JsonDocument document
        = JsonDocument::parse(std::string_view(json.constData(), std::size_t(json.size())), name);
    return std::make_shared<const DynapipeCostModel>(DynapipeCostModel::fromJson(document.root()));
}

} // namespace

QString bundledCostModelPath()
{
    return QStringLiteral(":/examples/synthetic-gpt-1.3b-cost-model.json");
}

QString plannerInputsProblem(const PlannerInputs& inputs)
{
    if (inputs.useSearchCostModel) {
        if (!inputs.searchCostModel)
            return tr("no Galvatron profile yet: run a search first, or choose a cost model file");
    } else {
        QFile file(inputs.costModelPath);
        if (!file.open(QIODevice::ReadOnly))
            return tr("%1: %2").arg(inputs.costModelPath, file.errorString());
    }
    if (!inputs.syntheticLengths && inputs.lengthsFile.trimmed().isEmpty())
        return tr("choose a lengths file, or synthetic lengths");
    return {};
}

LoadedPlannerInputs loadPlannerInputs(const PlannerInputs& inputs)
{
    LoadedPlannerInputs loaded;
    loaded.model = inputs.useSearchCostModel ? inputs.searchCostModel : loadCostModelFile(inputs.costModelPath);
    if (!loaded.model)
        throw Error("no cost model");
    loaded.samples = inputs.syntheticLengths
        ? generateSyntheticSamples(inputs.synthetic, loaded.model->isEncoderDecoder())
        : loadSampleLengths(inputs.lengthsFile.trimmed().toStdString());
    return loaded;
}

} // namespace stratex::controllers
