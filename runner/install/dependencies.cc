#include "runner/install/dependencies.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::install {

const std::vector<DependencyRow>& DebianDependencyTable() {
  // Generic names as used by the profiles (most frequent first), Debian 12 package names.
  static const std::vector<DependencyRow> table = {
      {"build-utilities", "build-essential autoconf automake libtool pkg-config"},
      {"cmake", "cmake"},
      {"python", "python3"},
      {"openmpi-development", "libopenmpi-dev openmpi-bin"},
      {"opencl", "ocl-icd-opencl-dev"},
      {"fortran-compiler", "gfortran"},
      {"yasm", "yasm"},
      {"zlib-development", "zlib1g-dev"},
      {"openssl-development", "libssl-dev"},
      {"java", "default-jre"},
      {"p7zip", "p7zip-full"},
      {"fftw3-development", "libfftw3-dev"},
      {"boost-development", "libboost-all-dev"},
      {"libpng-development", "libpng-dev"},
      {"blas-development", "libopenblas-dev"},
      {"perl", "perl"},
      {"glut", "freeglut3-dev"},
      {"xorg-development", "xorg-dev"},
      {"vulkan-development", "libvulkan-dev"},
      {"libtool", "libtool"},
      {"curl", "curl"},
      {"jpeg-development", "libjpeg-dev"},
      {"bison", "bison"},
      {"meson", "meson ninja-build"},
      {"flex", "flex"},
      {"sdl-development", "libsdl1.2-dev"},
      {"sdl2-development", "libsdl2-dev"},
      {"lapack-development", "liblapack-dev"},
      {"libevent", "libevent-dev"},
      {"pcre", "libpcre3-dev"},
      {"hdf5", "libhdf5-dev"},
      {"atlas-development", "libatlas-base-dev"},
      {"tcl", "tcl"},
      {"snappy", "libsnappy-dev"},
      {"rust", "rustc cargo"},
      {"nasm", "nasm"},
      {"gmp-library", "libgmp-dev"},
      {"git", "git"},
      {"bc", "bc"},
      {"ncurses-development", "libncurses-dev"},
      {"libxml2", "libxml2-dev"},
      {"libaio-development", "libaio-dev"},
      {"glew", "libglew-dev"},
      {"tiff", "libtiff-dev"},
      {"opencv", "libopencv-dev"},
      {"openal-development", "libopenal-dev"},
      {"node-npm", "nodejs npm"},
      {"gtk-development", "libgtk2.0-dev"},
      {"golang", "golang"},
      {"gflags", "libgflags-dev"},
      {"uuid", "uuid-dev"},
      {"scons", "scons"},
      {"python-numpy", "python3-numpy"},
      {"python-scipy", "python3-scipy"},
      {"csh", "csh"},
      {"autoconf", "autoconf"},
      {"numa-development", "libnuma-dev"},
      {"popt", "libpopt-dev"},
      {"fio", "fio"},
      {"sqlite", "sqlite3"},
      {"smartmontools", "smartmontools"},
      {"unzip", "unzip"},
      {"bzip2", "bzip2"},
      {"xz", "xz-utils"},
      {"wget", "wget"},
      {"php", "php-cli php-xml"},
      {"ruby", "ruby"},
      {"rsync", "rsync"},
      {"redis-server", "redis-server"},
      {"postgresql", "postgresql"},
      {"mysql", "default-mysql-server"},
      {"nginx", "nginx"},
      {"apache", "apache2"},
      {"fs-mark", "fsmark"},
      {"dbench", "dbench"},
      // Commands the bundled Debian-program profiles name in SystemDependencies.
      {"fs_mark", "fsmark"},
      {"postmark", "postmark"},
      {"bonnie++", "bonnie++"},
      {"pgbench", "postgresql"},
      {"sqlite3", "sqlite3"},
      {"iozone", "iozone3"},
      {"openssl", "openssl"},
      {"botan", "botan"},
      {"cryptsetup", "cryptsetup-bin"},
  };
  return table;
}

std::vector<std::string> DebianPackagesFor(const std::string& generic_name) {
  std::string name = ToLower(Trim(generic_name));
  for (const auto& row : DebianDependencyTable())
    if (name == row.generic_name) {
      std::vector<std::string> out;
      for (const auto& p : Split(row.packages, ' '))
        if (!p.empty()) out.push_back(p);
      return out;
    }
  return {};
}

PackageProbe DpkgProbe() {
  return [](const std::string& package) {
    std::string cmd = "dpkg-query -W -f='${Status}' '" + package + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return false;
    char buf[256] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    pclose(p);
    return std::string(buf, n).find("install ok installed") != std::string::npos;
  };
}

bool CommandExists(const std::string& name) {
  if (name.empty()) return false;
  if (name.find('/') != std::string::npos) return access(name.c_str(), F_OK) == 0;
  const char* path = std::getenv("PATH");
  for (const auto& dir : Split(path ? path : "/usr/bin:/bin", ':'))
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

DependencyCheck CheckDependencies(const std::vector<std::string>& external, const std::vector<std::string>& system,
                                  const PackageProbe& installed,
                                  const std::function<bool(const std::string&)>& find_command) {
  DependencyCheck check;
  auto add_missing = [&](const std::string& pkg) {
    if (std::find(check.missing_packages.begin(), check.missing_packages.end(), pkg) == check.missing_packages.end())
      check.missing_packages.push_back(pkg);
  };
  for (const auto& name : external) {
    auto packages = DebianPackagesFor(name);
    if (packages.empty()) {
      check.unknown_names.push_back(name);
      continue;
    }
    for (const auto& p : packages)
      if (!installed(p)) add_missing(p);
  }
  for (const auto& name : system) {
    if (find_command(name)) continue;
    check.missing_commands.push_back(name);
    for (const auto& p : DebianPackagesFor(name)) add_missing(p);
  }
  return check;
}

std::string AptGetCommand(const std::vector<std::string>& packages, bool as_root) {
  return std::string(as_root ? "" : "sudo ") + "apt-get install -y " + Join(packages, " ");
}

}  // namespace ptsn::install
