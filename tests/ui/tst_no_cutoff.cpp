// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24, finding 11: no cut-off text. The main window with its bundled examples is shown at
// 1280×800, 1366×768 and at its default size, in the light and the dark theme, on every page; the test walks
// the widgets a user sees and checks that every label, button and group-box title that is not
// elided fits its geometry (a word-wrapped label: its height for its width), and that every header
// section fits its text or elides it with a tooltip that has it whole. The Search page is read with
// each engine's results (Galvatron's and the stratex cost model's), the Timeline with a plan and
// the Planner with a planned batch and its mode comparison (each tab). Each page is grabbed to
// $STRATEX_SCREENSHOT_DIR when set.
#include <QAbstractButton>
#include <QApplication>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QStyleOption>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <QToolButton>

#include "ui/common/eliding_combo_box.h"
#include "ui/common/theme.h"
#include "ui/main_window.h"
#include "ui/page.h"
#include "ui/planner/planner_page.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_widget.h"

#include "controllers/timeline_document.h"
#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;

namespace {

constexpr QChar kEllipsis(0x2026);

// A widget the user can see: shown, inside the window, not scrolled or clipped out by its parents.
bool seen(const QWidget* widget, const QWidget* window)
{
    if (!widget->isVisibleTo(window) || widget->width() <= 0 || widget->height() <= 0)
        return false;
    // Clipped by every parent (scroll areas, splitters); visibleRegion() is empty for a widget its
    // children cover whole (a chart view under its viewport).
    QRect visible = widget->rect();
    const QWidget* child = widget;
    for (const QWidget* parent = widget->parentWidget(); parent && !visible.isEmpty();
         child = parent, parent = parent->parentWidget()) {
        visible = visible.translated(child->pos()).intersected(parent->rect());
        if (parent == window)
            break;
    }
    return !visible.isEmpty();
}

QString plain(QString text)
{
    // Mnemonics: "&Open" shows as "Open", "&&" as "&".
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QLatin1Char('\x01'), QLatin1Char('&'));
    return text;
}

// The widest line of `text` in `label`'s font: rich text laid out as QLabel lays it out.
int textWidth(const QLabel* label)
{
    const QString text = label->text();
    const bool rich
        = label->textFormat() == Qt::RichText || (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(text));
    if (rich) {
        QTextDocument document;
        document.setDefaultFont(label->font());
        document.setDocumentMargin(0);
        document.setHtml(text);
        return int(std::ceil(document.idealWidth()));
    }
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n')))
        widest = std::max(widest, label->fontMetrics().horizontalAdvance(line));
    return widest;
}

QString describe(const QWidget* widget)
{
    QStringList path;
    for (const QWidget* w = widget; w; w = w->parentWidget()) {
        if (!w->objectName().isEmpty()) {
            path.prepend(w->objectName());
            break;
        }
        path.prepend(QString::fromLatin1(w->metaObject()->className()));
    }
    return path.join(QLatin1Char('/'));
}

void checkLabel(const QLabel* label, QStringList& problems)
{
    const QString text = label->text();
    // Elided on purpose: the whole text is in the tooltip.
    if (text.trimmed().isEmpty() || !label->pixmap().isNull()
        || (text.contains(kEllipsis) && !label->toolTip().isEmpty()))
        return;
    const QRect box = label->contentsRect();
    const int margin = 2 * label->margin();
    if (label->wordWrap()) {
        const int needed = label->heightForWidth(label->width());
        if (needed > label->height() + 1)
            problems << QStringLiteral("label %1 \"%2\": wrapped needs %3 px high, has %4")
                            .arg(describe(label), text.left(60))
                            .arg(needed)
                            .arg(label->height());
        return;
    }
    const int width = textWidth(label);
    if (width > box.width() - margin + 1)
        problems << QStringLiteral("label %1 \"%2\": text %3 px wide, has %4")
                        .arg(describe(label), text.left(60))
                        .arg(width)
                        .arg(box.width() - margin);
    if (label->fontMetrics().height() > box.height() + 2)
        problems << QStringLiteral("label %1 \"%2\": text %3 px high, has %4")
                        .arg(describe(label), text.left(60))
                        .arg(label->fontMetrics().height())
                        .arg(box.height());
}

