# The installed package as another project meets it: install this build into a temporary prefix,
# build examples/ against it with find_package(hetcim), run both examples and check their figures
# (ResNet-18: 38 operators and 201 crossbars of 256x256, the numbers `hetcim inspect` prints and
# tests/integration/cli_test.cpp asserts), and import the installed Python package. Built with
# libtorch (WITH_TORCH): the torch component too (hetcim::api_torch, <hetcim/analog.h>) and the
# analog_eval example, whose digital accuracy read back from the written ONNX file must equal the
# one training measured on the same test images (skipped without Fashion-MNIST unless
# HETCIM_REQUIRE_DATA=1). A bare chip profile name (A3) resolves to the installed
# share/hetcim/chips.yaml, from the installed CLI and the installed Python package. Without libtorch the package must have no torch component. Either way
# the installed libhetcim.so must not need libtorch.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, Python_EXECUTABLE, WITH_TORCH.
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
          lib/cmake/hetcim/hetcimConfig.cmake bin/hetcim share/hetcim/chips.yaml
          share/hetcim/paper/seed000.yaml share/hetcim/paper/seed001.yaml share/hetcim/paper/seed002.yaml)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()
file(READ "${prefix}/include/hetcim/partition/problem.h" problem_h)
if(NOT problem_h MATCHES "#include \"hetcim/graph/dag.h\"")
  message(FATAL_ERROR "installed headers must include each other under hetcim/")
endif()

set(torch_targets "${prefix}/lib/cmake/hetcim/hetcimTorchTargets.cmake")
if(WITH_TORCH)
  foreach(f include/hetcim/analog.h include/hetcim/api_torch/pool.h include/hetcim/train/evaluate.h)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "the install lacks ${f}")
    endif()
  endforeach()
  file(GLOB torch_libs "${prefix}/lib/libhetcim_torch.so*")
  if(NOT torch_libs OR NOT EXISTS "${torch_targets}")
    message(FATAL_ERROR "the install lacks libhetcim_torch.so or hetcimTorchTargets.cmake")
  endif()
  if(EXISTS "${prefix}/include/hetcim/train/race_cnn_net.h")
    message(FATAL_ERROR "train/race_cnn_net.h includes <torch/torch.h> and must not be installed")
  endif()
  file(READ "${prefix}/include/hetcim/analog.h" analog_h)
  if(NOT analog_h MATCHES "#include \"hetcim/api_torch/policy.h\"")
    message(FATAL_ERROR "<hetcim/analog.h> must include hetcim/api_torch/policy.h")
  endif()
elseif(EXISTS "${torch_targets}")
  message(FATAL_ERROR "built without libtorch, yet the install has ${torch_targets}")
endif()
find_program(READELF readelf)
if(READELF)
  file(GLOB libhetcim "${prefix}/lib/libhetcim.so.*.*.*")
  run_step(${READELF} -d ${libhetcim})
  if(NOT out MATCHES "libhetcim.so" OR out MATCHES "NEEDED[^\n]*(libtorch|libc10)")
    message(FATAL_ERROR "libhetcim.so must not need libtorch:\n${out}")
  endif()
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

# A bare chip profile name resolves to the installed chips file (share/hetcim/chips.yaml), not to
# the source tree's: the installed CLI records where it found the profile.
run_step("${prefix}/bin/hetcim" sensitivity race_cnn_mnist --chip A3 --dataset synthetic
         --samples 8 --max-pairs 0 --quiet --out "${WORK_DIR}/sens.json")
file(READ "${WORK_DIR}/sens.json" sens)
string(JSON chip_spec GET "${sens}" chip spec)
file(REAL_PATH "${prefix}/share/hetcim/chips.yaml" installed_chips)
if(NOT chip_spec STREQUAL "${installed_chips}:A3")
  message(FATAL_ERROR "the installed hetcim resolved the bare chip name A3 to '${chip_spec}', "
                      "not to ${installed_chips}:A3")
endif()

# The published numbers too: the installed `hetcim reproduce` reads share/hetcim/paper.
run_step("${prefix}/bin/hetcim" reproduce seed001 --quick --out "${WORK_DIR}/repro001")
file(READ "${WORK_DIR}/repro001/reproduce.json" repro)
string(JSON paper_origin GET "${repro}" provenance facts "published numbers")
file(REAL_PATH "${prefix}/share/hetcim/paper/seed001.yaml" installed_paper)
if(NOT paper_origin STREQUAL installed_paper)
  message(FATAL_ERROR "the installed hetcim reproduce read the published numbers from "
                      "'${paper_origin}', not from ${installed_paper}")
endif()

if(WITH_TORCH)
  if(NOT EXISTS "${WORK_DIR}/build/analog_eval")
    message(FATAL_ERROR "find_package(hetcim OPTIONAL_COMPONENTS torch) did not find the torch component")
  endif()
  if(NOT EXISTS "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz"
     AND NOT "$ENV{HETCIM_REQUIRE_DATA}" STREQUAL "1")
    message(STATUS "analog_eval skipped: Fashion-MNIST is not installed")
  else()
    # 1 epoch on 5000 training images, 200 test images: about 10 s wall under load 6 on 2 cores.
    run_step("${WORK_DIR}/build/analog_eval" "${SOURCE_DIR}/data/chips.yaml:A3" "${WORK_DIR}" 200 5000)
    if(NOT out MATCHES "test accuracy ([0-9.]+) on the first 200 test images")
      message(FATAL_ERROR "analog_eval printed:\n${out}")
    endif()
    string(REPLACE "." "[.]" trained "${CMAKE_MATCH_1}")
    if(NOT out MATCHES "digital: accuracy ${trained} on 200 images \\(ok, measured\\)"
       OR NOT out MATCHES "A3: accuracy [01][.][0-9]+ on 200 images \\(ok, measured\\)")
      message(FATAL_ERROR "analog_eval (the digital accuracy must be the one training measured) printed:\n${out}")
    endif()
    message(STATUS "analog_eval:\n${out}")
  endif()
endif()

if(Python_EXECUTABLE)
  file(GLOB_RECURSE init "${prefix}/*/hetcim/__init__.py")
  list(LENGTH init n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "the install holds ${n} copies of the Python package: ${init}")
  endif()
  get_filename_component(pkg "${init}" DIRECTORY)
  get_filename_component(site "${pkg}" DIRECTORY)
  run_step(${CMAKE_COMMAND} -E env "PYTHONPATH=${site}" ${Python_EXECUTABLE} -c
           "import hetcim, os; r = hetcim.inspect('resnet18'); assert r['totals']['crossbars'] == 201, r['totals']; d = hetcim.sensitivity('race_cnn_mnist', chip='A3', dataset='synthetic', samples=8, max_pairs=0); assert d['chip']['spec'] == os.path.realpath('${prefix}/share/hetcim/chips.yaml') + ':A3', d['chip']['spec']; print(hetcim.__file__)")
  if(NOT out MATCHES "^${site}")
    message(FATAL_ERROR "imported hetcim from ${out}, not from the install")
  endif()
endif()
