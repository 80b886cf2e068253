// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/json_reader.h"

#include <cmath>
#include <limits>
#include <unordered_map>

#include "core/common/bounded_read.h"
#include "core/common/error.h"

namespace stratex {

using Json = nlohmann::ordered_json;

namespace {
// JSON pointer escaping (RFC 6901): '~' -> "~0", '/' -> "~1".
std::string escapePointerToken(std::string_view token)
{
    std::string escaped;
    escaped.reserve(token.size());
    for (char c : token) {
        if (c == '~')
            escaped += "~0";
        else if (c == '/')
            escaped += "~1";
        else
            escaped += c;
    }
    return escaped;
}

std::string truncated(std::string text, std::size_t limit = 48)
{
    if (text.size() > limit)
        text = text.substr(0, limit - 3) + "...";
    return text;
}

// Builds an ordered_json in time linear in the input. nlohmann's own DOM parser inserts every
// member through ordered_map::operator[], a linear scan of the members before it: an object of n
// keys took O(n^2) (80k keys 5-8 s, a 200 MB profile minutes). Here each open object keeps a hash
// index of its keys, and members are appended to the ordered map's vector directly. The result is
// the same document: members in file order, a repeated key keeps its first position and its last
// value (what operator[] did).
class LinearDomBuilder {
public:
    explicit LinearDomBuilder(Json& root)
        : m_root(root)
    {
    }

    bool null()
    {
        place(Json(nullptr));
        return true;
    }
    bool boolean(bool value)
    {
        place(Json(value));
        return true;
    }
    bool number_integer(Json::number_integer_t value)
    {
        place(Json(value));
        return true;
    }
    bool number_unsigned(Json::number_unsigned_t value)
    {
        place(Json(value));
        return true;
    }
    bool number_float(Json::number_float_t value, const Json::string_t&)
    {
        place(Json(value));
        return true;
    }
    bool string(Json::string_t& value)
    {
        place(Json(std::move(value)));
        return true;
    }
    bool binary(Json::binary_t& value)
    {
        place(Json::binary(std::move(value)));
        return true;
    }

    bool start_object(std::size_t)
    {
        m_stack.push_back(place(Json::object()));
        m_indexes.emplace_back();
        return true;
    }
    bool key(Json::string_t& key)
    {
        m_key = std::move(key);
        return true;
    }
    bool end_object()
    {
        m_stack.pop_back();
        m_indexes.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        m_stack.push_back(place(Json::array()));
        m_indexes.emplace_back();
        return true;
    }
    bool end_array()
    {
        m_stack.pop_back();
        m_indexes.pop_back();
        return true;
    }

