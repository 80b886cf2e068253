// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/export_note.h"

#include <algorithm>

namespace stratex::exporting {

std::string_view exportNoteKindName(ExportNoteKind kind)
{
    return kind == ExportNoteKind::Refusal ? "refusal" : "approximation";
}

std::string exportNoteLine(const ExportNote& note)
{
    return note.text;
}

std::vector<std::string> exportNoteLines(const std::vector<ExportNote>& notes)
{
    std::vector<std::string> lines;
    for (const ExportNote& note : notes)
        lines.push_back(exportNoteLine(note));
    return lines;
}

void addExportNote(std::vector<ExportNote>& notes, ExportNoteKind kind, std::string field, std::string text)
{
    ExportNote note { kind, std::move(field), std::move(text) };
    if (std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(std::move(note));
}

} // namespace stratex::exporting
