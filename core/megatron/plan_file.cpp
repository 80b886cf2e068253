// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/plan_file.h"

#include "core/common/bounded_read.h"
#include "core/common/json_output.h"
#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/megatron/estimate_json.h"
#include "core/megatron/strategy_json.h"
#include "core/hardware/cluster_json.h"

namespace stratex::megatron {

PartialPlanFile PartialPlanFile::load(const std::filesystem::path& path)
{
    return readDocument(std::make_shared<const JsonDocument>(JsonDocument::load(path)), path.string());
}

PartialPlanFile PartialPlanFile::parse(std::string_view text, std::string name)
{
    return readDocument(std::make_shared<const JsonDocument>(JsonDocument::parse(text, name)), name);
}

PartialPlanFile PartialPlanFile::readDocument(std::shared_ptr<const JsonDocument> document, std::string file)
{
    const JsonView root = document->root();
    root.requireObject();
    const JsonView format = root["format"];
    if (format.string() != kPlanFileFormat)
        format.fail("\"stratex-plan\"");
    const JsonView version = root["version"];
    if (version.integer() != 1)
        version.fail("1");
    root["strategy"].requireObject();
    // Every root key is read: one the reader does not know would be dropped without a word (a
    // "framework" beside "strategy" costed a Megatron-Bridge plan as Megatron-Core's).
    for (const auto& [key, value] : root.members()) {
        if (key == "format" || key == "version" || key == "model" || key == "cluster" || key == "strategy"
            || key == "prediction")
            continue;
        if (isStrategyKey(key))
            value.fail("no \"" + key + "\" here: it is a strategy key, read only inside \"strategy\"");
        value.fail("one of the plan file's keys (format, version, model, cluster, strategy, prediction), not \"" + key
            + "\"");
    }
    PartialPlanFile plan;
    plan.m_file = std::move(file);
    if (const std::optional<JsonView> model = root.find("model"))
        plan.m_model = model::readModel(*model);
    if (const std::optional<JsonView> cluster = root.find("cluster"))
        plan.m_cluster = hardware::readCluster(*cluster);
    plan.m_document = std::move(document);
    return plan;
}

ParallelStrategy PartialPlanFile::strategy(
    const model::ModelDescription& model, long long worldSize, std::vector<std::string>* assumptions) const
{
    return readStrategy(m_document->root()["strategy"], model, worldSize, assumptions);
}

PlanFile PlanFile::load(const std::filesystem::path& path)
{
    return fromPartial(PartialPlanFile::load(path));
}

PlanFile PlanFile::parse(std::string_view text, std::string name)
{
    return fromPartial(PartialPlanFile::parse(text, std::move(name)));
}

PlanFile PlanFile::fromPartial(const PartialPlanFile& partial)
{
    const JsonDocument& document = *partial.m_document;
    PlanFile plan;
    plan.file = partial.file();
    if (!partial.model())
        document.root().failMissing("model");
    if (!partial.cluster())
        document.root().failMissing("cluster");
    plan.model = *partial.model();
    plan.cluster = *partial.cluster();
    plan.strategy = partial.strategy(plan.model, static_cast<long long>(plan.cluster.worldSize()), &plan.assumptions);
    const std::optional<JsonView> schedule = document.root()["strategy"].find("schedule");
    plan.gpipe = schedule && schedule->raw().is_string() && schedule->string() == "gpipe";
    return plan;
}

nlohmann::ordered_json planFileJson(const model::ModelDescription& model,
    const hardware::ClusterDescription& cluster, const Estimate& prediction)
{
    nlohmann::ordered_json out;
    out["format"] = kPlanFileFormat;
    out["version"] = 1;
    out["model"] = model::toJson(model);
    out["cluster"] = hardware::toJson(cluster);
    out["strategy"] = toJson(prediction.strategy);
    nlohmann::ordered_json predicted = toJson(prediction);
    predicted.erase("strategy");
    out["prediction"] = std::move(predicted);
    return out;
}

std::string planFileText(const model::ModelDescription& model, const hardware::ClusterDescription& cluster,
    const Estimate& prediction)
{
    return jsonText(planFileJson(model, cluster, prediction), 2, "the plan file") + "\n";
}

namespace {

// Finds the root object's "format" string without building the document: a 200 MB plan file
// built a tree of ~12x its size whose release, under a memory limit, threw bad_alloc inside a
// destructor (SIGABRT, issue 26). Stops at the key.
class FormatKeyFinder : public nlohmann::json_sax<nlohmann::json> {
public:
    std::optional<std::string> format;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool string(string_t& text) override
    {
        if (m_depth == 1 && m_atFormat)
            format = text;
        return value();
    }
    bool start_object(std::size_t) override { return open(); }
    bool start_array(std::size_t) override { return m_depth > 0 && open(); } // a root array: no plan file
    bool key(string_t& name) override
    {
        m_atFormat = m_depth == 1 && name == "format";
        return true;
    }
    bool end_object() override { return --m_depth > 0; } // the root closed: done
    bool end_array() override { return --m_depth > 0; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    // A value was read; false (stop) once it was the root's "format".
    bool value()
    {
        const bool found = m_depth == 1 && m_atFormat;
        m_atFormat = false;
        return !found;
    }
    bool open()
    {
        if (!value())
            return false;
        ++m_depth;
        return true;
    }
    int m_depth = 0;
    bool m_atFormat = false;
};

} // namespace

bool isPlanFile(const std::filesystem::path& path)
{
    try {
        const std::string text = readTextFile(path);
        FormatKeyFinder finder;
        nlohmann::json::sax_parse(text, &finder, nlohmann::json::input_format_t::json, false);
        return finder.format && *finder.format == kPlanFileFormat;
    } catch (const std::exception&) {
        return false;
    }
}

} // namespace stratex::megatron