    template <class Exception> bool parse_error(std::size_t, const std::string&, const Exception& error)
    {
        throw error;
    }

private:
    // Stores a value in the innermost open container (or as the root) and returns where it is.
    // The pointer stays valid while the value is open: only the innermost container grows.
    Json* place(Json&& value)
    {
        if (m_stack.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Json& parent = *m_stack.back();
        if (parent.is_array()) {
            auto& array = parent.get_ref<Json::array_t&>();
            array.push_back(std::move(value));
            return &array.back();
        }
        auto& members = parent.get_ref<Json::object_t&>();
        auto& list = static_cast<Json::object_t::Container&>(members);
        const auto [at, inserted] = m_indexes.back().try_emplace(m_key, list.size());
        if (!inserted) {
            list[at->second].second = std::move(value);
            return &list[at->second].second;
        }
        list.emplace_back(m_key, std::move(value));
        return &list.back().second;
    }

    Json& m_root;
    std::vector<Json*> m_stack;
    std::vector<std::unordered_map<std::string, std::size_t>> m_indexes; // per open container (arrays: unused)
    std::string m_key;
};

} // namespace

JsonView::JsonView(const Json& value, std::shared_ptr<const std::string> file, std::string path)
    : m_value(&value)
    , m_file(std::move(file))
    , m_path(std::move(path))
{
}

std::string JsonView::describe(const Json& value)
{
    switch (value.type()) {
    case Json::value_t::null:
        return "null";
    case Json::value_t::boolean:
        return std::string("boolean ") + (value.get<bool>() ? "true" : "false");
    case Json::value_t::string:
        return "string " + truncated(value.dump());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
        return "number " + value.dump();
    case Json::value_t::object:
        return "object with " + std::to_string(value.size()) + " keys";
    case Json::value_t::array:
        return "array of " + std::to_string(value.size());
    default:
        return "unsupported value";
    }
}

void JsonView::fail(std::string_view expected) const
{
    throw InputError(file(), m_path.empty() ? std::string("/") : m_path, std::string(expected), describe(*m_value));
}

void JsonView::failMissing(std::string_view key) const
{
    throw InputError(
        file(), m_path + "/" + escapePointerToken(key), "key \"" + std::string(key) + "\"", "nothing (key missing)");
}

void JsonView::requireObject() const
{
    if (!m_value->is_object())
        fail("an object");
}

void JsonView::requireArray() const
{
    if (!m_value->is_array())
        fail("an array");
}

bool JsonView::has(std::string_view key) const
{
    return m_value->is_object() && m_value->contains(key);
}

std::optional<JsonView> JsonView::find(std::string_view key) const
{
    if (!m_value->is_object())
        return std::nullopt;
    const auto it = m_value->find(key);
    if (it == m_value->end())
        return std::nullopt;
    return JsonView(*it, m_file, m_path + "/" + escapePointerToken(key));
}

JsonView JsonView::operator[](std::string_view key) const
{
    requireObject();
    if (auto found = find(key))
        return *found;
    failMissing(key);
}

JsonView JsonView::at(std::size_t index) const
{
    requireArray();
    const std::string childPath = m_path + "/" + std::to_string(index);
    if (index >= m_value->size())
        throw InputError(file(), childPath, "an element at index " + std::to_string(index), describe(*m_value));
    return JsonView((*m_value)[index], m_file, childPath);
}

std::size_t JsonView::size() const
{
    return (m_value->is_array() || m_value->is_object()) ? m_value->size() : 0;
}

std::vector<std::pair<std::string, JsonView>> JsonView::members() const
{
    requireObject();
    std::vector<std::pair<std::string, JsonView>> result;
    result.reserve(m_value->size());
    for (auto it = m_value->begin(); it != m_value->end(); ++it)
        result.emplace_back(it.key(), JsonView(it.value(), m_file, m_path + "/" + escapePointerToken(it.key())));
    return result;
}

std::vector<JsonView> JsonView::elements() const
{
    requireArray();
    std::vector<JsonView> result;
    result.reserve(m_value->size());
    for (std::size_t i = 0; i < m_value->size(); ++i)
        result.emplace_back((*m_value)[i], m_file, m_path + "/" + std::to_string(i));
    return result;
}

double JsonView::number() const
{
    if (!m_value->is_number())
        fail("a number");
    const double value = m_value->get<double>();
    if (!std::isfinite(value))
        fail("a finite number");
    return value;
}

double JsonView::nonNegativeNumber() const
{
    const double value = number();
    if (value < 0)
        fail("a non-negative number");
    return value;
}

double JsonView::positiveNumber() const
{
    const double value = number();
    if (!(value > 0))
        fail("a positive number");
    return value;
}

std::int64_t JsonView::integer() const
{
    if (m_value->is_number_integer() || m_value->is_number_unsigned()) {
        if (m_value->is_number_unsigned()
            && m_value->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            fail("an integer in range");
        return m_value->get<std::int64_t>();
    }
    if (m_value->is_number_float()) {
        const double value = m_value->get<double>();
        if (std::isfinite(value) && value == std::floor(value) && std::abs(value) < 9.0e15)
            return static_cast<std::int64_t>(value);
    }
    fail("an integer");
}

int JsonView::positiveInt() const
{
    const std::int64_t value = integer();
    if (value <= 0 || value > std::numeric_limits<int>::max())
        fail("a positive integer");
    return static_cast<int>(value);
}

std::string JsonView::string() const
{
    if (!m_value->is_string())
        fail("a string");
    return m_value->get<std::string>();
}

bool JsonView::boolean() const
{
    if (!m_value->is_boolean())
        fail("true or false");
    return m_value->get<bool>();
}

JsonDocument JsonDocument::parse(std::string_view text, std::string name)
{
    JsonDocument document;
    document.m_file = std::make_shared<const std::string>(std::move(name));
    try {
        auto root = std::make_shared<Json>();
        LinearDomBuilder builder(*root);
        Json::sax_parse(text, &builder);
        document.m_root = std::move(root);
    } catch (const Json::exception& error) {
        // nlohmann's message starts with "[json.exception.x.y] "; keep the rest.
        std::string message = error.what();
        if (const auto pos = message.find("] "); pos != std::string::npos)
            message = message.substr(pos + 2);
        // Numbers beyond double's range such as 1e999 are out_of_range, not parse errors.
        const bool outOfRange = dynamic_cast<const Json::out_of_range*>(&error) != nullptr;
        throw InputError(*document.m_file, "", outOfRange ? "valid JSON with finite numbers" : "valid JSON", message);
    }
    return document;
}

JsonDocument JsonDocument::load(const std::filesystem::path& path)
{
    return parse(readTextFile(path), path.string());
}

} // namespace stratex
