// See include/CAxiomDwarf.h. dl_iterate_phdr needs _GNU_SOURCE, which is why this lives in C.
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "CAxiomDwarf.h"

struct find_request {
    uintptr_t address;
    char *path_buffer;
    size_t path_buffer_size;
    uint64_t load_bias;
    int found;
};

static int find_callback(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct find_request *request = data;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *phdr = &info->dlpi_phdr[i];
        if (phdr->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + phdr->p_vaddr;
        if (request->address >= start && request->address - start < phdr->p_memsz) {
            const char *name = info->dlpi_name ? info->dlpi_name : "";
            if (request->path_buffer_size > 0) {
                strncpy(request->path_buffer, name, request->path_buffer_size - 1);
                request->path_buffer[request->path_buffer_size - 1] = '\0';
            }
            request->load_bias = (uint64_t)info->dlpi_addr;
            request->found = 1;
            return 1;  // stop iterating
        }
    }
    return 0;
}

/// The GNU build-id note of a loaded module, read from its PT_NOTE segments in memory (what is loaded, even if
/// the file on disk was replaced since).
struct build_id_request {
    uintptr_t address;
    unsigned char *buffer;
    size_t capacity;
    int length;
};

static int contains_address(const struct dl_phdr_info *info, uintptr_t address) {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *phdr = &info->dlpi_phdr[i];
        if (phdr->p_type != PT_LOAD) continue;
        uintptr_t start = (uintptr_t)info->dlpi_addr + phdr->p_vaddr;
        if (address >= start && address - start < phdr->p_memsz) return 1;
    }
    return 0;
}

static int build_id_callback(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct build_id_request *request = data;
    if (!contains_address(info, request->address)) return 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *phdr = &info->dlpi_phdr[i];
        if (phdr->p_type != PT_NOTE) continue;
        const unsigned char *note = (const unsigned char *)(info->dlpi_addr + phdr->p_vaddr);
        size_t left = phdr->p_memsz;
        while (left >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *header = (const ElfW(Nhdr) *)note;
            size_t name_size = ((size_t)header->n_namesz + 3u) & ~(size_t)3u;
            size_t desc_size = ((size_t)header->n_descsz + 3u) & ~(size_t)3u;
            if (name_size > left - sizeof(ElfW(Nhdr)) || desc_size > left - sizeof(ElfW(Nhdr)) - name_size) break;
            const unsigned char *name = note + sizeof(ElfW(Nhdr));
            if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                size_t length = header->n_descsz < request->capacity ? header->n_descsz : request->capacity;
                memcpy(request->buffer, name + name_size, length);
                request->length = (int)length;
                return 1;
            }
            note += sizeof(ElfW(Nhdr)) + name_size + desc_size;
            left -= sizeof(ElfW(Nhdr)) + name_size + desc_size;
        }
    }
    return 1;  // the module was found; it has no build-id
}

int axiom_dwarf_loaded_module_build_id(uintptr_t address, unsigned char *buffer, size_t capacity) {
    struct build_id_request request = {address, buffer, capacity, 0};
    dl_iterate_phdr(build_id_callback, &request);
    return request.length;
}

int axiom_dwarf_find_loaded_module(uintptr_t address, char *pathBuffer, size_t pathBufferSize,
                                   uint64_t *loadBias) {
    struct find_request request = {address, pathBuffer, pathBufferSize, 0, 0};
    dl_iterate_phdr(find_callback, &request);
    if (request.found && loadBias) *loadBias = request.load_bias;
    return request.found;
}

int axiom_dwarf_usable_processors(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int count = CPU_COUNT(&set);
    return count > 0 ? count : 1;
}

// Slicing by eight: eight tables of 256 entries, made on first use, eight bytes a step. A debug file can be hundreds
// of megabytes, and it is checked whole before it is read.
static uint32_t crc_tables[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void make_crc_tables(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t crc = byte;
        for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        crc_tables[0][byte] = crc;
    }
    for (uint32_t byte = 0; byte < 256; byte++) {
        for (int slice = 1; slice < 8; slice++) {
            uint32_t previous = crc_tables[slice - 1][byte];
            crc_tables[slice][byte] = (previous >> 8) ^ crc_tables[0][previous & 0xFF];
        }
    }
}

unsigned int axiom_debuglink_crc32(const unsigned char *bytes, size_t count, unsigned int crc) {
    pthread_once(&crc_once, make_crc_tables);
    uint32_t value = ~(uint32_t)crc;
    while (count >= 8) {
        uint32_t low = value ^ ((uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
                                (uint32_t)bytes[3] << 24);
        uint32_t high = (uint32_t)bytes[4] | (uint32_t)bytes[5] << 8 | (uint32_t)bytes[6] << 16 | (uint32_t)bytes[7] << 24;
        value = crc_tables[7][low & 0xFF] ^ crc_tables[6][(low >> 8) & 0xFF] ^ crc_tables[5][(low >> 16) & 0xFF] ^
                crc_tables[4][low >> 24] ^ crc_tables[3][high & 0xFF] ^ crc_tables[2][(high >> 8) & 0xFF] ^
                crc_tables[1][(high >> 16) & 0xFF] ^ crc_tables[0][high >> 24];
        bytes += 8;
        count -= 8;
    }
    while (count--) value = crc_tables[0][(value ^ *bytes++) & 0xFF] ^ (value >> 8);
    return ~value;
}
