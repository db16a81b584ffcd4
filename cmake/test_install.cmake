# The installed package as another project meets it: install this build into a temporary prefix,
# build examples/ against it with find_package(hetcim), run both examples and check their figures
# (ResNet-18: 38 operators and 201 crossbars of 256x256, the numbers `hetcim inspect` prints and
# tests/integration/cli_test.cpp asserts), and import the installed Python package.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, Python_EXECUTABLE.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run_step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/hetcim/hetcim.h include/hetcim/version.h include/hetcim/partition/problem.h
          lib/cmake/hetcim/hetcimConfig.cmake bin/hetcim)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
file(READ "${prefix}/include/hetcim/partition/problem.h" problem_h)
if(NOT problem_h MATCHES "#include \"hetcim/graph/dag.h\"")
  message(FATAL_ERROR "installed headers must include each other under hetcim/")
endif()

run_step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples" -B "${WORK_DIR}/build" -G Ninja
         -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefix}")
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")

run_step("${WORK_DIR}/build/inspect_model" resnet18)
if(NOT out MATCHES "resnet18: 38 operators, [0-9]+ offloadable, 201 crossbars of 256x256")
  message(FATAL_ERROR "inspect_model resnet18 printed:\n${out}")
endif()
run_step("${WORK_DIR}/build/partition_sweep" resnet18 seed000-arm 25 100)
if(NOT out MATCHES "25 +[0-9.]+ +[0-9.]+ .*ok, optimal, solved" OR NOT out MATCHES "host latencies: modelled")
  message(FATAL_ERROR "partition_sweep printed:\n${out}")
endif()
message(STATUS "examples:\n${out}")

if(Python_EXECUTABLE)
  file(GLOB_RECURSE init "${prefix}/*/hetcim/__init__.py")
  list(LENGTH init n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "the install holds ${n} copies of the Python package: ${init}")
  endif()
  get_filename_component(pkg "${init}" DIRECTORY)
  get_filename_component(site "${pkg}" DIRECTORY)
  run_step(${CMAKE_COMMAND} -E env "PYTHONPATH=${site}" ${Python_EXECUTABLE} -c
           "import hetcim; r = hetcim.inspect('resnet18'); assert r['totals']['crossbars'] == 201, r['totals']; print(hetcim.__file__)")
  if(NOT out MATCHES "^${site}")
    message(FATAL_ERROR "imported hetcim from ${out}, not from the install")
  endif()
endif()
