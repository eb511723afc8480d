// RUN: kirc opt %s --mcpu=gfx942 --run-pass=waitcnt | FileCheck %s --check-prefix=GFX942
// Expected waits are hand-derived from shared/docs/amdgcn-isa-notes.md
// section 3 (ported from compiler/passes/waitcnt_test.cc, Waitcnt.FailureClass7_CountsCappedAtFieldWidth).
// 20 ds_reads then a use of the first: 19 DS ops after it, but lgkmcnt has 4
// bits; 70 buffer_loads then a use of the first: 69 VMEM ops after it, but
// vmcnt has 6 bits (3, "lgkmcnt | [11:8], 4 bits | 15", "vmcnt | 6 bits |
// 63"). The field's maximum encodes "don't wait" (lgkmcnt(15) waits for
// nothing): a count beyond the field waits for max - 1, as LLVM does:
// lgkmcnt(14) and vmcnt(62). The C++ test loads into v200..v269, which do not
// exist in assembly (VGPRs end at v255): here v130..v199. It only looks for
// the two waits; the CHECK-NEXT lines also require nothing else be inserted.
k:
  ds_read_b32 v100, v91
  ds_read_b32 v101, v91
  ds_read_b32 v102, v91
  ds_read_b32 v103, v91
  ds_read_b32 v104, v91
  ds_read_b32 v105, v91
  ds_read_b32 v106, v91
  ds_read_b32 v107, v91
  ds_read_b32 v108, v91
  ds_read_b32 v109, v91
  ds_read_b32 v110, v91
  ds_read_b32 v111, v91
  ds_read_b32 v112, v91
  ds_read_b32 v113, v91
  ds_read_b32 v114, v91
  ds_read_b32 v115, v91
  ds_read_b32 v116, v91
  ds_read_b32 v117, v91
  ds_read_b32 v118, v91
  ds_read_b32 v119, v91
  v_add_u32 v80, v100, v81
  buffer_load_dword v130, v90, s[0:3], 0 offen
  buffer_load_dword v131, v90, s[0:3], 0 offen
  buffer_load_dword v132, v90, s[0:3], 0 offen
  buffer_load_dword v133, v90, s[0:3], 0 offen
  buffer_load_dword v134, v90, s[0:3], 0 offen
  buffer_load_dword v135, v90, s[0:3], 0 offen
  buffer_load_dword v136, v90, s[0:3], 0 offen
  buffer_load_dword v137, v90, s[0:3], 0 offen
  buffer_load_dword v138, v90, s[0:3], 0 offen
  buffer_load_dword v139, v90, s[0:3], 0 offen
  buffer_load_dword v140, v90, s[0:3], 0 offen
  buffer_load_dword v141, v90, s[0:3], 0 offen
  buffer_load_dword v142, v90, s[0:3], 0 offen
  buffer_load_dword v143, v90, s[0:3], 0 offen
  buffer_load_dword v144, v90, s[0:3], 0 offen
  buffer_load_dword v145, v90, s[0:3], 0 offen
  buffer_load_dword v146, v90, s[0:3], 0 offen
  buffer_load_dword v147, v90, s[0:3], 0 offen
  buffer_load_dword v148, v90, s[0:3], 0 offen
  buffer_load_dword v149, v90, s[0:3], 0 offen
  buffer_load_dword v150, v90, s[0:3], 0 offen
  buffer_load_dword v151, v90, s[0:3], 0 offen
  buffer_load_dword v152, v90, s[0:3], 0 offen
  buffer_load_dword v153, v90, s[0:3], 0 offen
  buffer_load_dword v154, v90, s[0:3], 0 offen
  buffer_load_dword v155, v90, s[0:3], 0 offen
  buffer_load_dword v156, v90, s[0:3], 0 offen
  buffer_load_dword v157, v90, s[0:3], 0 offen
  buffer_load_dword v158, v90, s[0:3], 0 offen
  buffer_load_dword v159, v90, s[0:3], 0 offen
  buffer_load_dword v160, v90, s[0:3], 0 offen
  buffer_load_dword v161, v90, s[0:3], 0 offen
  buffer_load_dword v162, v90, s[0:3], 0 offen
  buffer_load_dword v163, v90, s[0:3], 0 offen
  buffer_load_dword v164, v90, s[0:3], 0 offen
  buffer_load_dword v165, v90, s[0:3], 0 offen
  buffer_load_dword v166, v90, s[0:3], 0 offen
  buffer_load_dword v167, v90, s[0:3], 0 offen
  buffer_load_dword v168, v90, s[0:3], 0 offen
  buffer_load_dword v169, v90, s[0:3], 0 offen
  buffer_load_dword v170, v90, s[0:3], 0 offen
  buffer_load_dword v171, v90, s[0:3], 0 offen
  buffer_load_dword v172, v90, s[0:3], 0 offen
  buffer_load_dword v173, v90, s[0:3], 0 offen
  buffer_load_dword v174, v90, s[0:3], 0 offen
  buffer_load_dword v175, v90, s[0:3], 0 offen
  buffer_load_dword v176, v90, s[0:3], 0 offen
  buffer_load_dword v177, v90, s[0:3], 0 offen
  buffer_load_dword v178, v90, s[0:3], 0 offen
  buffer_load_dword v179, v90, s[0:3], 0 offen
  buffer_load_dword v180, v90, s[0:3], 0 offen
  buffer_load_dword v181, v90, s[0:3], 0 offen
  buffer_load_dword v182, v90, s[0:3], 0 offen
  buffer_load_dword v183, v90, s[0:3], 0 offen
  buffer_load_dword v184, v90, s[0:3], 0 offen
  buffer_load_dword v185, v90, s[0:3], 0 offen
  buffer_load_dword v186, v90, s[0:3], 0 offen
  buffer_load_dword v187, v90, s[0:3], 0 offen
  buffer_load_dword v188, v90, s[0:3], 0 offen
  buffer_load_dword v189, v90, s[0:3], 0 offen
  buffer_load_dword v190, v90, s[0:3], 0 offen
  buffer_load_dword v191, v90, s[0:3], 0 offen
  buffer_load_dword v192, v90, s[0:3], 0 offen
  buffer_load_dword v193, v90, s[0:3], 0 offen
  buffer_load_dword v194, v90, s[0:3], 0 offen
  buffer_load_dword v195, v90, s[0:3], 0 offen
  buffer_load_dword v196, v90, s[0:3], 0 offen
  buffer_load_dword v197, v90, s[0:3], 0 offen
  buffer_load_dword v198, v90, s[0:3], 0 offen
  buffer_load_dword v199, v90, s[0:3], 0 offen
  v_add_u32 v80, v130, v81
  s_endpgm

