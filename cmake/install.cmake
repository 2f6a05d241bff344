# `cmake --install build --prefix P`: the CLI, the headers, the static C++ libraries, libleanattn.so (the C ABI),
# data/, the Python package, and a CMake package so that another project can write
#     find_package(leanattn REQUIRED)
#     target_link_libraries(app PRIVATE leanattn::leanattn)     # the C++ API (core, cpu, sim, cuda)
#     target_link_libraries(app PRIVATE leanattn::capi)         # or the C ABI only
# (`find_package(leanattn REQUIRED COMPONENTS capi)` asks for the C ABI alone, and needs none of the C++ API's dependencies)
include(CMakePackageConfigHelpers)

# leanattn::leanattn: the whole C++ API in one name.
add_library(leanattn_all INTERFACE)
set_target_properties(leanattn_all PROPERTIES EXPORT_NAME leanattn)
add_library(leanattn::leanattn ALIAS leanattn_all)  # the same name where a project adds this tree (add_subdirectory, FetchContent)
target_link_libraries(leanattn_all INTERFACE leanattn_core leanattn_cpu leanattn_sim)
set(leanattn_exported leanattn_options leanattn_core leanattn_cpu leanattn_sim leanattn_all)
if(LEANATTN_HAVE_CUDA)
  target_link_libraries(leanattn_all INTERFACE leanattn_cuda)
  list(APPEND leanattn_exported leanattn_cuda)
endif()

# libleanattn.so in an export of its own: it carries everything it needs, so a C consumer's find_package needs none of
# the C++ API's dependencies (Eigen, OpenMP, the CUDA toolkit).
install(TARGETS leanattn_capi EXPORT leanattnCapiTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${leanattn_exported} EXPORT leanattnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${LEANATTN_INSTALL_INCLUDEDIR})
foreach(folder core cpu sim)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${LEANATTN_INSTALL_INCLUDEDIR}/${folder} FILES_MATCHING PATTERN "*.hpp")
endforeach()
if(LEANATTN_HAVE_CUDA)
  install(FILES ${PROJECT_SOURCE_DIR}/cuda/decode.hpp DESTINATION ${LEANATTN_INSTALL_INCLUDEDIR}/cuda)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/capi/leanattn.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/leanattn/data)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/leanattn DESTINATION ${CMAKE_INSTALL_LIBDIR}/python FILES_MATCHING PATTERN "*.py")

install(EXPORT leanattnTargets NAMESPACE leanattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/leanattn)
install(EXPORT leanattnCapiTargets NAMESPACE leanattn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/leanattn)
set(LEANATTN_CONFIG_HAVE_CUDA ${LEANATTN_HAVE_CUDA})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/leanattnConfig.cmake.in ${PROJECT_BINARY_DIR}/leanattnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/leanattn)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/leanattnConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/leanattnConfig.cmake ${PROJECT_BINARY_DIR}/leanattnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/leanattn)
