// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include <QString>

#include "core/common/work_budget.h"

class QMessageBox;
class QWidget;

namespace stratex::ui {

// The GUI's side of the work budget (core/common/work_budget.h): where the CLI refuses, the GUI
// asks "Run anyway?" with the core's own estimate. Run anyway calls `run` (which starts the job
// on a worker: still cancellable, with progress); Cancel leaves everything as it was.
// Asynchronous (open(), not exec()): the GUI never waits in a nested event loop. The box is a
// child of `parent` named "longWorkQuestion", its buttons "Run anyway" and "Cancel" (tests answer
// it with findChild). A newer question replaces an unanswered one.
QMessageBox* askToRunLongWork(
    QWidget* parent, const QString& title, const WorkEstimate& estimate, std::function<void()> run);

} // namespace stratex::ui
