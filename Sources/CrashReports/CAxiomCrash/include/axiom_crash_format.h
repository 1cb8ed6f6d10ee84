// The raw crash report: what the signal handler writes with write(2), and what
// `RawCrashReport` in AxiomCrash reads back. Plain data, no pointers, so a report
// written by one build can be read by another.
//
// File layout (all integers little-endian, no padding between parts):
//
//   +--------------------------------------------+  offset 0
//   | header            (header_length bytes)    |  struct axiom_crash_header
//   +--------------------------------------------+
//   | registers         (register_count * 8)     |  u64 each, order per architecture below
//   +--------------------------------------------+
//   | frames            (frame_count * 8)        |  u64 pc each; frames[0] is the faulting pc,
//   |                                            |  the others are return addresses
//   +--------------------------------------------+
//   | modules           (module_section_length)  |  module_count records, see below
//   +--------------------------------------------+
//   | records           (record_section_length)  |  version 2: record_count tagged records
//   +--------------------------------------------+
//   | trailer           (8 bytes)                |  AXIOM_CRASH_TRAILER_MAGIC
//   +--------------------------------------------+  offset total_length
//
// A module record (variable length, no padding):
//   u64 bias            dlpi_addr: add to an ELF virtual address to get a run-time address
//   u64 base            lowest mapped address of the module (bias + lowest PT_LOAD vaddr)
//   u64 end_of_text     end of the executable PT_LOAD segment (bias + vaddr + memsz)
//   u16 build_id_length bytes of the GNU build-id (0 when the module has none)
//   u16 path_length     bytes of the path (no terminating NUL)
//   u8  build_id[build_id_length]
//   u8  path[path_length]
//
// A tagged record (version 2; 8-byte header, then the payload, no padding):
//   u16 type            AXIOM_CRASH_RECORD_*; a reader skips types it does not know
//   u16 reserved        zero
//   u32 length          bytes of the payload
//   u8  payload[length]
//
// Record payloads:
//   MESSAGE         the fatal message the runtime left (Swift's "Fatal error: …", glibc's
//                   assertion text), UTF-8, at most AXIOM_CRASH_MAX_MESSAGE bytes
//   THREAD          another thread of the process at the time of the crash:
//                     i32 tid, u32 flags (AXIOM_CRASH_THREAD_*), u32 frame_count,
//                     u32 omitted_frames, char name[16] (NUL-padded),
//                     u64 frames[frame_count] (pc first, then return addresses)
//   THREADS_OMITTED u32 threads beyond AXIOM_CRASH_MAX_THREADS, u32 zero
//   RECENT_ERROR    struct axiom_recent_error (axiom_flight_recorder.h), 168 bytes, oldest first
//   ASYNC_CHAIN     u32 frame_index (of the crashed thread's frames), u32 count, u64 resume
//                   points plus one [count]: the async callers of that frame's function, if it is
//                   async (the symbolicator decides; several candidate frames may have one)
//   PLUGINS         u32 count, u32 zero, then per plugin: u16 id_length, u16 version_length,
//                   u16 build_id_length, u16 path_length, and those bytes
//
// Completeness: the handler writes `<name>.tmp` and renames it to `<name>` only once
// everything, trailer included, is written. A reader must still check total_length
// against the file size and the trailer, and every count against the bytes present.
//
// Versioning: a reader accepts the versions it knows. A newer writer that only adds
// header fields bumps header_length, not version; readers skip header bytes they do
// not know. Any other change bumps version.
#ifndef AXIOM_CRASH_FORMAT_H
#define AXIOM_CRASH_FORMAT_H

#include <stdint.h>

/// First 8 bytes of every raw report.
#define AXIOM_CRASH_MAGIC "AXCRASH\0"
#define AXIOM_CRASH_MAGIC_LENGTH 8
/// Last 8 bytes of every complete raw report.
#define AXIOM_CRASH_TRAILER_MAGIC "AXEND\0\0\0"
#define AXIOM_CRASH_TRAILER_LENGTH 8

/// Version 2 adds the record section (its count and length in what version 1 reserved).
#define AXIOM_CRASH_FORMAT_VERSION 2

/// Final file names end with this; files being written end with ".tmp" as well.
#define AXIOM_CRASH_FILE_SUFFIX ".axcrash"

/// Upper bounds the writer respects; a reader rejects counts above them.
#define AXIOM_CRASH_MAX_FRAMES 256
#define AXIOM_CRASH_MAX_REGISTERS 64
#define AXIOM_CRASH_MAX_MODULES 1024
#define AXIOM_CRASH_THREAD_NAME_LENGTH 16
#define AXIOM_CRASH_MAX_THREADS 128
#define AXIOM_CRASH_MAX_THREAD_FRAMES 128
#define AXIOM_CRASH_MAX_MESSAGE 4096
#define AXIOM_CRASH_MAX_RECORDS 1024

