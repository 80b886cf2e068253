// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stratex {

// A read-only view on one JSON value that remembers the file it came from and its JSON-pointer
// path, so that every accessor can fail with an InputError naming file, key path, what was
// expected and what was found. Loaders use this instead of raw nlohmann::json access.
class JsonView {
public:
    JsonView(const nlohmann::ordered_json& value, std::shared_ptr<const std::string> file, std::string path);

    const nlohmann::ordered_json& raw() const { return *m_value; }
    const std::string& file() const { return *m_file; }
    const std::string& path() const { return m_path; } // JSON pointer, "" for the root

    bool isObject() const { return m_value->is_object(); }
    bool isArray() const { return m_value->is_array(); }
    bool isNumber() const { return m_value->is_number(); }
    bool isString() const { return m_value->is_string(); }

    bool has(std::string_view key) const;
    JsonView operator[](std::string_view key) const; // missing key -> InputError
    std::optional<JsonView> find(std::string_view key) const;
    JsonView at(std::size_t index) const; // out of range -> InputError
    std::size_t size() const; // elements of an array or members of an object
    std::vector<std::pair<std::string, JsonView>> members() const; // object members in file order
    std::vector<JsonView> elements() const; // array elements

    double number() const; // any finite number
    double nonNegativeNumber() const;
    double positiveNumber() const;
    std::int64_t integer() const; // a number with no fractional part
    int positiveInt() const;
    std::string string() const;
    bool boolean() const;

    void requireObject() const;
    void requireArray() const;

    // Throws the InputError for this value with the given expectation.
    [[noreturn]] void fail(std::string_view expected) const;
    [[noreturn]] void failMissing(std::string_view key) const;

    // "number -3", "string \"abc\"", "object", "array of 3", "null" ...
    static std::string describe(const nlohmann::ordered_json& value);

private:
    const nlohmann::ordered_json* m_value;
    std::shared_ptr<const std::string> m_file;
    std::string m_path;
};

// Owns a parsed JSON document. Objects keep the member order of the file (ordered_json): some
// peer formats give meaning to it (Galvatron's static time mode takes the first matching key).
class JsonDocument {
public:
    // Throws InputError("file", "", "valid JSON", "<parser message>") on malformed input and
    // stratex::Error when the file cannot be read.
    static JsonDocument load(const std::filesystem::path& path);
    static JsonDocument parse(std::string_view text, std::string name);

    JsonView root() const { return JsonView(*m_root, m_file, std::string()); }
    const std::string& file() const { return *m_file; }

private:
    std::shared_ptr<const nlohmann::ordered_json> m_root;
    std::shared_ptr<const std::string> m_file;
};

} // namespace stratex
