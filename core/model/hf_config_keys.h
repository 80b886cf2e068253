// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The reading of one Hugging Face config.json object (core/model/hf_config.h): its keys with the
// input bounds on every size, and what a family reader fills in. Internal to hf_config*.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/common/reader_limits.h"
#include "core/model/hf_config.h"

namespace stratex::model::hf {

// The keys of one config object (the root, or Llama 4's "text_config"), with the bounds of
// input_limits.h / reader_limits.h on every size.
class Keys {
public:
    explicit Keys(const JsonView& object)
        : m_object(object)
    {
    }
    const JsonView& object() const { return m_object; }

    // A present, non-null value.
    std::optional<JsonView> find(std::string_view key) const
    {
        std::optional<JsonView> value = m_object.find(key);
        if (value && value->raw().is_null())
            return std::nullopt;
        return value;
    }
    JsonView require(std::string_view key) const
    {
        std::optional<JsonView> value = find(key);
        if (!value)
            m_object.failMissing(key);
        return *value;
    }
    int size(std::string_view key, int max) const { return bounded(require(key), max); }
    int size(std::string_view key, int max, int fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? bounded(*value, max) : fallback;
    }
    int count(std::string_view key, int fallback) const
    {
        const std::optional<JsonView> value = find(key);
        if (!value)
            return fallback;
        const std::int64_t n = value->integer();
        if (n < 0 || n > limits::kMaxExperts)
            value->fail("an integer from 0 to " + std::to_string(limits::kMaxExperts));
        return int(n);
    }
    bool flag(std::string_view key, bool fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->boolean() : fallback;
    }
    double number(std::string_view key, double fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->positiveNumber() : fallback;
    }
    std::string text(std::string_view key, std::string fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->string() : fallback;
    }
    // `key` is absent, null or `expected`; anything else is a feature the description lacks.
    void requireValue(std::string_view key, const nlohmann::ordered_json& expected, std::string_view why) const
    {
        const std::optional<JsonView> value = find(key);
        if (value && value->raw() != expected)
            value->fail(std::string(expected.dump()) + " (" + std::string(why) + ")");
    }

private:
    static int bounded(const JsonView& value, int max)
    {
        const int n = value.positiveInt();
        if (n > max)
            value.fail("a positive integer of at most " + std::to_string(max));
        return n;
    }
    JsonView m_object;
};

// One family reader's input (the config object's keys) and output (the model, its notes).
struct Reading {
    const Keys& keys;
    HfModel& out;
    ModelDescription& model() { return out.model; }
    void note(std::string line) { out.notes.push_back(std::move(line)); }
};

} // namespace stratex::model::hf
