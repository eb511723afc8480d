"""LLVM 22's static component libraries that kirc links (Debian's llvm-22-dev).

kirc uses LLVM's MC layer for AMDGPU (assembler, disassembler, instruction
printer) and its ELF and MessagePack readers, linked statically: a process
then maps only the parts it uses instead of loading the 150 MB libLLVM-22.so
(tens of milliseconds of dynamic relocation at every start). The list is
`llvm-config-22 --link-static --libs amdgpuasmparser amdgpudisassembler
amdgpudesc amdgpuinfo amdgpuutils mc mcparser mcdisassembler object
binaryformat support targetparser`; the linker takes only the members these
reach (most of Core, Analysis and DebugInfo stay out).
"""

LLVM_STATIC_LIBS = [
    "libLLVMAMDGPUDisassembler.a",
    "libLLVMMCDisassembler.a",
    "libLLVMAMDGPUAsmParser.a",
    "libLLVMAMDGPUDesc.a",
    "libLLVMAMDGPUUtils.a",
    "libLLVMCodeGenTypes.a",
    "libLLVMAnalysis.a",
    "libLLVMProfileData.a",
    "libLLVMSymbolize.a",
    "libLLVMDebugInfoBTF.a",
    "libLLVMDebugInfoPDB.a",
    "libLLVMDebugInfoMSF.a",
    "libLLVMDebugInfoCodeView.a",
    "libLLVMDebugInfoGSYM.a",
    "libLLVMDebugInfoDWARF.a",
    "libLLVMObject.a",
    "libLLVMTextAPI.a",
    "libLLVMMCParser.a",
    "libLLVMIRReader.a",
    "libLLVMAsmParser.a",
    "libLLVMBitReader.a",
    "libLLVMFrontendHLSL.a",
    "libLLVMCore.a",
    "libLLVMRemarks.a",
    "libLLVMBitstreamReader.a",
    "libLLVMAMDGPUInfo.a",
    "libLLVMMC.a",
    "libLLVMDebugInfoDWARFLowLevel.a",
    "libLLVMBinaryFormat.a",
    "libLLVMTargetParser.a",
    "libLLVMSupport.a",
    "libLLVMDemangle.a",
]

LLVM_LIB_DIR = "/usr/lib/llvm-22/lib"
