# What CMake adds to the Python wheel (`pip install .`: scikit-build-core, configured in pyproject.toml, sets SKBUILD,
# builds the leanattn_capi target, installs the `wheel` component alone and takes python/leanattn itself):
# libleanattn.so beside the package's modules, where python/leanattn/_library.py looks first, and data/ inside the
# package, where the library looks beside itself (apps/data_catalog.cpp).
#     site-packages/leanattn/__init__.py …        python/leanattn/*.py
#     site-packages/leanattn/libleanattn.so       one file: a wheel cannot hold the versioned name's symlinks
#     site-packages/leanattn/data/                devices, kernel models, model shapes
install(FILES $<TARGET_FILE:leanattn_capi> DESTINATION leanattn RENAME libleanattn.so COMPONENT wheel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/ DESTINATION leanattn/data COMPONENT wheel)
