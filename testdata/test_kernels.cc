#include "testdata/test_kernels.h"

#include <fstream>
#include <sstream>

#include "absl/status/statusor.h"
#include "compiler/ir/parser.h"
#include "gtest/gtest.h"

namespace kir::testing {

std::string ReadTestFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

Kernel TestdataKernel(const std::string& name) {
  absl::StatusOr<Kernel> k = ParseKernel(ReadTestFile("testdata/kernels/" + name + ".kir"), name + ".kir");
  if (!k.ok()) {
    ADD_FAILURE() << k.status();
    return Kernel{};
  }
  return *std::move(k);
}

}  // namespace kir::testing