void checkButton(const QAbstractButton* button, QStringList& problems)
{
    const QString text = plain(button->text());
    if (text.trimmed().isEmpty())
        return;
    if (const auto* tool = qobject_cast<const QToolButton*>(button);
        tool && tool->toolButtonStyle() == Qt::ToolButtonIconOnly)
        return;
    int needed = button->fontMetrics().horizontalAdvance(text);
    if (!button->icon().isNull())
        needed += button->iconSize().width() + 4;
    if (qobject_cast<const QCheckBox*>(button) || qobject_cast<const QRadioButton*>(button)) {
        QStyleOptionButton option;
        option.initFrom(button);
        const QStyle::PixelMetric metric
            = qobject_cast<const QCheckBox*>(button) ? QStyle::PM_IndicatorWidth : QStyle::PM_ExclusiveIndicatorWidth;
        needed += button->style()->pixelMetric(metric, &option, button)
            + button->style()->pixelMetric(QStyle::PM_CheckBoxLabelSpacing, &option, button);
    }
    if (needed > button->width())
        problems << QStringLiteral("button %1 \"%2\": needs %3 px, has %4")
                        .arg(describe(button), text)
                        .arg(needed)
                        .arg(button->width());
}

void checkGroupBox(const QGroupBox* box, QStringList& problems)
{
    const QString title = plain(box->title());
    if (title.isEmpty())
        return;
    QStyleOptionGroupBox option;
    option.initFrom(box);
    option.text = box->title();
    option.subControls = QStyle::SC_GroupBoxLabel | QStyle::SC_GroupBoxFrame;
    if (box->isCheckable())
        option.subControls |= QStyle::SC_GroupBoxCheckBox;
    option.lineWidth = 1;
    option.textAlignment = box->alignment();
    const QRect label = box->style()->subControlRect(QStyle::CC_GroupBox, &option, QStyle::SC_GroupBoxLabel, box);
    const int needed = box->fontMetrics().horizontalAdvance(title);
    if (needed > label.width() || label.right() > box->width())
        problems << QStringLiteral("group box %1 \"%2\": title %3 px wide, has %4")
                        .arg(describe(box), title)
                        .arg(needed)
                        .arg(std::min(label.width(), box->width() - label.left()));
}

void checkHeader(const QHeaderView* header, QStringList& problems)
{
    const QAbstractItemModel* model = header->model();
    if (!model || header->orientation() != Qt::Horizontal)
        return;
    const QStyle* style = header->style();
    const int margin = 2 * style->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    for (int section = 0; section < header->count(); ++section) {
        if (header->isSectionHidden(section) || header->sectionSize(section) <= 0)
            continue;
        const QString text = model->headerData(section, Qt::Horizontal, Qt::DisplayRole).toString();
        if (text.isEmpty())
            continue;
        int needed = 0;
        for (const QString& line : text.split(QLatin1Char('\n')))
            needed = std::max(needed, header->fontMetrics().horizontalAdvance(line));
        needed += margin;
        if (header->isSortIndicatorShown() && header->sortIndicatorSection() == section)
            needed += style->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
        const QString tip = model->headerData(section, Qt::Horizontal, Qt::ToolTipRole).toString();
        if (needed > header->sectionSize(section) && !tip.contains(text.split(QLatin1Char('\n')).first()))
            problems << QStringLiteral("header %1 section %2 \"%3\": needs %4 px, has %5 and no tooltip with it")
                            .arg(describe(header))
                            .arg(section)
                            .arg(text)
                            .arg(needed)
                            .arg(header->sectionSize(section));
    }
}

