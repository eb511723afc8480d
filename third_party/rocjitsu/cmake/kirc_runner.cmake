# kirc: included by rocjitsu's top-level project() call
# (CMAKE_PROJECT_rocm_jit_suite_INCLUDE, set by third_party/rocjitsu/build.sh).
# At that point none of rocjitsu's targets exist yet, so the runner target is
# defined by a call deferred to the end of the top-level CMakeLists.txt, when
# every object library (rocjitsu_*, simdojo, util) has been declared.
#
# Inputs (cache variables from build.sh):
#   KIRC_RUNNER_SOURCE   hw/rocjitsu/runner/kirc_rocjitsu_run.cc
#   KIRC_ROCJITSU_COMMIT the rocm-systems commit (baked into --version)
#   KIRC_SHIM_DIR        third_party/rocjitsu/shim (our <format>), may be empty

if(KIRC_SHIM_DIR)
    # Before the standard library's own directories, for every target.
    include_directories(BEFORE SYSTEM "${KIRC_SHIM_DIR}")
    find_package(fmt CONFIG REQUIRED)
    # rocjitsu's object libraries call std::format, which the shim maps to
    # {fmt}; every executable linking them needs libfmt.
    link_libraries(fmt::fmt)
endif()

function(kirc_add_rocjitsu_runner)
    set(_libs
        rocjitsu_analysis
        rocjitsu_code
        rocjitsu_isa
        rocjitsu_isa_cdna1
        rocjitsu_isa_cdna2
        rocjitsu_isa_cdna3
        rocjitsu_isa_cdna4
        rocjitsu_isa_rdna1
        rocjitsu_isa_rdna2
        rocjitsu_isa_rdna3
        rocjitsu_isa_rdna3_5
        rocjitsu_isa_rdna4
        rocjitsu_isa_gfx1250
        rocjitsu_isa_risc_v
        simdojo
        rocjitsu_kmd
        rocjitsu_vm
        rocjitsu_vm_amdgpu
        rocjitsu_plugin_logging
        rocjitsu_plugin_race_detector
        rocjitsu_vm_risc_v
        rocjitsu_config
        rocjitsu_dbt_config
    )
    set(_present)
    foreach(_l IN LISTS _libs)
        if(TARGET ${_l})
            list(APPEND _present ${_l})
        endif()
    endforeach()
    add_executable(kirc-rocjitsu-run "${KIRC_RUNNER_SOURCE}")
    target_link_libraries(kirc-rocjitsu-run PRIVATE ${_present} util flatbuffers Threads::Threads dl)
    target_include_directories(
        kirc-rocjitsu-run
        PRIVATE
            "${PROJECT_SOURCE_DIR}/lib/rocjitsu/include"
            "${PROJECT_SOURCE_DIR}/lib/rocjitsu/src"
            "${GENERATED_DIR}"
    )
    target_include_directories(kirc-rocjitsu-run SYSTEM PRIVATE "${HSA_INCLUDE_DIR}")
    target_compile_definitions(
        kirc-rocjitsu-run
        PRIVATE KIRC_ROCJITSU_COMMIT="${KIRC_ROCJITSU_COMMIT}"
    )
    target_compile_options(kirc-rocjitsu-run PRIVATE -Wall -Wextra)
    add_dependencies(kirc-rocjitsu-run flatbuffers_schemas)
    install(TARGETS kirc-rocjitsu-run RUNTIME DESTINATION bin)
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL kirc_add_rocjitsu_runner)
