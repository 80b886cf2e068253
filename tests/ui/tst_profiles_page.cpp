// SPDX-License-Identifier: GPL-3.0-or-later
// The Profiles page, offscreen: it follows the search to the bundled example, opens a folder
// typed in, reports a folder it cannot read, and synthesizes a set that the search then runs on.
#include <cmath>

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLegend>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QValueAxis>

#include "core/profile/synth/profile_synthesizer.h"
#include "ui/common/path_line_edit.h"
#include "ui/common/theme.h"
#include "ui/main_window.h"
#include "ui/profiles/profiles_page.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/search/synthesize_dialog.h"

#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::waitUntilIdle;

class TestProfilesPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_window = new MainWindow(MainWindow::Options { false });
        m_window->resize(1400, 900);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        QVERIFY(m_window->setCurrentPage(QStringLiteral("profiles")));
        m_page = qobject_cast<ProfilesPage*>(m_window->currentPage());
        QVERIFY(m_page);
    }
    void cleanup()
    {
        applyTheme(Theme::System);
        delete m_window;
        m_window = nullptr;
    }

    void followsTheBundledExample()
    {
        MainWindow window(MainWindow::Options { false, true });
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(waitUntilIdle(window, 60000));
        auto* page = qobject_cast<ProfilesPage*>(window.page(QStringLiteral("profiles")));
        auto* search = qobject_cast<SearchPage*>(window.page(QStringLiteral("search")));
        QVERIFY(page && search);
        QCOMPARE(page->folder(), search->form()->profilesDir());
        const profile::ProfileOverview* overview = page->overview();
        QVERIFY(overview);
        QCOMPARE(overview->model_name, std::string("llama2-13b"));
        QCOMPARE(overview->seq_length, 4096);
        QVERIFY(overview->estimated);
        QCOMPARE(overview->layer_ms_per_sample_by_bsz.size(), std::size_t(8));
        QVERIFY(overview->layer_seq_fit.has_value());
        QVERIFY(page->summaryText().contains(QStringLiteral("Estimated")));
        // Every chart has its series.
        for (const char* name : { "batchTimeChart", "sequenceTimeChart", "layerMemoryChart", "bandwidthChart" }) {
            auto* view = page->findChild<QChartView*>(QString::fromLatin1(name));
            QVERIFY2(view && !view->chart()->series().isEmpty(), name);
        }
        window.setCurrentPage(QStringLiteral("profiles"));
        const QImage shot = page->grab().toImage();
        QVERIFY(stratex::test::distinctColours(shot) > 20);
    }

    void opensATypedFolder()
    {
        QTemporaryDir dir;
        using namespace stratex::profile::synth;
using namespace stratex::hardware;
        ClusterDescription cluster;
        cluster.gpu = gpuPreset("h800-80gb");
        cluster.num_nodes = 4;
        writeProfileFiles(dir.path().toStdString(), synthesizeProfiles(model::modelPreset("llama3-70b"), cluster));
        auto* edit = m_page->findChild<QLineEdit*>(QStringLiteral("profilesFolder"));
        edit->setFocus();
        QTest::keyClicks(edit, dir.path());
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(waitUntilIdle(*m_window));
        const profile::ProfileOverview* overview = m_page->overview();
        QVERIFY(overview);
        QCOMPARE(overview->model_name, std::string("llama3-70b"));
        QCOMPARE(overview->allreduce.back().size, 32);
        QCOMPARE(overview->activation_mb_per_sample_by_tp.back().first, 32);
    }

    void reportsAFolderItCannotRead()
    {
        // Several models and no name to choose by: the message lists what was found.
        m_page->showFolder(stratex::test::fixture(QStringLiteral("galvatron")));
        QVERIFY(waitUntilIdle(*m_window));
        QVERIFY(!m_page->overview());
        QVERIFY2(m_page->summaryText().contains(QStringLiteral("Cannot read the profiles")),
            qPrintable(m_page->summaryText()));
        QVERIFY(m_page->summaryText().contains(QStringLiteral("computation_profiling_bf16_llama2-7b_all.json")));
    }

    void synthesizesAndTheSearchFollows()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("gpt3"));
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SynthesizeDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            dialog->modelBox()->setCurrentText(QStringLiteral("gpt3-13b"));
            dialog->nodesBox()->setValue(2);
            dialog->folderEdit()->setText(folder);
            QTest::keyClick(dialog, Qt::Key_Return);
        });
        QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("profilesSynthesizeButton")), Qt::LeftButton);
        QVERIFY(waitUntilIdle(*m_window, 60000));
        QCOMPARE(m_page->folder(), folder);
        QVERIFY(m_page->overview());
        QCOMPARE(m_page->overview()->model_name, std::string("gpt3-13b"));
        auto* search = qobject_cast<SearchPage*>(m_window->page(QStringLiteral("search")));
        QCOMPARE(search->form()->profilesDir(), folder);
        // "auto" searches a synthesized set with the stratex cost model, at the form's global batch.
        QVERIFY(search->showsStratexResults());
        const auto outcome = search->stratexController()->outcome();
        QVERIFY2(outcome && !outcome->result.best.empty(), qPrintable(search->stratexPanel()->bestText()));
        QCOMPARE(outcome->result.best.front().strategy.world(), 16);
        QCOMPARE(outcome->model.name, std::string("gpt3-13b"));
        QCOMPARE(m_window->currentPage(), m_page); // the user stays with the plots
    }

    void chartsFollowThePalette_data();
    void chartsFollowThePalette();
    void axisLabelsHaveNoEmptyDecimals_data();
    void axisLabelsHaveNoEmptyDecimals();
    void fitsAndPointsHaveDistinctLegendEntries_data();
    void fitsAndPointsHaveDistinctLegendEntries();
    void longPathElidedAtMinimumWidth();

