// SPDX-License-Identifier: GPL-3.0-or-later
// The Profiles page, offscreen: it follows the search to the bundled example, opens a folder
// typed in, reports a folder it cannot read, and synthesizes a set that the search then runs on.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/profile/synth/profile_synthesizer.h"
#include "ui/main_window.h"
#include "ui/profiles/profiles_page.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
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
        QVERIFY(search->result() && search->result()->best);
        QCOMPARE(search->result()->best->world, 16);
        QCOMPARE(m_window->currentPage(), m_page); // the user stays with the plots
    }

private:
    MainWindow* m_window = nullptr;
    ProfilesPage* m_page = nullptr;
};

QTEST_MAIN(TestProfilesPage)
#include "tst_profiles_page.moc"
