// SPDX-License-Identifier: GPL-3.0-or-later
// The overview the Profiles page draws, on the measured llama2-7b fixtures and a synthesized set.
#include <QTemporaryDir>
#include <QTest>

#include "core/profile/profile_discovery.h"
#include "core/profile/profile_overview.h"
#include "core/profile/synth/profile_synthesizer.h"

#include "profile_test_util.h"

using namespace stratex;
using namespace stratex::profile;

class TestProfileOverview : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void measuredLlama2()
    {
        const ProfileOverview overview = describeProfiles(ProfileSet::load(test::llamaProfilePaths()), 2048);
        QCOMPARE(overview.model_name, std::string("llama2-7b"));
        QCOMPARE(overview.seq_length, 2048);
        // The file's batch sweep: bsz 1..12 at 2048, in ascending order whatever the file order.
        QCOMPARE(overview.layer_ms_per_sample_by_bsz.size(), std::size_t(12));
        QCOMPARE(overview.layer_ms_per_sample_by_bsz.front().first, 1);
        QCOMPARE(overview.layer_ms_per_sample_by_bsz[7], std::make_pair(8, 3.9369729995727534));
        QCOMPARE(overview.other_ms_per_sample_by_bsz.size(), std::size_t(12));
        QVERIFY(overview.layer_batch_fit.has_value());
        // Per-sample time of the fit at bsz 8 is close to the measured one.
        QVERIFY(std::abs(overview.layer_batch_fit->at(8) / 8 - 3.937) < 0.05);
        QVERIFY(overview.layer_ms_per_sample_by_seq.size() == 1); // one length only: no quadratic fit
        QVERIFY(!overview.layer_seq_fit.has_value());
        QCOMPARE(overview.parameter_mb, 778.2236328125);
        QCOMPARE(overview.activation_mb_per_sample_by_tp.size(), std::size_t(4));
        QCOMPARE(overview.activation_mb_per_sample_by_tp.front(), std::make_pair(1, 514.5634765625));
        QCOMPARE(*overview.checkpoint_mb_per_sample, 32.0);
        QCOMPARE(overview.allreduce.size(), std::size_t(3));
        QCOMPARE(overview.allreduce.back().size, 8);
        QCOMPARE(*overview.allreduce.back().consecutive_gb_per_s, 154.203);
        QVERIFY(!overview.allreduce.back().strided_gb_per_s.has_value());
        QCOMPARE(overview.p2p_gb_per_s_by_stages.size(), std::size_t(3));
        QCOMPARE(overview.overlap_slowdown, 1.125552573612729);
    }

    // A synthesized set holds four lengths at bsz 1: the quadratic fit goes through them.
    void synthesizedSequenceFit()
    {
        using namespace stratex::profile::synth;
using namespace stratex::hardware;
        QTemporaryDir dir;
        ClusterDescription cluster;
        cluster.gpu = gpuPreset("a100-80gb");
        writeProfileFiles(dir.path().toStdString(), synthesizeProfiles(model::modelPreset("llama2-7b"), cluster));
        ProfileDiscovery request;
        request.profilesDir = dir.path().toStdString();
        request.seqLength = 4096;
        const ProfileOverview overview = describeProfiles(ProfileSet::load(discoverProfiles(request)), 4096);
        QCOMPARE(overview.layer_ms_per_sample_by_seq.size(), std::size_t(4));
        QVERIFY(overview.layer_seq_fit.has_value());
        for (const auto& [seq, ms] : overview.layer_ms_per_sample_by_seq)
            QVERIFY2(std::abs(overview.layer_seq_fit->at(seq) - ms) < 1e-6 * ms, qPrintable(QString::number(seq)));
        QCOMPARE(overview.layer_ms_per_sample_by_bsz.size(), std::size_t(8));
        QCOMPARE(overview.allreduce.front().size, 2);
        QVERIFY(overview.allreduce.front().strided_gb_per_s.has_value());
    }
};

QTEST_GUILESS_MAIN(TestProfileOverview)
#include "tst_profile_overview.moc"
