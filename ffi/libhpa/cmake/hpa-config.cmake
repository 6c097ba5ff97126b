# find_package(hpa) for an installed libhpa (ffi/install, or cargo cinstall): imported targets
#   hpa::hpa_static  libhpa.a
#   hpa::hpa_shared  libhpa.so (when installed)
#   hpa::hpa         the static library: no runtime dependency, and what embedded builds use
# Installed as PREFIX/share/hpa/cmake/hpa-config.cmake; the library and header are found from
# there, whatever PREFIX is.
get_filename_component(_hpa_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_hpa_libdirs "${_hpa_prefix}/lib" "${_hpa_prefix}/lib64")
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND _hpa_libdirs "${_hpa_prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
endif()
find_path(HPA_INCLUDE_DIR hpa.h PATHS "${_hpa_prefix}/include" NO_DEFAULT_PATH)
find_file(HPA_STATIC_LIBRARY libhpa.a PATHS ${_hpa_libdirs} NO_DEFAULT_PATH)
find_file(HPA_SHARED_LIBRARY libhpa.so PATHS ${_hpa_libdirs} NO_DEFAULT_PATH)
mark_as_advanced(HPA_INCLUDE_DIR HPA_STATIC_LIBRARY HPA_SHARED_LIBRARY)

if(NOT HPA_INCLUDE_DIR OR NOT HPA_STATIC_LIBRARY)
  set(hpa_FOUND FALSE)
  set(hpa_NOT_FOUND_MESSAGE "hpa.h or libhpa.a is missing under ${_hpa_prefix}")
  return()
endif()

if(NOT TARGET hpa::hpa_static)
  add_library(hpa::hpa_static STATIC IMPORTED)
  set_target_properties(hpa::hpa_static PROPERTIES
    IMPORTED_LOCATION "${HPA_STATIC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${HPA_INCLUDE_DIR}"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C")
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # Drops the parts of the library a program does not use.
    set_property(TARGET hpa::hpa_static PROPERTY INTERFACE_LINK_OPTIONS "LINKER:--gc-sections")
  endif()
endif()
if(HPA_SHARED_LIBRARY AND NOT TARGET hpa::hpa_shared)
  get_filename_component(_hpa_real "${HPA_SHARED_LIBRARY}" REALPATH)
  add_library(hpa::hpa_shared SHARED IMPORTED)
  set_target_properties(hpa::hpa_shared PROPERTIES
    IMPORTED_LOCATION "${_hpa_real}"
    INTERFACE_INCLUDE_DIRECTORIES "${HPA_INCLUDE_DIR}")
endif()
if(NOT TARGET hpa::hpa)
  add_library(hpa::hpa INTERFACE IMPORTED)
  set_property(TARGET hpa::hpa PROPERTY INTERFACE_LINK_LIBRARIES hpa::hpa_static)
endif()
set(hpa_FOUND TRUE)