private:
    void showExample();

    MainWindow* m_window = nullptr;
    ProfilesPage* m_page = nullptr;
};

namespace {

const char* const kChartNames[] = { "batchTimeChart", "sequenceTimeChart", "layerMemoryChart", "bandwidthChart" };

// The labels of a value axis as Qt Charts prints them with the axis' format (tick values from min
// to max; the integer formats get the value as a 64-bit integer, as Qt Charts passes it).
QStringList axisLabels(const QValueAxis* axis)
{
    QStringList labels;
    const QByteArray format = axis->labelFormat().toLatin1();
    const int ticks = axis->tickCount();
    for (int i = 0; i < ticks; ++i) {
        const double value = axis->min() + i * (axis->max() - axis->min()) / (ticks - 1);
        if (format.endsWith('d'))
            labels << (value == std::floor(value) ? QString::asprintf(format.constData(), qint64(value))
                                                  : QStringLiteral("%1 is not whole").arg(value));
        else
            labels << QString::asprintf(format.constData(), value);
    }
    return labels;
}

} // namespace

void TestProfilesPage::showExample()
{
    m_page->showFolder(QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8"));
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(m_page->overview());
}

void TestProfilesPage::chartsFollowThePalette_data()
{
    QTest::addColumn<QString>("theme");
    QTest::newRow("dark") << "dark";
    QTest::newRow("light") << "light";
}

// View > Theme reaches the charts: background, titles, labels and grid take the palette's colours,
// before and after the charts are rebuilt.
void TestProfilesPage::chartsFollowThePalette()
{
    QFETCH(QString, theme);
    applyTheme(themeFromName(theme));
    showExample();
    const QPalette palette = m_page->palette();
    const bool dark = palette.color(QPalette::Base).lightnessF() < 0.5;
    QCOMPARE(dark, theme == QLatin1String("dark"));
    for (const char* name : kChartNames) {
        auto* view = m_page->findChild<QChartView*>(QString::fromLatin1(name));
        QVERIFY(view);
        QChart* chart = view->chart();
        QCOMPARE(chart->backgroundBrush().color(), palette.color(QPalette::Base));
        QCOMPARE(chart->titleBrush().color(), palette.color(QPalette::Text));
        QCOMPARE(chart->legend()->labelColor(), palette.color(QPalette::Text));
        QVERIFY(!chart->axes().isEmpty());
        for (QAbstractAxis* axis : chart->axes())
            QCOMPARE(axis->labelsColor(), palette.color(QPalette::Text));
        // What is drawn: the chart's background, just inside its corner.
        const QImage image = view->grab().toImage();
        const QPointF corner = view->mapFromScene(chart->mapToScene(chart->plotArea().topLeft()));
        const QColor inside = image.pixelColor(qRound(corner.x()) - 12, qRound(corner.y()) - 12);
        QVERIFY2(dark ? inside.lightnessF() < 0.3 : inside.lightnessF() > 0.8,
            qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(name), inside.name())));
    }
}

void TestProfilesPage::axisLabelsHaveNoEmptyDecimals_data()
{
    QTest::addColumn<QString>("chart");
    for (const char* name : kChartNames)
        QTest::newRow(name) << QString::fromLatin1(name);
}

