// SPDX-License-Identifier: GPL-3.0-or-later
// The Timeline page leads to a reading without a click (issue 24, finding 10): the first view shows
// the whole step, the keys work as soon as the page shows and again when the pointer comes back
// over the timeline, durations scale from ms to s, and an exported picture carries its legend (PNG
// and SVG). STRATEX_SCREENSHOT_DIR=... keeps the exported PNG.
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QEnterEvent>
#include <QFile>
#include <QImage>
#include <QPushButton>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTest>

#include "ui/main_window.h"
#include "ui/timeline/timeline_legend.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_widget.h"

#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;

class TestTimelineReading : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void durationsScale_data();
    void durationsScale();
    void opensFitted();
    void keysWorkWithoutAClick();
    void hoverGivesTheKeys();
    void exportsCarryTheLegend();

private:
    MainWindow* m_window = nullptr;
    TimelinePage* m_page = nullptr;
};

void TestTimelineReading::init()
{
    m_window = new MainWindow(MainWindow::Options { false });
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowActive(m_window));
    QVERIFY(test::waitUntilIdle(*m_window));
}

void TestTimelineReading::cleanup()
{
    delete m_window;
    m_window = nullptr;
    m_page = nullptr;
}

void TestTimelineReading::durationsScale_data()
{
    QTest::addColumn<double>("us");
    QTest::addColumn<QString>("text");
    QTest::newRow("µs") << 850.0 << QStringLiteral("850 µs");
    QTest::newRow("ms") << 12500.0 << QStringLiteral("12.50 ms");
    // The makespan: 57146.76 ms reads as seconds, as the Search page's s/iteration.
    QTest::newRow("s") << 57146760.0 << QStringLiteral("57.147 s");
}

void TestTimelineReading::durationsScale()
{
    QFETCH(double, us);
    QFETCH(QString, text);
    QCOMPARE(formatDuration(us), text);
}

void TestTimelineReading::keysWorkWithoutAClick()
{
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    m_page = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(m_page && m_page->timeline()->document());
    // No click anywhere: the timeline has the keyboard once its page shows.
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(m_page->timeline()));
    const double before = m_page->timeline()->zoom().visible().span();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    QVERIFY(m_page->timeline()->zoom().visible().span() < before);
    QCOMPARE(m_page->timeline()->selectedMicrobatch(), -1); // nothing highlighted by the way in
}

// The first view is the whole step, from the first op to the makespan's end, with nothing to
// scroll; a plan chosen after a zoom opens whole again.
void TestTimelineReading::opensFitted()
{
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    m_page = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(m_page && m_page->timeline()->document());
    TimelineWidget* timeline = m_page->timeline();
    QVERIFY(test::waitUntilIdle(*m_window));
    const double makespan = timeline->document()->makespanUs();
    QVERIFY(makespan > 0);
    const auto showsTheWholeStep = [&]() -> QString {
        if (!timeline->zoom().isFitted())
            return QStringLiteral("visible %1..%2 µs of %3 µs")
                .arg(timeline->zoom().visible().start_us)
                .arg(timeline->zoom().visible().end_us)
                .arg(timeline->document()->makespanUs());
        if (timeline->horizontalScrollBar()->maximum() != 0)
            return QStringLiteral("a horizontal scroll bar");
        const double end = timeline->xOfTime(timeline->document()->makespanUs());
        if (end > timeline->viewport()->width() + 1)
            return QStringLiteral("the makespan ends at x %1 of %2").arg(end).arg(timeline->viewport()->width());
        return {};
    };
    QString why = showsTheWholeStep();
    QVERIFY2(why.isEmpty(), qPrintable(why));
    QTest::keyClick(timeline, Qt::Key_W);
    QVERIFY(!timeline->zoom().isFitted());
    QComboBox* plans = m_page->firstPlanBox();
    if (plans->count() > 1) {
        plans->setCurrentIndex(plans->currentIndex() == 0 ? 1 : 0);
        QVERIFY(test::waitUntilIdle(*m_window));
        why = showsTheWholeStep();
        QVERIFY2(why.isEmpty(), qPrintable(plans->currentText() + QStringLiteral(": ") + why));
    }
}

// The keys came back only after a click in the canvas, which also highlighted a micro-batch: the
// pointer over the timeline gives it the keys, unless the user is typing in a field.
void TestTimelineReading::hoverGivesTheKeys()
{
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    m_page = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(m_page && m_page->timeline()->document());
    TimelineWidget* timeline = m_page->timeline();
    // The user used the toolbar: the keyboard is on a button.
    QPushButton* button = m_page->findChild<QPushButton*>();
    QVERIFY(button);
    button->setFocus(Qt::MouseFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(button));
    // The pointer comes over the timeline (sent: the offscreen platform has no pointer to move).
    const QPointF inside(timeline->width() / 2.0, timeline->height() / 2.0);
    QEnterEvent enter(inside, inside, timeline->mapToGlobal(inside));
    QApplication::sendEvent(timeline, &enter);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(timeline));
    const double before = timeline->zoom().visible().span();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_W);
    QVERIFY(timeline->zoom().visible().span() < before);
    QCOMPARE(timeline->selectedMicrobatch(), -1);
}

void TestTimelineReading::exportsCarryTheLegend()
{
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    m_page = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(m_page && m_page->timeline()->document());
    auto* legend = m_page->findChild<TimelineLegend*>(QStringLiteral("timelineLegend"));
    QVERIFY(legend && !legend->entries().empty());
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(QStringLiteral("timeline.png"));
    QVERIFY2(m_page->exportImage(png, &error), qPrintable(error));
    const QImage image(png);
    const QSize timeline = m_page->timeline()->renderSize();
    QCOMPARE(image.width(), timeline.width());
    QCOMPARE(image.height(), timeline.height() + legend->heightForWidth(timeline.width()));
    // The legend's strip has its swatches' colours, not just a background.
    const QImage strip = image.copy(0, timeline.height(), image.width(), image.height() - timeline.height());
    QVERIFY(test::distinctColours(strip, 1) >= 6);
    if (const QString shots = qEnvironmentVariable("STRATEX_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(image.save(QDir(shots).filePath(QStringLiteral("timeline-export.png"))));

    const QString svg = dir.filePath(QStringLiteral("timeline.svg"));
    QVERIFY2(m_page->exportImage(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    for (const TimelineLegend::Entry& entry : legend->entries())
        QVERIFY2(text.contains(entry.text.toHtmlEscaped().toUtf8()), qPrintable(entry.text));
}

QTEST_MAIN(TestTimelineReading)
#include "tst_timeline_reading.moc"