// A combo box draws its current text clipped to its field, without an ellipsis (QCommonStyle,
// CE_ComboBoxLabel): text wider than the field is cut off. An ElidingComboBox elides it and has it
// whole in its tooltip.
void checkComboBox(const QComboBox* box, QStringList& problems)
{
    const QString text = box->currentText();
    if (text.isEmpty() || box->isEditable())
        return;
    if (const auto* eliding = qobject_cast<const ElidingComboBox*>(box)) {
        const QString shown = eliding->shownText();
        if (shown != text && (!shown.contains(kEllipsis) || !box->toolTip().contains(text)))
            problems << QStringLiteral("combo box %1 \"%2\": shown as \"%3\", tooltip \"%4\"")
                            .arg(describe(box), text, shown, box->toolTip());
        return;
    }
    QStyleOptionComboBox option;
    option.initFrom(box);
    option.currentText = text;
    option.editable = false;
    option.frame = box->hasFrame();
    const QRect field = box->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, box);
    int needed = box->fontMetrics().horizontalAdvance(text) + 2; // CE_ComboBoxLabel's 1 px each side
    if (!box->itemIcon(box->currentIndex()).isNull())
        needed += box->iconSize().width() + 4;
    if (needed > field.width())
        problems << QStringLiteral("combo box %1 \"%2\": needs %3 px, has %4")
                        .arg(describe(box), text)
                        .arg(needed)
                        .arg(field.width());
}

// A list in icon mode (the page list) elides an item's text wider than the grid.
void checkIconList(const QListView* list, QStringList& problems)
{
    if (!list->model())
        return;
    // A list of names (the Calibrate page's parameters) that scrolls sideways cuts them off.
    if (list->viewMode() == QListView::ListMode) {
        if (list->horizontalScrollBar()->isVisible())
            problems << QStringLiteral("list %1: its items are wider than the list").arg(describe(list));
        return;
    }
    const int room = list->gridSize().isValid() ? list->gridSize().width() - 4 : list->viewport()->width();
    for (int row = 0; row < list->model()->rowCount(); ++row) {
        const QString text = list->model()->index(row, 0).data().toString();
        const int needed = list->fontMetrics().horizontalAdvance(text);
        if (needed > room)
            problems
                << QStringLiteral("list %1 item \"%2\": %3 px, has %4").arg(describe(list), text).arg(needed).arg(room);
    }
}

// Qt Charts truncates a title, an axis title or a legend entry that is longer than its room to
// "...", with no tooltip: any text item of a chart's scene that ends so was cut off.
void checkChart(const QChartView* view, QStringList& problems)
{
    if (!view->scene())
        return;
    for (const QGraphicsItem* item : view->scene()->items()) {
        const auto* text = qgraphicsitem_cast<const QGraphicsTextItem*>(item);
        if (!text || !text->isVisible())
            continue;
        const QString shown = text->toPlainText();
        if (shown.endsWith(QStringLiteral("...")) || shown.endsWith(kEllipsis))
            problems << QStringLiteral("chart %1: \"%2\" is cut off").arg(describe(view), shown);
    }
}

QStringList cutOffText(const QWidget* root, const QWidget* window)
{
    QStringList problems;
    for (const QWidget* widget : root->findChildren<QWidget*>()) {
        if (!seen(widget, window))
            continue;
        if (const auto* label = qobject_cast<const QLabel*>(widget))
            checkLabel(label, problems);
        else if (const auto* button = qobject_cast<const QAbstractButton*>(widget))
            checkButton(button, problems);
        else if (const auto* box = qobject_cast<const QGroupBox*>(widget))
            checkGroupBox(box, problems);
        else if (const auto* header = qobject_cast<const QHeaderView*>(widget))
            checkHeader(header, problems);
        else if (const auto* chart = qobject_cast<const QChartView*>(widget))
            checkChart(chart, problems);
        else if (const auto* list = qobject_cast<const QListView*>(widget))
            checkIconList(list, problems);
        else if (const auto* combo = qobject_cast<const QComboBox*>(widget))
            checkComboBox(combo, problems);
    }
    return problems;
}

} // namespace

class TestNoCutoff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void everyPageFits_data();
    void everyPageFits();
    void longPlanNameElides();

private:
    void showPage(const QString& row);
    MainWindow* m_window = nullptr;
};

void TestNoCutoff::initTestCase()
{
    m_window = new MainWindow(MainWindow::Options { false, true });
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QVERIFY(test::waitUntilIdle(*m_window, 120000));
}

