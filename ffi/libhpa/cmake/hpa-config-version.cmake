# The installed libhpa's version, read from its header (HPA_VERSION_STRING), and semantic
# versioning's compatibility: the same major version, and before 1.0 the same minor one
# (0.MINOR releases may break the C API), no older than the version asked for.
get_filename_component(_hpa_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
file(STRINGS "${_hpa_prefix}/include/hpa.h" _hpa_version_line
  REGEX "^#define HPA_VERSION_STRING \"[0-9]+\\.[0-9]+\\.[0-9]+\"")
string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" PACKAGE_VERSION "${_hpa_version_line}")
string(REPLACE "." ";" _hpa_have "${PACKAGE_VERSION}")
list(GET _hpa_have 0 _hpa_major)
list(GET _hpa_have 1 _hpa_minor)
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION
       AND PACKAGE_FIND_VERSION_MAJOR EQUAL _hpa_major
       AND (_hpa_major GREATER 0 OR PACKAGE_FIND_VERSION_MINOR EQUAL _hpa_minor))
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
