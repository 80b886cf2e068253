// SPDX-License-Identifier: GPL-3.0-or-later
// The exports' escapers on any bytes (issue 26: a model name with a newline wrote invalid TOML and
// a crafted one injected keys). Each output is checked against its format's rule; a violation
// aborts (a finding).
#include <cstdlib>
#include <string>

#include "core/export/pytorch_exports.h"
#include "core/export/shell_quote.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;

namespace {

void require(bool ok)
{
    if (!ok)
        std::abort();
}

// A TOML basic string: quoted, no raw control character, no unescaped quote, known escapes only.
void checkToml(const std::string& quoted)
{
    require(quoted.size() >= 2 && quoted.front() == '"' && quoted.back() == '"');
    for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
        const auto c = static_cast<unsigned char>(quoted[i]);
        require(!(c < 0x20 && c != '\t') && c != 0x7f && c != '"');
        if (c == '\\') {
            require(i + 2 < quoted.size());
            const char e = quoted[++i];
            require(std::string_view("btnfr\"\\u").find(e) != std::string_view::npos);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string input(fuzz::text(data, size));
    checkToml(exporting::tomlString(input));

    const std::string comment = exporting::commentLine(input);
    require(comment.size() == input.size());
    for (const char c : comment)
        require(c == '\t' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f));

    // A shell word: single-quoted parts joined by \' only.
    const std::string word = exporting::shellQuote(input);
    std::string read;
    for (std::size_t i = 0; i < word.size();) {
        if (word.compare(i, 2, "\\'") == 0) {
            read += '\'';
            i += 2;
            continue;
        }
        require(word[i] == '\'');
        const std::size_t end = word.find('\'', i + 1);
        require(end != std::string::npos);
        read += word.substr(i + 1, end - i - 1);
        i = end + 1;
    }
    std::string withoutNul = input;
    std::erase(withoutNul, '\0');
    require(read == withoutNul);

    const std::string part = exporting::fileNamePart(input);
    require(part.size() == input.size() && part.find('/') == std::string::npos && part != "." && part != "..");
    return 0;
}
