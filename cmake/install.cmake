# Install rules: the hetcim and hetcim-torch programs, libhetcim.so (the api module and what it
# uses) as the imported target hetcim::hetcim, with libtorch also libhetcim_torch.so (api_torch
# and train, linking libhetcim.so) as hetcim::api_torch, the headers under include/hetcim/, and
# the CMake package files (hetcimConfig.cmake, hetcimConfigVersion.cmake, hetcimTargets.cmake,
# hetcimTorchTargets.cmake: loaded only by find_package(hetcim COMPONENTS torch)).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS hetcim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The shipped chip profiles: a bare profile name ("A3") resolves here (xbar/chips_yaml.h,
# util/shipped_data.h).
install(FILES ${PROJECT_SOURCE_DIR}/data/chips.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/hetcim)
# The published numbers `hetcim reproduce` and `analog study` compare with (util/shipped_data.h).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/paper DESTINATION ${CMAKE_INSTALL_DATADIR}/hetcim)
# Seed 002's shipped study records (formats/study_records.h), read by `reproduce seed002` by default
# when the repository has them.
if(EXISTS ${PROJECT_SOURCE_DIR}/data/seed002-study)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/seed002-study DESTINATION ${CMAKE_INSTALL_DATADIR}/hetcim)
endif()
if(TARGET hetcim-torch)
  install(TARGETS hetcim-torch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# MPI support, loaded by hetcim from ../<libdir> when an MPI launcher starts it (src/dist).
if(TARGET hetcim_mpi)
  install(TARGETS hetcim_mpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(TARGETS hetcim_shared EXPORT hetcimTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(HETCIM_PUBLIC_MODULES util graph onnxio zoo passes workload cost cluster partition platform dse exec xbar data hybrid select accuracy results formats api report)
set(HETCIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hetcim)
# The libtorch component: train's race_cnn_net.h includes <torch/torch.h> and is not installed
# (the other headers speak graph::Graph and data::ImageDataset only).
set(HETCIM_PRIVATE_HEADERS "")
if(TARGET hetcim_api_torch_shared)
  list(APPEND HETCIM_PUBLIC_MODULES train api_torch)
  list(APPEND HETCIM_PRIVATE_HEADERS train/race_cnn_net.h)
  install(TARGETS hetcim_api_torch_shared EXPORT hetcimTorchTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT hetcimTorchTargets NAMESPACE hetcim:: DESTINATION ${HETCIM_CMAKE_DIR})
endif()
install(CODE "
  set(SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(GENERATED_DIR \"${PROJECT_BINARY_DIR}/generated\")
  set(MODULES \"${HETCIM_PUBLIC_MODULES}\")
  set(PRIVATE_HEADERS \"${HETCIM_PRIVATE_HEADERS}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/install_headers.cmake\")
")
install(EXPORT hetcimTargets NAMESPACE hetcim:: DESTINATION ${HETCIM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hetcimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/hetcimConfig.cmake INSTALL_DESTINATION ${HETCIM_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hetcimConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hetcimConfig.cmake ${PROJECT_BINARY_DIR}/hetcimConfigVersion.cmake
        DESTINATION ${HETCIM_CMAKE_DIR})