// Batch sizes and sequence lengths are whole numbers: "2", "2000", not "2.0", "2000.0"; real axes
// show the decimals their step needs and no more.
void TestProfilesPage::axisLabelsHaveNoEmptyDecimals()
{
    QFETCH(QString, chart);
    showExample();
    auto* view = m_page->findChild<QChartView*>(chart);
    QVERIFY(view);
    int valueAxes = 0;
    for (QAbstractAxis* abstract : view->chart()->axes()) {
        auto* axis = qobject_cast<QValueAxis*>(abstract);
        if (!axis)
            continue;
        ++valueAxes;
        QVERIFY2(!axis->labelFormat().isEmpty(), qPrintable(axis->titleText()));
        const QStringList labels = axisLabels(axis);
        QVERIFY(labels.size() >= 3);
        // Decimals that are all zero on every label say nothing: "2.0", "4.0", "6.0".
        static const QRegularExpression emptyDecimals(QStringLiteral("\\.0+$"));
        bool allEmpty = true;
        for (const QString& label : labels) {
            QVERIFY2(!label.contains(QStringLiteral("not whole")), qPrintable(label));
            allEmpty = allEmpty && emptyDecimals.match(label).hasMatch();
        }
        QVERIFY2(!allEmpty, qPrintable(axis->titleText() + QStringLiteral(": ") + labels.join(QLatin1Char(' '))));
    }
    QVERIFY(valueAxes >= 1);
    // The whole-number axes: batch sizes and sequence lengths.
    if (chart == QLatin1String("batchTimeChart") || chart == QLatin1String("sequenceTimeChart")) {
        auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QCOMPARE(x->labelFormat(), QStringLiteral("%lld"));
    }
}

void TestProfilesPage::fitsAndPointsHaveDistinctLegendEntries_data()
{
    QTest::addColumn<QString>("chart");
    QTest::newRow("batch") << "batchTimeChart";
    QTest::newRow("sequence") << "sequenceTimeChart";
}

// A fit is drawn in the colour of the points it fits: its legend entry is a line segment, the
// points' a dot, each with its own name.
void TestProfilesPage::fitsAndPointsHaveDistinctLegendEntries()
{
    QFETCH(QString, chart);
    showExample();
    auto* view = m_page->findChild<QChartView*>(chart);
    QVERIFY(view);
    const QList<QLegendMarker*> markers = view->chart()->legend()->markers();
    QLegendMarker* fit = nullptr;
    QLegendMarker* points = nullptr;
    for (QLegendMarker* marker : markers) {
        if (qobject_cast<QScatterSeries*>(marker->series()) && !points)
            points = marker;
        else if (qobject_cast<QLineSeries*>(marker->series()) && !qobject_cast<QScatterSeries*>(marker->series()))
            fit = marker;
    }
    QVERIFY(fit && points);
    QCOMPARE(static_cast<QXYSeries*>(fit->series())->color(), static_cast<QXYSeries*>(points->series())->color());
    QCOMPARE(fit->shape(), QLegend::MarkerShapeFromSeries);
    QCOMPARE(points->shape(), QLegend::MarkerShapeFromSeries);
    QVERIFY(fit->label() != points->label());
    QVERIFY(fit->label().contains(QStringLiteral("fit")));
    QVERIFY(points->label().contains(QStringLiteral("profiled")));
}

// At the window's minimum width a long folder path still shows its root and its last folder,
// elided in the middle; focused, the field holds the whole path to edit.
void TestProfilesPage::longPathElidedAtMinimumWidth()
{
    auto* edit = m_page->findChild<PathLineEdit*>(QStringLiteral("profilesFolder"));
    QVERIFY(edit);
    const QString path = QStringLiteral("/home/someone/experiments/2026/cluster-a/profiles/measured/"
                                        "galvatron/llama3-70b-h800-80gb-4x8-bf16-sequence-sweep");
    edit->setText(path);
    m_window->resize(m_window->minimumSizeHint().width(), 760);
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    m_window->setFocus();
    QVERIFY(!edit->hasFocus());
    QVERIFY2(edit->fontMetrics().horizontalAdvance(path) > edit->width(), "the path must not fit for this test");
    const QString shown = edit->displayedText();
    QVERIFY2(shown.contains(QChar(0x2026)), qPrintable(shown));
    QVERIFY2(shown.startsWith(QStringLiteral("/home")), qPrintable(shown));
    QVERIFY2(shown.endsWith(QStringLiteral("sequence-sweep")), qPrintable(shown));
    QVERIFY(edit->fontMetrics().horizontalAdvance(shown) < edit->width());
    QCOMPARE(edit->text(), path); // only the display is elided
    // What is painted is the elided text: the field's grab changes with the elision.
    const QImage elided = edit->grab().toImage();
    edit->setFocus();
    QVERIFY(edit->hasFocus());
    QCOMPARE(edit->displayedText(), path);
    QVERIFY(edit->grab().toImage() != elided);
}

QTEST_MAIN(TestProfilesPage)
#include "tst_profiles_page.moc"
