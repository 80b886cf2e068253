// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/dynapipe_cost_model.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"

namespace stratex::planner {

namespace {

constexpr int kSeqlenGridDims = 2; // (mbs, seqlen)
constexpr int kDecoderGridDims = 3; // (mbs, enc seqlen, dec seqlen)

bool parseInt(std::string_view text, int& value)
{
    if (text.empty())
        return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && value > 0;
}

// "tp4_selective" -> (4, selective)
bool parseSubModelKey(std::string_view key, int& tp, RecomputeType& recompute)
{
    if (key.substr(0, 2) != "tp")
        return false;
    const auto underscore = key.find('_');
    if (underscore == std::string_view::npos || !parseInt(key.substr(2, underscore - 2), tp))
        return false;
    const auto type = parseRecomputeType(key.substr(underscore + 1));
    if (!type)
        return false;
    recompute = *type;
    return true;
}

// What a table's values are: times must be above zero (zero or negative times planned a makespan
// of 0), memory may be zero; both bounded so that sums over layers and micro-batches stay finite.
enum class GridValue { TimeMs, MemoryMb };

double gridValue(const JsonView& view, GridValue kind)
{
    const double value = view.number();
    if (kind == GridValue::TimeMs && (!(value > 0) || value > limits::kMaxLayerTimeMs))
        view.fail("a time in ms above 0 and at most 1e6");
    if (kind == GridValue::MemoryMb && (value < 0 || value > limits::kMaxProfileMemoryMb))
        view.fail("a memory size in MB from 0 to 1e7");
    return value;
}

// A table {seqlen key: [[mbs, value, ...], ...]} as grid points. Seqlen keys are "512" or, for
// decoder tables, "enc,dec". A point profiled more than once (T5's encoder tables list each
// encoder length once per profiled decoder length) keeps its largest value: DynaPipe writes the
// sorted rows into the grid one after the other, so the last, largest one stays.
DynapipeCostGrid readGrid(const JsonView& table, int dims, GridValue kind)
{
    std::map<std::array<int, DynapipeCostGrid::kMaxDimensions>, double> values;
    for (const auto& [key, rows] : table.members()) {
        DynapipeCostGrid::Point point;
        const std::string_view text = key;
        bool ok = false;
        if (dims == kSeqlenGridDims) {
            ok = parseInt(text, point.coords[1]);
        } else {
            const auto comma = text.find(',');
            ok = comma != std::string_view::npos && parseInt(text.substr(0, comma), point.coords[1])
                && parseInt(text.substr(comma + 1), point.coords[2]);
        }
        if (!ok) {
            throw InputError(table.file(), rows.path(),
                dims == kSeqlenGridDims ? "a positive sequence length as key" : "an \"enc_seqlen,dec_seqlen\" key",
                "key \"" + key + "\"");
        }
        for (const JsonView& row : rows.elements()) {
            row.requireArray();
            if (row.size() < 2)
                row.fail("[mbs, value, ...]");
            point.coords[0] = row.at(0).positiveInt();
            const double value = gridValue(row.at(1), kind);
            const auto [it, inserted] = values.emplace(point.coords, value);
            if (!inserted)
                it->second = std::max(it->second, value);
        }
    }
    if (values.empty())
        table.fail("a table with at least one profiled point");
    std::vector<DynapipeCostGrid::Point> points;
    for (const auto& [coords, value] : values)
        points.push_back({ coords, value });
    return DynapipeCostGrid(dims, points);
}

std::array<double, DynapipeCostGrid::kMaxDimensions> coords(int mbs, int seqlen, int decoderSeqlen = 0)
{
    return { static_cast<double>(mbs), static_cast<double>(seqlen), static_cast<double>(decoderSeqlen) };
}

} // namespace

DynapipeCostModel::SubModel DynapipeCostModel::readSubModel(const JsonView& view, bool& hasDecoder)
{
    SubModel model;
    const JsonView timing = view["timing_ms"];
    const JsonView stored = view["stored_activation_mb"];
    const JsonView peak = view["peak_activation_mb"];
    const JsonView params = view["model_state_param_mb"];
    model.encoder_forward = readGrid(timing["encoder|forward"], kSeqlenGridDims, GridValue::TimeMs);
    model.encoder_backward = readGrid(timing["encoder|backward"], kSeqlenGridDims, GridValue::TimeMs);
    model.postprocess_forward = readGrid(timing["postprocess|forward"], kSeqlenGridDims, GridValue::TimeMs);
    model.postprocess_backward = readGrid(timing["postprocess|backward"], kSeqlenGridDims, GridValue::TimeMs);
    model.encoder_stored = readGrid(stored["encoder"], kSeqlenGridDims, GridValue::MemoryMb);
    model.encoder_peak = readGrid(peak["encoder"], kSeqlenGridDims, GridValue::MemoryMb);
    hasDecoder = timing.has("decoder|forward");
    if (hasDecoder) {
        model.decoder_forward = readGrid(timing["decoder|forward"], kDecoderGridDims, GridValue::TimeMs);
        model.decoder_backward = readGrid(timing["decoder|backward"], kDecoderGridDims, GridValue::TimeMs);
        model.decoder_stored = readGrid(stored["decoder"], kDecoderGridDims, GridValue::MemoryMb);
        model.decoder_peak = readGrid(peak["decoder"], kDecoderGridDims, GridValue::MemoryMb);
        model.parameters.decoder_layer_param_mb = params["decoder"].nonNegativeNumber();
    }
    model.parameters.embedding_param_mb = params["embedding"].nonNegativeNumber();
    model.parameters.encoder_layer_param_mb = params["encoder"].nonNegativeNumber();
    return model;
}

namespace {

constexpr std::int64_t kMaxHiddenSize = 1 << 20;

// "... (hidden 4096, 32 heads ...": the number after the word "hidden", or 0.
int hiddenSizeInDescription(const std::string& description)
{
    const std::string word = "hidden ";
    const std::size_t at = description.find(word);
    if (at == std::string::npos)
        return 0;
    std::int64_t value = 0;
    std::size_t i = at + word.size();
    if (i >= description.size() || !std::isdigit(static_cast<unsigned char>(description[i])))
        return 0;
    while (i < description.size() && std::isdigit(static_cast<unsigned char>(description[i])) && value <= kMaxHiddenSize)
        value = value * 10 + (description[i++] - '0');
    return value >= 1 && value <= kMaxHiddenSize ? static_cast<int>(value) : 0;
}

} // namespace

DynapipeCostModel DynapipeCostModel::fromJson(const JsonView& root)
{
    DynapipeCostModel model;
    root.requireObject();
    if (const auto name = root.find("model"))
        model.m_name = name->string();
    if (const auto hidden = root.find("hidden_size")) {
        const std::int64_t value = hidden->integer();
        if (value < 1 || value > kMaxHiddenSize)
            hidden->fail("an integer hidden size from 1 to " + std::to_string(kMaxHiddenSize));
        model.m_hiddenSize = static_cast<int>(value);
    } else {
        model.m_hiddenSize = hiddenSizeInDescription(model.m_name);
    }
    const JsonView models = root["cost_models"];
    if (models.size() == 0)
        models.fail("an object with at least one \"tp{T}_{none|selective|full}\" sub-model");
    bool first = true;
    for (const auto& [key, view] : models.members()) {
        int tp = 0;
        RecomputeType recompute = RecomputeType::None;
        if (!parseSubModelKey(key, tp, recompute))
            throw InputError(root.file(), view.path(), "a key \"tp{T}_{none|selective|full}\"", "key \"" + key + "\"");
        bool hasDecoder = false;
        SubModel sub = readSubModel(view, hasDecoder);
        const ModelArchitecture architecture
            = hasDecoder ? ModelArchitecture::EncoderDecoder : ModelArchitecture::DecoderOnly;
        if (!first && architecture != model.m_architecture)
            view["timing_ms"].fail("the same layer kinds (encoder/decoder) as the other sub-models");
        model.m_architecture = architecture;
        first = false;
        if (!model.m_models.emplace(Key { tp, recompute }, std::move(sub)).second)
            throw InputError(root.file(), view.path(), "one sub-model per (tp, recompute)", "a second " + key);
    }
    if (model.m_name.empty())
        model.m_name = root.file();
    return model;
}

DynapipeCostModel DynapipeCostModel::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

DynapipeCostModel DynapipeCostModel::load(const std::vector<std::filesystem::path>& paths)
{
    if (paths.empty())
        throw Error("no cost-model file given");
    DynapipeCostModel model = load(paths.front());
    for (std::size_t i = 1; i < paths.size(); ++i)
        model.merge(load(paths[i]), paths[i].string());
    return model;
}

void DynapipeCostModel::merge(DynapipeCostModel&& other, const std::string& file)
{
    if (other.m_architecture != m_architecture)
        throw Error("cost model " + file + " is " + (other.isEncoderDecoder() ? "encoder-decoder" : "decoder-only")
            + ", the ones before it are not");
    if (m_hiddenSize == 0)
        m_hiddenSize = other.m_hiddenSize;
    for (auto& [key, sub] : other.m_models) {
        if (m_models.contains(key)) {
            throw Error("cost model " + file + " repeats tp" + std::to_string(key.first) + "_"
                + std::string(recomputeTypeName(key.second)) + ", already given by an earlier file");
        }
        m_models.emplace(key, std::move(sub));
    }
}

bool DynapipeCostModel::supports(int tp, RecomputeType recompute) const
{
    return m_models.contains(Key { tp, recompute });
}

std::vector<int> DynapipeCostModel::tensorParallelSizes() const
{
    std::vector<int> sizes;
    for (const auto& [key, sub] : m_models) {
        if (sizes.empty() || sizes.back() != key.first)
            sizes.push_back(key.first);
    }
    return sizes;
}

std::string DynapipeCostModel::subModelList() const
{
    std::string list;
    for (const auto& [key, sub] : m_models) {
        if (!list.empty())
            list += ", ";
        list += "tp" + std::to_string(key.first) + "_" + std::string(recomputeTypeName(key.second));
    }
    return list;
}

const DynapipeCostModel::SubModel& DynapipeCostModel::subModel(int tp, RecomputeType recompute) const
{
    const auto it = m_models.find(Key { tp, recompute });
    if (it == m_models.end()) {
        throw Error("cost model " + m_name + " has no tp" + std::to_string(tp) + "_"
            + std::string(recomputeTypeName(recompute)) + " sub-model (it has " + subModelList() + ")");
    }
    return it->second;
}

LayerCostEstimate DynapipeCostModel::estimate(const LayerCostQuery& query) const
{
    const SubModel& model = subModel(query.tp, query.recompute);
    const auto encoderAt = coords(query.micro_batch_size, query.seqlen);
    LayerCostEstimate result;
    result.encoder.forward_ms = model.encoder_forward.evaluate(encoderAt);
    result.encoder.backward_ms = model.encoder_backward.evaluate(encoderAt);
    result.encoder.stored_activation_mb = model.encoder_stored.evaluate(encoderAt);
    result.encoder.peak_activation_mb = model.encoder_peak.evaluate(encoderAt);
    // The LM head runs on the decoder's output: keyed by the decoder length for encoder-decoder
    // models, by the sequence length otherwise.
    int postprocessSeqlen = query.seqlen;
    if (m_architecture == ModelArchitecture::EncoderDecoder) {
        const auto decoderAt = coords(query.micro_batch_size, query.seqlen, query.decoder_seqlen);
        result.decoder.forward_ms = model.decoder_forward.evaluate(decoderAt);
        result.decoder.backward_ms = model.decoder_backward.evaluate(decoderAt);
        result.decoder.stored_activation_mb = model.decoder_stored.evaluate(decoderAt);
        result.decoder.peak_activation_mb = model.decoder_peak.evaluate(decoderAt);
        postprocessSeqlen = query.decoder_seqlen;
    }
    const auto postprocessAt = coords(query.micro_batch_size, postprocessSeqlen);
    result.postprocess_forward_ms = model.postprocess_forward.evaluate(postprocessAt);
    result.postprocess_backward_ms = model.postprocess_backward.evaluate(postprocessAt);
    return result;
}

ModelParameterSizes DynapipeCostModel::parameterSizes(int tp, RecomputeType recompute) const
{
    return subModel(tp, recompute).parameters;
}

} // namespace stratex::planner