// GFX942-LABEL: k:
// GFX942-NEXT: ds_read_b32 v100, v91
// GFX942-NEXT: ds_read_b32 v101, v91
// GFX942-NEXT: ds_read_b32 v102, v91
// GFX942-NEXT: ds_read_b32 v103, v91
// GFX942-NEXT: ds_read_b32 v104, v91
// GFX942-NEXT: ds_read_b32 v105, v91
// GFX942-NEXT: ds_read_b32 v106, v91
// GFX942-NEXT: ds_read_b32 v107, v91
// GFX942-NEXT: ds_read_b32 v108, v91
// GFX942-NEXT: ds_read_b32 v109, v91
// GFX942-NEXT: ds_read_b32 v110, v91
// GFX942-NEXT: ds_read_b32 v111, v91
// GFX942-NEXT: ds_read_b32 v112, v91
// GFX942-NEXT: ds_read_b32 v113, v91
// GFX942-NEXT: ds_read_b32 v114, v91
// GFX942-NEXT: ds_read_b32 v115, v91
// GFX942-NEXT: ds_read_b32 v116, v91
// GFX942-NEXT: ds_read_b32 v117, v91
// GFX942-NEXT: ds_read_b32 v118, v91
// GFX942-NEXT: ds_read_b32 v119, v91
// GFX942-NEXT: s_waitcnt lgkmcnt(14)
// GFX942-NEXT: v_add_u32 v80, v100, v81
// GFX942-NEXT: buffer_load_dword v130, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v131, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v132, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v133, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v134, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v135, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v136, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v137, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v138, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v139, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v140, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v141, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v142, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v143, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v144, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v145, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v146, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v147, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v148, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v149, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v150, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v151, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v152, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v153, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v154, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v155, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v156, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v157, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v158, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v159, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v160, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v161, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v162, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v163, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v164, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v165, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v166, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v167, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v168, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v169, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v170, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v171, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v172, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v173, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v174, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v175, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v176, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v177, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v178, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v179, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v180, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v181, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v182, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v183, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v184, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v185, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v186, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v187, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v188, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v189, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v190, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v191, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v192, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v193, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v194, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v195, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v196, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v197, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v198, v90, s[0:3], 0 offen
// GFX942-NEXT: buffer_load_dword v199, v90, s[0:3], 0 offen
// GFX942-NEXT: s_waitcnt vmcnt(62)
// GFX942-NEXT: v_add_u32 v80, v130, v81
// GFX942-NEXT: s_endpgm
