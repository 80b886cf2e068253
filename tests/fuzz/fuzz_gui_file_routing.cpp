// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's file routing on any bytes (issue 26: any file opens without a crash; a 200 MB plan file
// aborted in isPlanFile). The bytes are written as a file whose suffix the first byte picks
// (.json, .txt, .conf, .cfg, .log or none), routed as MainWindow routes a dropped or opened file
// (controllers/file_routing.h, the function the pages' canOpen call), and loaded as the page it
// goes to loads it before starting any job: the Search page's plan file (PartialPlanFile and its
// strategy on its own model and cluster) or strategy file, the Ranks page's batch configs
// (RanksController::readBatchFile), the Timeline page's simulation cases. QtCore only, no window.
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <QCoreApplication>
#include <QString>

#include "core/common/bounded_read.h"
#include "core/common/json_reader.h"
#include "core/galvatron/strategy_file.h"
#include "core/megatron/plan_file.h"
#include "core/sim/sim_cases.h"

#include "controllers/file_routing.h"
#include "controllers/ranks_controller.h"

#include "tests/fuzz/fuzz_common.h"

using namespace stratex;
namespace fs = std::filesystem;

namespace {

constexpr std::array<const char*, 6> kSuffixes { ".json", ".txt", ".conf", ".cfg", ".log", "" };

fs::path scratchDir()
{
    static const fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("stratex-fuzz-routing-" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

// Routing asks the file's suffix; the loads behind it need a Qt application for nothing but
// QString's codecs, as the offscreen GUI has one.
QCoreApplication& application()
{
    static int argc = 1;
    static char name[] = "fuzz_gui_file_routing";
    static char* argv[] = { name, nullptr };
    static QCoreApplication app(argc, argv);
    return app;
}

void loadAsRouted(controllers::FileRoute route, const QString& path)
{
    const std::string file = path.toStdString();
    switch (route) {
    case controllers::FileRoute::Search:
        if (megatron::isPlanFile(file)) {
            // StratexSearchController::openPlan: a plan file that names its model and cluster is
            // costed on them; one that does not takes the form's (not fuzzed here).
            const megatron::PartialPlanFile plan = megatron::PartialPlanFile::load(file);
            if (plan.model() && plan.cluster())
                (void)plan.strategy(*plan.model(), static_cast<long long>(plan.cluster()->worldSize()));
        } else {
            (void)galvatron::StrategyFile::load(file);
        }
        break;
    case controllers::FileRoute::Ranks: {
        std::vector<ranks::BatchConfig> configs;
        QString error;
        (void)controllers::RanksController::readBatchFile(path, &configs, &error);
        break;
    }
    case controllers::FileRoute::Timeline: {
        // TimelineSources::openCasesFile, then its loading job.
        const std::string text = readTextFile(file);
        const JsonDocument document = JsonDocument::parse(text, file);
        (void)sim::readSimulationCases(document.root());
        break;
    }
    case controllers::FileRoute::None:
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    (void)application();
    if (size == 0)
        return 0;
    const fs::path file = scratchDir() / (std::string("dropped") + kSuffixes[data[0] % kSuffixes.size()]);
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
    }
    const QString path = QString::fromStdString(file.string());
    fuzz::expectValueOrError([&] {
        const controllers::FileRoute route = controllers::fileRoute(path);
        // The route is one page's decision: the page that opens it is the first that says yes.
        if (route != controllers::FileRoute::None && controllers::routePageId(route).isEmpty())
            std::abort();
        loadAsRouted(route, path);
    });
    fs::remove(file);
    return 0;
}
