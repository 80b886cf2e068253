// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QImage>
#include <QSet>
#include <QTest>

#include "ui/main_window.h"

namespace stratex::test {

// Waits until no page of the window has a job running or scheduled.
inline bool waitUntilIdle(ui::MainWindow& window, int timeoutMs = 20000)
{
    QDeadlineTimer deadline(timeoutMs);
    int quiet = 0;
    while (!deadline.hasExpired()) {
        QTest::qWait(20);
        quiet = window.isBusy() ? 0 : quiet + 1;
        if (quiet >= 3)
            return true;
    }
    return false;
}

// The page suites' fixture: a new main window at 1400 x 900, shown, on page `name`, idle. The
// window goes into `window` (the caller deletes it, also when a step fails); returns the page
// as a Page, or nullptr when a step fails.
template <class Page> Page* showOnPage(ui::MainWindow*& window, const QString& name)
{
    window = new ui::MainWindow(ui::MainWindow::Options { false });
    window->resize(1400, 900);
    window->show();
    if (!QTest::qWaitForWindowExposed(window) || !window->setCurrentPage(name))
        return nullptr;
    auto* page = qobject_cast<Page*>(window->currentPage());
    return page && waitUntilIdle(*window) ? page : nullptr;
}

inline int distinctColours(const QImage& image, int step = 3)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step) {
        for (int x = 0; x < image.width(); x += step)
            colours.insert(image.pixel(x, y));
    }
    return int(colours.size());
}

} // namespace stratex::test