// The page `row` names, with what it shows when a user reads it: the Search page with the results
// of one engine (the start-up example searched again with it when the other's are shown), the
// Timeline with the start-up plan, the Planner with a planned batch and its mode comparison.
void TestNoCutoff::showPage(const QString& row)
{
    const QStringList words = row.split(QLatin1Char(' '));
    const QString id = words.front();
    QVERIFY(m_window->setCurrentPage(id));
    QVERIFY(test::waitUntilIdle(*m_window, 120000));
    if (id == QLatin1String("search")) {
        auto* search = qobject_cast<SearchPage*>(m_window->page(id));
        QVERIFY(search);
        const bool stratex = words.value(1) == QLatin1String("stratex");
        search->form()->setCostModel(
            stratex ? megatron::CostModelChoice::Stratex : megatron::CostModelChoice::Galvatron);
        if (search->showsStratexResults() != stratex || !search->resultsNotice().isEmpty()) {
            search->runSearch();
            QVERIFY(test::waitUntilIdle(*m_window, 120000));
        }
        QCOMPARE(search->showsStratexResults(), stratex);
        QVERIFY2(search->resultsNotice().isEmpty(), qPrintable(search->resultsNotice()));
        // The stratex plan's memory charts, one tab each: "search stratex peak" reads the second.
        if (stratex) {
            auto* tabs = search->findChild<QTabWidget*>(QStringLiteral("stratexMemoryTabs"));
            QVERIFY(tabs);
            tabs->setCurrentIndex(words.value(2) == QLatin1String("peak") ? 1 : 0);
            // The form scrolled to the Megatron space's last rows (TP comm overlap, issue 22), so
            // that they are read (and shown in the screenshots) too.
            auto* overlap = search->form()->findChild<QCheckBox*>(QStringLiteral("tp-comm-overlap"));
            QVERIFY(overlap && overlap->isVisibleTo(m_window));
            for (QWidget* parent = overlap->parentWidget(); parent; parent = parent->parentWidget()) {
                if (auto* area = qobject_cast<QScrollArea*>(parent)) {
                    area->ensureWidgetVisible(overlap);
                    break;
                }
            }
        }
        const QString best = stratex ? search->stratexPanel()->bestText() : search->galvatronPanel()->bestText();
        QVERIFY2(best.contains(QStringLiteral("Best plan")), qPrintable(best));
    } else if (id == QLatin1String("timeline")) {
        auto* timeline = qobject_cast<TimelinePage*>(m_window->page(id));
        QVERIFY(timeline);
        QVERIFY(timeline->timeline()->document());
        QVERIFY2(!timeline->summaryText().isEmpty(), "no plan on the Timeline page");
    } else if (id == QLatin1String("planner")) {
        auto* planner = qobject_cast<PlannerPage*>(m_window->page(id));
        QVERIFY(planner);
        if (!planner->hasPlans()) {
            planner->planBatch();
            QVERIFY(test::waitUntilIdle(*m_window, 120000));
        }
        QVERIFY(planner->hasPlans());
        // Its two tabs: "planner" reads the planned batch, "planner compare" the mode comparison.
        auto* tabs = planner->findChild<QTabWidget*>(QStringLiteral("plannerTabs"));
        QVERIFY(tabs);
        tabs->setCurrentIndex(words.value(1) == QLatin1String("compare") ? 0 : 1);
        QVERIFY2(!planner->compareSummary().startsWith(QStringLiteral("Compare modes to see")),
            qPrintable(planner->compareSummary()));
    }
}

void TestNoCutoff::cleanupTestCase()
{
    delete m_window;
    applyTheme(Theme::System);
}

