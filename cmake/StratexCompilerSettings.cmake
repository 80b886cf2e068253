# SPDX-License-Identifier: GPL-3.0-or-later
# Warnings and sanitizers for every target of the project, applied through interface targets so
# that third-party code (Qt, nlohmann_json) is not affected.
add_library(stratex_compiler_settings INTERFACE)
target_compile_options(stratex_compiler_settings INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
    -Woverloaded-virtual -Wimplicit-fallthrough
    # GCC 12 at -O2 reports std::string and std::vector internals as out of bounds or null
    # (GCC PR 105329 and friends); those false positives would drown real warnings.
    -Wno-array-bounds $<$<CXX_COMPILER_ID:GNU>:-Wno-stringop-overflow>
    # Aggregates initialised up to a point rely on default member initialisers for the rest.
    -Wno-missing-field-initializers)
target_compile_definitions(stratex_compiler_settings INTERFACE
    QT_NO_KEYWORDS QT_NO_FOREACH STRATEX_VERSION="${PROJECT_VERSION}")

if(STRATEX_SANITIZE)
    target_compile_options(stratex_compiler_settings INTERFACE
        -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
    target_link_options(stratex_compiler_settings INTERFACE -fsanitize=address,undefined)
endif()

if(STRATEX_BUILD_FUZZERS)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "STRATEX_BUILD_FUZZERS needs clang (libFuzzer): use the `fuzz` preset")
    endif()
    # Coverage for libFuzzer in every object; only the fuzz targets link libFuzzer itself.
    target_compile_options(stratex_compiler_settings INTERFACE -fsanitize=fuzzer-no-link)
endif()

# Product code (app/, ui/) spells out every string conversion; tests may use plain literals.
add_library(stratex_qt_strict INTERFACE)
target_link_libraries(stratex_qt_strict INTERFACE stratex_compiler_settings)
target_compile_definitions(stratex_qt_strict INTERFACE
    QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_USE_QSTRINGBUILDER QT_NO_URL_CAST_FROM_STRING)
