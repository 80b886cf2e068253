// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stratex::exporting {

// What an export says about itself, one channel for every target (issue 25): the CLI prints each
// note on stderr as "warning: ...", the file carries it as a comment, the GUI shows them before
// writing.
enum class ExportNoteKind {
    Approximation, // the target runs something else than the plan says (the nearest it accepts)
    Refusal, // the target will refuse the written file, or a value in it
};
std::string_view exportNoteKindName(ExportNoteKind kind); // "approximation", "refusal"

struct ExportNote {
    ExportNoteKind kind = ExportNoteKind::Approximation;
    // The plan's or model's field it is about, as the plan file names it: "strategy.zero",
    // "strategy.schedule", "model.rope_scaling", "memory" (the exported version's fit), ...
    std::string field;
    std::string text; // one line, naming the target: "torchtitan: ZeRO-1: ..."

    auto operator<=>(const ExportNote&) const = default;
};

// The note as the CLI prints it after "warning: " and the GUI lists it: its text.
std::string exportNoteLine(const ExportNote& note);
std::vector<std::string> exportNoteLines(const std::vector<ExportNote>& notes);

// Appends `text` to `notes` unless an equal note is there (the same fact found twice).
void addExportNote(std::vector<ExportNote>& notes, ExportNoteKind kind, std::string field, std::string text);

} // namespace stratex::exporting