void TestNoCutoff::everyPageFits_data()
{
    QTest::addColumn<QString>("page");
    QTest::addColumn<QString>("theme");
    QTest::addColumn<QSize>("size"); // empty: the window's default size
    // Every page; the Search page once with each engine's results.
    const QStringList pages { QStringLiteral("profiles"), QStringLiteral("search galvatron"),
        QStringLiteral("search stratex"), QStringLiteral("search stratex peak"), QStringLiteral("ranks"),
        QStringLiteral("timeline"), QStringLiteral("planner"), QStringLiteral("planner compare"),
        QStringLiteral("calibrate") };
    for (const QString& theme : { QStringLiteral("light"), QStringLiteral("dark") }) {
        // 1366x768, the most common laptop screen, is wider than 1280x800 but less high: the old
        // Profiles titles and legends (docs/desktop-findings.md, finding 11) are cut there too.
        for (const QSize& size : { QSize(1280, 800), QSize(1366, 768), QSize() }) {
            for (const QString& page : pages) {
                const QString sizeName = size.isValid() ? QStringLiteral("%1x%2").arg(size.width()).arg(size.height())
                                                        : QStringLiteral("default");
                QTest::newRow(qPrintable(QStringLiteral("%1 %2 %3").arg(page, theme, sizeName)))
                    << page << theme << size;
            }
        }
    }
}

void TestNoCutoff::everyPageFits()
{
    QFETCH(QString, page);
    QFETCH(QString, theme);
    QFETCH(QSize, size);
    applyTheme(themeFromName(theme));
    // The default: the size the window opens at (not its size hint, which grows as the pages fill:
    // run alone, the Profiles row read 1089 px and found the charts' legends cut off).
    m_window->resize(size.isValid() ? size : MainWindow::defaultSize());
    showPage(page);
    if (QTest::currentTestFailed())
        return;
    QTest::qWait(50); // queued fits and layouts after a resize
    QCoreApplication::processEvents();
    // A page whose layout needs more room than 1280×800 makes the whole window larger: its text
    // is cut off on a 1280×800 screen.
    if (size.isValid()) {
        QStringList minimums;
        for (const Page* each : m_window->pages())
            minimums << QStringLiteral("%1 %2x%3")
                            .arg(each->pageId())
                            .arg(each->minimumSizeHint().width())
                            .arg(each->minimumSizeHint().height());
        QVERIFY2(m_window->size() == size,
            qPrintable(QStringLiteral("the window is %1x%2; the pages need at least: %3")
                           .arg(m_window->width())
                           .arg(m_window->height())
                           .arg(minimums.join(QStringLiteral(", ")))));
    }
    const QStringList problems = cutOffText(m_window, m_window);
    if (const QString shots = qEnvironmentVariable("STRATEX_SCREENSHOT_DIR"); !shots.isEmpty()) {
        const QString name = QStringLiteral("%1-%2-%3x%4.png")
                                 .arg(QString(page).replace(QLatin1Char(' '), QLatin1Char('-')), theme)
                                 .arg(m_window->width())
                                 .arg(m_window->height());
        QVERIFY(m_window->grab().save(QDir(shots).filePath(name)));
    }
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("\n") + problems.join(QLatin1Char('\n'))));
}

// A plan name longer than the page: the Timeline's plan box elides it, with the whole name in its
// tooltip, and the window stays 1280 px wide (the box took its longest name's width).
void TestNoCutoff::longPlanNameElides()
{
    applyTheme(Theme::Light);
    m_window->resize(1280, 800);
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    auto* page = qobject_cast<TimelinePage*>(m_window->page(QStringLiteral("timeline")));
    QVERIFY(page);
    const auto document = page->timeline()->document();
    QVERIFY(document && !document->plans.empty());
    const QString name = QStringLiteral("llama3-70b on 4 × 8 h100-80gb, tp 2 pp 2 vpp 5 cp 2 ep 1 dp 4, zero 1, "
                                        "selective recompute, interleaved 1F1B, 64 micro-batches of 1, "
                                        "gbsz 256 (estimate 57.181 s, makespan 57146.76 ms)");
    page->showPlans(page->addTimeline(name, document->plans.front().timeline));
    QVERIFY(test::waitUntilIdle(*m_window, 120000));
    QTest::qWait(50);
    auto* box = qobject_cast<ElidingComboBox*>(page->firstPlanBox());
    QVERIFY(box);
    QCOMPARE(box->currentText(), name);
    QVERIFY2(box->shownText().contains(kEllipsis), qPrintable(box->shownText()));
    QCOMPARE(box->toolTip(), name);
    QCOMPARE(m_window->size(), QSize(1280, 800));
    const QStringList problems = cutOffText(m_window, m_window);
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("\n") + problems.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestNoCutoff)
#include "tst_no_cutoff.moc"
