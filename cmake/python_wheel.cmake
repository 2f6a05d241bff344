# What CMake adds to the Python wheel (`pip install .`: scikit-build-core, configured in pyproject.toml, sets SKBUILD,
# builds, installs the `wheel` component alone and takes python/leanattn itself):
#     site-packages/leanattn/__init__.py …        python/leanattn/*.py
#     site-packages/leanattn/libleanattn.so       beside the modules, where python/leanattn/_library.py looks first
#                                                 (unversioned here: capi/CMakeLists.txt)
#     site-packages/leanattn/data/                devices, kernel models, model shapes: beside the library, where it
#                                                 looks first (apps/data_catalog.cpp)
#     ENV/bin/leanattn                            the command, where Boost.Program_options was found (LEANATTN_CLI=AUTO)
#     ENV/share/leanattn/data/                    and data/ where it looks, as in an installed tree (ENV: the environment)
# As targets, so that scikit-build-core strips them (install.strip, on by default).
install(TARGETS leanattn_capi LIBRARY DESTINATION leanattn COMPONENT wheel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION leanattn/data COMPONENT wheel)
if(TARGET leanattn)
  install(TARGETS leanattn RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR} COMPONENT wheel)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION ${SKBUILD_DATA_DIR}/share/leanattn/data COMPONENT wheel)
endif()
