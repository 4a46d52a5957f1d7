# The Python module (python/): ktune._ktune (pybind11) plus the pure-Python package, assembled in
# <build>/python/ktune so that PYTHONPATH=<build>/python imports it. Built for Debian's own /usr/bin/python3 unless
# Python3_EXECUTABLE says otherwise (another python3 may come first on a developer's PATH; a user's fresh Debian has
# only that one). Installed by `make python` (component "python", not part of a plain `cmake --install`).
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module)
find_package(pybind11 2.6 CONFIG)
if(NOT Python3_FOUND OR NOT pybind11_FOUND)
  message(STATUS "ktune: no Python module (needs python3-dev and pybind11-dev; `make setup` installs them)")
  return()
endif()

set(KTUNE_PYTHON_PACKAGE_DIR ${CMAKE_CURRENT_BINARY_DIR}/python/ktune)
pybind11_add_module(ktune_python MODULE ${CMAKE_CURRENT_SOURCE_DIR}/python/src/module.cpp)
set_target_properties(ktune_python PROPERTIES OUTPUT_NAME _ktune LIBRARY_OUTPUT_DIRECTORY ${KTUNE_PYTHON_PACKAGE_DIR})
target_link_libraries(ktune_python PRIVATE ktune_lib)

# The package's modules and subpackages (ktune.observers, ktune.strategies), copied with their folders.
file(GLOB_RECURSE KTUNE_PYTHON_SOURCES CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/python/ktune
     ${CMAKE_CURRENT_SOURCE_DIR}/python/ktune/*.py)
set(KTUNE_PYTHON_COPIES)
foreach(relative ${KTUNE_PYTHON_SOURCES})
  get_filename_component(folder ${relative} DIRECTORY)
  list(APPEND KTUNE_PYTHON_COPIES
       COMMAND ${CMAKE_COMMAND} -E make_directory ${KTUNE_PYTHON_PACKAGE_DIR}/${folder}
       COMMAND ${CMAKE_COMMAND} -E copy_if_different ${CMAKE_CURRENT_SOURCE_DIR}/python/ktune/${relative}
               ${KTUNE_PYTHON_PACKAGE_DIR}/${folder})
  install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/python/ktune/${relative} DESTINATION ktune/${folder} COMPONENT python
          EXCLUDE_FROM_ALL)
endforeach()
add_custom_target(ktune_python_sources ALL ${KTUNE_PYTHON_COPIES}
                  COMMENT "ktune Python package in ${KTUNE_PYTHON_PACKAGE_DIR}")
add_dependencies(ktune_python ktune_python_sources)

# `make python` installs into the user site of the interpreter (or PYTHON_PREFIX): the folder holding ktune/.
install(TARGETS ktune_python LIBRARY DESTINATION ktune COMPONENT python EXCLUDE_FROM_ALL)

# `make python` puts the package where the interpreter finds it: installed into a scratch folder, it imports.
add_test(NAME Python.Install
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DPREFIX=${CMAKE_CURRENT_BINARY_DIR}/python-install-test
                 -DPYTHON=${Python3_EXECUTABLE} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/test_python_install.cmake)

# The pytest suite, run by the same interpreter the module was built for.
add_test(NAME Python.pytest
         COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/tests)
set_tests_properties(Python.pytest PROPERTIES TIMEOUT 900 COST 80
                     ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_BINARY_DIR}/python;KTUNE_SHARED_DIR=${KTUNE_SHARED_DIR};KTUNE_BINARY=$<TARGET_FILE:ktune>;KTUNE_FAKE_NVML=$<TARGET_FILE:ktune_fake_nvml>")
