// See include/CAxiomDwarf.h. dl_iterate_phdr needs _GNU_SOURCE, which is why this lives in C.
#define _GNU_SOURCE
#include <link.h>
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

int axiom_dwarf_find_loaded_module(uintptr_t address, char *pathBuffer, size_t pathBufferSize,
                                   uint64_t *loadBias) {
    struct find_request request = {address, pathBuffer, pathBufferSize, 0, 0};
    dl_iterate_phdr(find_callback, &request);
    if (request.found && loadBias) *loadBias = request.load_bias;
    return request.found;
}