/// Record types.
#define AXIOM_CRASH_RECORD_MESSAGE 1
#define AXIOM_CRASH_RECORD_THREAD 2
#define AXIOM_CRASH_RECORD_THREADS_OMITTED 3
#define AXIOM_CRASH_RECORD_RECENT_ERROR 4
#define AXIOM_CRASH_RECORD_PLUGINS 5
#define AXIOM_CRASH_RECORD_ASYNC_CHAIN 6
/// The trace the crashed task announced (axiom_flight_recorder_enter_trace): 16 bytes of trace id, then 8 of
/// span id. At most one per report.
#define AXIOM_CRASH_RECORD_ACTIVE_TRACE 7
#define AXIOM_CRASH_MAX_ASYNC_CHAINS 8
#define AXIOM_CRASH_MAX_ASYNC_FRAMES 64
#define AXIOM_CRASH_RECORD_HEADER_LENGTH 8
#define AXIOM_CRASH_THREAD_RECORD_FIXED_LENGTH 32

/// Thread record flags.
/// The thread's stack was deeper than AXIOM_CRASH_MAX_THREAD_FRAMES.
#define AXIOM_CRASH_THREAD_FRAMES_TRUNCATED 0x1u
/// The thread did not answer in time (it blocks the signal, or is stuck): no frames.
#define AXIOM_CRASH_THREAD_NO_ANSWER 0x2u
/// The unwinder could not start on that thread; frames hold only its pc.
#define AXIOM_CRASH_THREAD_UNWIND_FAILED 0x4u

/// Architecture codes (ELF e_machine values).
#define AXIOM_CRASH_ARCH_X86_64 62
#define AXIOM_CRASH_ARCH_AARCH64 183

/// Header flags.
/// The unwinder stopped at AXIOM_CRASH_MAX_FRAMES; the stack was deeper.
#define AXIOM_CRASH_FLAG_FRAMES_TRUNCATED 0x1u
/// The unwinder failed to start; frames hold only the faulting pc.
#define AXIOM_CRASH_FLAG_UNWIND_FAILED 0x2u
/// The module table was full; modules loaded later are missing.
#define AXIOM_CRASH_FLAG_MODULES_TRUNCATED 0x4u
/// The modules are the list taken at install (or the last refresh), not the list read at
/// crash time (which failed): modules loaded since are missing.
#define AXIOM_CRASH_FLAG_MODULES_AT_INSTALL 0x8u

/// x86_64 register order in the registers section (AXIOM_CRASH_ARCH_X86_64):
/// rip rsp rbp rax rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 eflags
#define AXIOM_CRASH_X86_64_REGISTER_COUNT 18

/// aarch64 register order in the registers section (AXIOM_CRASH_ARCH_AARCH64):
/// x0 … x28, fp (x29), lr (x30), sp, pc
#define AXIOM_CRASH_AARCH64_REGISTER_COUNT 33

/// The fixed header, versions 1 and 2. 144 bytes; offsets are stated so the reader does not
/// depend on a compiler's layout. Reports written before `axiom_version` was added have a
/// header of 112 bytes (AXIOM_CRASH_HEADER_LENGTH_V1): a reader takes the version from a
/// header at least AXIOM_CRASH_HEADER_LENGTH long, and has none otherwise.
struct axiom_crash_header {
    uint8_t magic[8];               //   0: AXIOM_CRASH_MAGIC
    uint16_t version;               //   8: AXIOM_CRASH_FORMAT_VERSION
    uint16_t header_length;         //  10: bytes from offset 0 to the registers
    uint16_t architecture;          //  12: AXIOM_CRASH_ARCH_*
    uint16_t register_count;        //  14
    uint32_t frame_count;           //  16
    uint32_t module_count;          //  20
    uint32_t module_section_length; //  24: bytes of the module records
    uint32_t flags;                 //  28: AXIOM_CRASH_FLAG_*
    uint64_t total_length;          //  32: bytes of the whole file, trailer included
    int32_t signal;                 //  40: signal number
    int32_t si_code;                //  44: siginfo si_code
    uint64_t fault_address;         //  48: siginfo si_addr
    int32_t pid;                    //  56
    int32_t tid;                    //  60
    int64_t timestamp_seconds;      //  64: CLOCK_REALTIME
    int64_t timestamp_nanoseconds;  //  72
    char thread_name[16];           //  80: NUL-padded
    uint32_t record_count;          //  96: version 2 (zero in version 1)
    uint32_t record_section_length; // 100: version 2 (zero in version 1)
    uint64_t capture_nanoseconds;   // 104: version 2: time the handler took to capture (monotonic)
    char axiom_version[32];         // 112: the Axiom version that installed the reporter (its
                                    //      AxiomVersion.current), UTF-8, NUL-padded; all zero: unknown
};                                  // 144

/// The shortest header a reader accepts: versions 1 and 2 before `axiom_version`.
#define AXIOM_CRASH_HEADER_LENGTH_V1 112
/// The header this writer writes.
#define AXIOM_CRASH_HEADER_LENGTH 144
#define AXIOM_CRASH_AXIOM_VERSION_LENGTH 32

_Static_assert(sizeof(struct axiom_crash_header) == AXIOM_CRASH_HEADER_LENGTH, "header layout");

/// Fixed part of a module record, before the build-id and path bytes.
#define AXIOM_CRASH_MODULE_RECORD_FIXED_LENGTH 28

#endif
