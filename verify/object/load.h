// The verifier's front end for code kirc did not just compile: a code object
// (`.hsaco`, any compiler's) or an assembly file (kirc's `.s`, edited or not,
// or `clang -S` output), read with the emulator's reader (hw/emu: the code
// object's bytes through llvm-objdump, the same instructions the emulator
// runs), turned into the LoweredKernel the verifier proves
// (verify/verify.h) with VerifyOptions::match_accesses: no access map, the
// ABI from the kernel descriptor and metadata.
//
//   absl::StatusOr<kir::LoweredKernel> code = kir::LoadCodeForVerify(twin, t, input);
//   kir::VerifyOptions o; o.match_accesses = true;
//   absl::StatusOr<kir::VerifyResult> v = kir::VerifyAddresses(twin, t, *code, o);
#ifndef KIRC_VERIFY_OBJECT_LOAD_H_
#define KIRC_VERIFY_OBJECT_LOAD_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/kernel.h"
#include "compiler/isa/lowered_kernel.h"
#include "compiler/target/target.h"

namespace kir {

struct CodeInput {
  // Exactly one of the two: an ELF code object's bytes, or assembly text
  // (with `.amdhsa_kernel` directives and an `.amdgpu_metadata` block).
  std::string code_object;
  std::string assembly;
  std::string llvm_bin;  // directory of llvm-objdump/llvm-readelf (code objects only)
  // The target as --mcpu gives it ("gfx942", a target ID). A code object's
  // metadata target must agree; one without `amdhsa.target` takes this one.
  std::string mcpu;
  // LDS allocations placed by the user (`--lds-base NAME=BYTES`): byte
  // offsets from the start of the group segment. The others are solved.
  std::map<std::string, int64_t> lds_base;
  // For messages: the twin's file (validation errors name its lines) and the
  // code's (errors reading the code name it).
  std::string twin_filename, code_filename;
  // With `assembly`: assemble and link it with LLVM (compiler/object
  // BuildCodeObject: LLVM 22's MC in process for its own `llvm_bin`, else
  // that directory's llvm-mc and ld.lld) and read the code object as for
  // `code_object`, so the instructions verified are the assembled bytes and
  // any text llvm-mc takes is accepted (`clang -S` output: labels with
  // comments, sections, `.amdhsa_kernel`, helper functions such as OpenCL's
  // `__clang_ocl_kern_imp_*`; the kernel is the metadata's `.name` ==
  // twin.name, its code the `.symbol` it names). Without it, the text is read
  // as kirc prints assembly (hw/emu's reader; errors name its lines).
  bool assemble = false;
  // Values of the code's by-value arguments the twin lacks (sizes, strides):
  // metadata .name, or "#N" for explicit argument N by position
  // (hw/kernarg.h PositionalArgKey; the twin's arguments then bind by
  // position to the others when the metadata does not name them all) ->
  // little-endian bytes (`kirc verify --scalar`, parsed as
  // `kirc run` does). Each becomes known kernarg bytes
  // (KernelAbi::kernarg_known), whole dwords; an argument not given stays a
  // free input.
  std::map<std::string, std::vector<uint8_t>> by_value;
};

// The code's kernel (in a code object, the one whose metadata .name is
// `twin.name`: the error names the kernels it has; in assembly, its only
// kernel) as a LoweredKernel for VerifyAddresses with match_accesses:
// instructions on physical registers with MInst::id = their index in the
// kernel (the report's [N]), branch targets as labels; the ABI from the
// descriptor (user SGPRs, the kernarg pointer's SGPRs, workgroup-id SGPRs,
// work-item id VGPRs) and the metadata (the kernarg offset of each of the
// twin's arguments, by name when every name is present, else by position
// among the explicit arguments no "#N" value fixes; the group segment size; the hidden arguments
// the dispatch fixes as KernelAbi::kernarg_known; SDWA selects and integer
// clamp in LoweredKernel::modifiers, other modifiers MInst lacks in
// LoweredKernel::unmodelled); `kernel` the twin
// promoted if it is a tile-level gemm (kirc's default configuration: give the
// thread-level `kirc compile --emit=kir` form for another). Errors
// (InvalidArgument, naming the argument or field): a `by_value` name that is
// no by-value argument of the code's kernel (or one the twin has; "#N" past
// the explicit arguments or not by_value: the message lists them with their
// positions), one argument given by name and by position, a value
// of the wrong size, or one that fills only part of a kernarg dword whose
// other bytes nothing fixes; the assembler's diagnostics (`assemble`, with
// code_filename for "<stdin>"); the twin's arguments do
// not match the metadata's in number, kind (global_buffer for buffers,
// by_value of 4 bytes for scalars) or size; the workgroup size differs from
// .reqd_workgroup_size; no kernarg segment pointer while arguments exist; an
// LDS base for an allocation the twin lacks; and the reader's errors
// (unknown instructions are named with their address).
absl::StatusOr<LoweredKernel> LoadCodeForVerify(const Kernel& twin, const TargetInfo& t, const CodeInput& input);

}  // namespace kir

#endif  // KIRC_VERIFY_OBJECT_LOAD_H_
