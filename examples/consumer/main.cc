// A minimal front end outside Bazel: it writes a KIR kernel as text, compiles
// it with the installed libkirc (compiler/api/compile.h), proves its addresses
// with the verifier (verify/verify.h), and prints the first lines of the
// assembly and the resources the kernel descriptor declares.
//
//   consumer [--mcpu=gfx908|gfx90a|gfx942|gfx950] [--lines=N] [FILE.kir]
//
// Without FILE it compiles its own kernel: C = A * B^T for one 16x16x16 f16
// tile on one wave, staged through padded LDS (one v_mfma). Build it with the
// Makefile or CMakeLists.txt next to this file (docs/install.md: "Installing the library").
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "compiler/api/compile.h"
#include "compiler/ir/parser.h"
#include "verify/verify.h"

namespace {

// KIR text of a 16x16x16 MFMA tile kernel named `name` for `mcpu`, with
// `pad` f16 elements of padding after every LDS row (against bank conflicts).
std::string MmaKernelText(const std::string& name, const std::string& mcpu, int pad) {
  const std::string shape = "f16[16, 16] ";
  std::ostringstream s;
  s << "kernel " << name << "\n"
    << "target " << mcpu << "\n"
    << "workgroup 64 1 1\n"
    << "grid 1 1 1\n"
    << "arg A : " << shape << "strides [16, 1] readonly\n"
    << "arg B : " << shape << "strides [16, 1] readonly\n"
    << "arg C : f32[16, 16] strides [16, 1] writeonly\n"
    << "lds As : " << shape << "pad " << pad << "\n"
    << "lds Bs : " << shape << "pad " << pad << "\n"
    // Each of the 64 lanes copies 4 halves of A and B into LDS ...
    << "  %ga = load A[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4\n"
    << "  %gb = load B[tid.x floordiv 4, tid.x mod 4 * 4] : f16x4\n"
    << "  store As[tid.x floordiv 4, tid.x mod 4 * 4], %ga\n"
    << "  store Bs[tid.x floordiv 4, tid.x mod 4 * 4], %gb\n"
    << "  barrier\n"
    // ... then reads its MFMA fragments back in the instruction's lane layout.
    << "  %a = load As[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4\n"
    << "  %b = load Bs[tid.x mod 16, tid.x floordiv 16 * 4] : f16x4\n"
    << "  %zero = zero f32x4\n"
    << "  %d = mfma f32_16x16x16_f16 %a, %b, %zero\n"
    << "  store C[tid.x floordiv 16 * 4, tid.x mod 16] along 0, %d\n"
    << "end\n";
  return s.str();
}

bool IsInstructionLine(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || i == 0) return false;  // empty, or a label/directive in column 0
  char c = line[i];
  return c != '.' && c != ';' && c != '/' && c != '#' && c != '-';
}

}  // namespace

int main(int argc, char** argv) {
  std::string mcpu, file;  // mcpu empty: the kernel's `target` line
  int max_lines = 40;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--mcpu=", 0) == 0) {
      mcpu = a.substr(7);
    } else if (a.rfind("--lines=", 0) == 0) {
      max_lines = std::atoi(a.c_str() + 8);
    } else if (!a.empty() && a[0] != '-' && file.empty()) {
      file = a;
    } else {
      std::cerr << "usage: consumer [--mcpu=gfx908|gfx90a|gfx942|gfx950] [--lines=N] [FILE.kir]\n";
      return 2;
    }
  }

  std::string text;
  if (file.empty()) {
    text = MmaKernelText("consumer_mma_16x16x16_f16", mcpu.empty() ? "gfx942" : mcpu, 4);
    file = "<consumer>";
  } else {
    std::ifstream in(file);
    if (!in) {
      std::cerr << "consumer: cannot read " << file << "\n";
      return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }

  absl::StatusOr<kir::Kernel> k = kir::ParseKernel(text, file);
  if (!k.ok()) {
    std::cerr << "consumer: " << k.status().message() << "\n";
    return 1;
  }
  kir::CompileOptions opts;
  opts.mcpu = mcpu;
  opts.filename = file;
  absl::StatusOr<kir::CompileResult> r = kir::Compile(*k, opts);
  if (!r.ok()) {
    std::cerr << "consumer: " << r.status().message() << "\n";
    return 1;
  }

  std::cout << "kernel " << k->name << " for " << r->target->name << ": "
            << r->assembly.size() << " bytes of assembly\n";
  std::istringstream lines(r->assembly);
  std::string line;
  int shown = 0, total = 0;
  while (std::getline(lines, line)) {
    if (!IsInstructionLine(line)) continue;
    ++total;
    if (shown < max_lines) {
      std::cout << line << "\n";
      ++shown;
    }
    if (line.find("s_endpgm") != std::string::npos) break;  // the metadata follows
  }
  if (total > shown) std::cout << "  ... " << (total - shown) << " more instructions\n";

  const kir::KernelResources& res = r->resources;
  std::cout << "resources: " << res.arch_vgprs << " VGPRs, " << res.agprs << " AGPRs, "
            << res.sgprs << " SGPRs, " << res.lds_bytes << " LDS bytes, occupancy "
            << res.occupancy << " waves/SIMD\n";
  std::cout << "instructions: " << r->stats.total << " total";
  for (const auto& [cls, n] : r->stats.by_class) std::cout << ", " << cls << " " << n;
  std::cout << "\n";

  // The verifier reads the kernel's thread-level ops; a tile-level gemm
  // kernel is promoted inside Compile, so leave it to `kirc verify`.
  if (k->body.size() == 1 && k->body[0].kind == kir::OpKind::kGemm) {
    std::cout << "verify: skipped (tile-level gemm kernel; use kirc verify)\n";
    return 0;
  }
  absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(*k, *r->target, r->lowered);
  if (!v.ok()) {
    std::cerr << "consumer: " << v.status().message() << "\n";
    return 1;
  }
  int proved = 0;
  for (const kir::AccessVerdict& a : v->accesses) {
    proved += a.status == kir::AccessVerdict::Status::kProved;
  }
  std::cout << "verify: " << v->accesses.size() << " memory instructions, " << proved
            << " proved" << (v->all_proved ? "" : " (NOT all proved)") << "\n";
  return v->all_proved ? 0 : 1;
}
