// See "libdwarf, opened on first use" in include/CAxiomDwarf.h.
//
// Each wrapper has the signature of the libdwarf function it is named after (`axiom_libdwarf_X` for `dwarf_X`), and
// calls it through a table of pointers filled once by dlsym. libdwarf is opened with RTLD_LOCAL, so its symbols
// are not added to the process's global scope; a program that links libdwarf itself shares the one already loaded.
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "CAxiomDwarf.h"

static struct {
    __typeof__(&dwarf_attr) dwarf_attr;
    __typeof__(&dwarf_child) dwarf_child;
    __typeof__(&dwarf_dealloc_attribute) dwarf_dealloc_attribute;
    __typeof__(&dwarf_dealloc_die) dwarf_dealloc_die;
    __typeof__(&dwarf_dealloc_error) dwarf_dealloc_error;
    __typeof__(&dwarf_dealloc_rnglists_head) dwarf_dealloc_rnglists_head;
    __typeof__(&dwarf_dieoffset) dwarf_dieoffset;
    __typeof__(&dwarf_errmsg) dwarf_errmsg;
    __typeof__(&dwarf_finish) dwarf_finish;
    __typeof__(&dwarf_formsdata) dwarf_formsdata;
    __typeof__(&dwarf_formstring) dwarf_formstring;
    __typeof__(&dwarf_formudata) dwarf_formudata;
    __typeof__(&dwarf_get_ranges_b) dwarf_get_ranges_b;
    __typeof__(&dwarf_get_rnglists_entry_fields_a) dwarf_get_rnglists_entry_fields_a;
    __typeof__(&dwarf_global_formref) dwarf_global_formref;
    __typeof__(&dwarf_hasattr) dwarf_hasattr;
    __typeof__(&dwarf_highpc_b) dwarf_highpc_b;
    __typeof__(&dwarf_init_path) dwarf_init_path;
    __typeof__(&dwarf_line_srcfileno) dwarf_line_srcfileno;
    __typeof__(&dwarf_lineaddr) dwarf_lineaddr;
    __typeof__(&dwarf_lineendsequence) dwarf_lineendsequence;
    __typeof__(&dwarf_lineno) dwarf_lineno;
    __typeof__(&dwarf_lineoff_b) dwarf_lineoff_b;
    __typeof__(&dwarf_lowpc) dwarf_lowpc;
    __typeof__(&dwarf_next_cu_header_d) dwarf_next_cu_header_d;
    __typeof__(&dwarf_offdie_b) dwarf_offdie_b;
    __typeof__(&dwarf_prologue_end_etc) dwarf_prologue_end_etc;
    __typeof__(&dwarf_ranges_dealloc) dwarf_ranges_dealloc;
    __typeof__(&dwarf_rnglists_get_rle_head) dwarf_rnglists_get_rle_head;
    __typeof__(&dwarf_set_de_alloc_flag) dwarf_set_de_alloc_flag;
    __typeof__(&dwarf_siblingof_b) dwarf_siblingof_b;
    __typeof__(&dwarf_srcfiles) dwarf_srcfiles;
    __typeof__(&dwarf_srclang) dwarf_srclang;
    __typeof__(&dwarf_srclines_b) dwarf_srclines_b;
    __typeof__(&dwarf_srclines_comp_dir) dwarf_srclines_comp_dir;
    __typeof__(&dwarf_srclines_dealloc_b) dwarf_srclines_dealloc_b;
    __typeof__(&dwarf_srclines_files_data_b) dwarf_srclines_files_data_b;
    __typeof__(&dwarf_srclines_files_indexes) dwarf_srclines_files_indexes;
    __typeof__(&dwarf_srclines_from_linecontext) dwarf_srclines_from_linecontext;
    __typeof__(&dwarf_srclines_include_dir_count) dwarf_srclines_include_dir_count;
    __typeof__(&dwarf_srclines_include_dir_data) dwarf_srclines_include_dir_data;
    __typeof__(&dwarf_srclines_version) dwarf_srclines_version;
    __typeof__(&dwarf_tag) dwarf_tag;
    __typeof__(&dwarf_whatform) dwarf_whatform;
} table;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int available;

static void load(void) {
    void *handle = dlopen("libdwarf.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    int complete = 1;
#define RESOLVE(name)                                                                                                  \
    do {                                                                                                               \
        table.name = (__typeof__(table.name))dlsym(handle, #name);                                                     \
        if (!table.name) complete = 0;                                                                                 \
    } while (0)
    RESOLVE(dwarf_attr);
    RESOLVE(dwarf_child);
    RESOLVE(dwarf_dealloc_attribute);
    RESOLVE(dwarf_dealloc_die);
    RESOLVE(dwarf_dealloc_error);
    RESOLVE(dwarf_dealloc_rnglists_head);
    RESOLVE(dwarf_dieoffset);
    RESOLVE(dwarf_errmsg);
    RESOLVE(dwarf_finish);
    RESOLVE(dwarf_formsdata);
    RESOLVE(dwarf_formstring);
    RESOLVE(dwarf_formudata);
    RESOLVE(dwarf_get_ranges_b);
    RESOLVE(dwarf_get_rnglists_entry_fields_a);
    RESOLVE(dwarf_global_formref);
    RESOLVE(dwarf_hasattr);
    RESOLVE(dwarf_highpc_b);
    RESOLVE(dwarf_init_path);
    RESOLVE(dwarf_line_srcfileno);
    RESOLVE(dwarf_lineaddr);
    RESOLVE(dwarf_lineendsequence);
    RESOLVE(dwarf_lineno);
    RESOLVE(dwarf_lineoff_b);
    RESOLVE(dwarf_lowpc);
    RESOLVE(dwarf_next_cu_header_d);
    RESOLVE(dwarf_offdie_b);
    RESOLVE(dwarf_prologue_end_etc);
    RESOLVE(dwarf_ranges_dealloc);
    RESOLVE(dwarf_rnglists_get_rle_head);
    RESOLVE(dwarf_set_de_alloc_flag);
    RESOLVE(dwarf_siblingof_b);
    RESOLVE(dwarf_srcfiles);
    RESOLVE(dwarf_srclang);
    RESOLVE(dwarf_srclines_b);
    RESOLVE(dwarf_srclines_comp_dir);
    RESOLVE(dwarf_srclines_dealloc_b);
    RESOLVE(dwarf_srclines_files_data_b);
    RESOLVE(dwarf_srclines_files_indexes);
    RESOLVE(dwarf_srclines_from_linecontext);
    RESOLVE(dwarf_srclines_include_dir_count);
    RESOLVE(dwarf_srclines_include_dir_data);
    RESOLVE(dwarf_srclines_version);
    RESOLVE(dwarf_tag);
    RESOLVE(dwarf_whatform);
#undef RESOLVE
    // A libdwarf without one of them is not one this reader was written against: none is used.
    if (!complete) {
        dlclose(handle);
        return;
    }
    available = 1;
}

static int loaded(void) {
    pthread_once(&once, load);
    return available;
}

int axiom_libdwarf_available(void) { return loaded(); }

int axiom_libdwarf_attr(Dwarf_Die p0, Dwarf_Half p1, Dwarf_Attribute * p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_attr(p0, p1, p2, p3);
}

int axiom_libdwarf_child(Dwarf_Die p0, Dwarf_Die * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_child(p0, p1, p2);
}

void axiom_libdwarf_dealloc_attribute(Dwarf_Attribute p0) {
    if (!loaded()) return;
    table.dwarf_dealloc_attribute(p0);
}

void axiom_libdwarf_dealloc_die(Dwarf_Die p0) {
    if (!loaded()) return;
    table.dwarf_dealloc_die(p0);
}

void axiom_libdwarf_dealloc_error(Dwarf_Debug p0, Dwarf_Error p1) {
    if (!loaded()) return;
    table.dwarf_dealloc_error(p0, p1);
}

int axiom_libdwarf_dealloc_rnglists_head(Dwarf_Rnglists_Head p0) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_dealloc_rnglists_head(p0);
}

int axiom_libdwarf_dieoffset(Dwarf_Die p0, Dwarf_Off * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_dieoffset(p0, p1, p2);
}

char* axiom_libdwarf_errmsg(Dwarf_Error p0) {
    if (!loaded()) return NULL;
    return table.dwarf_errmsg(p0);
}

int axiom_libdwarf_finish(Dwarf_Debug p0, Dwarf_Error * p1) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_finish(p0, p1);
}

int axiom_libdwarf_formsdata(Dwarf_Attribute p0, Dwarf_Signed * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_formsdata(p0, p1, p2);
}

int axiom_libdwarf_formstring(Dwarf_Attribute p0, char ** p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_formstring(p0, p1, p2);
}

int axiom_libdwarf_formudata(Dwarf_Attribute p0, Dwarf_Unsigned * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_formudata(p0, p1, p2);
}

int axiom_libdwarf_get_ranges_b(Dwarf_Debug p0, Dwarf_Off p1, Dwarf_Die p2, Dwarf_Off * p3, Dwarf_Ranges ** p4, Dwarf_Signed * p5, Dwarf_Unsigned * p6, Dwarf_Error * p7) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_get_ranges_b(p0, p1, p2, p3, p4, p5, p6, p7);
}

int axiom_libdwarf_get_rnglists_entry_fields_a(Dwarf_Rnglists_Head p0, Dwarf_Unsigned p1, unsigned * p2, unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Bool * p6, Dwarf_Unsigned * p7, Dwarf_Unsigned * p8, Dwarf_Error * p9) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_get_rnglists_entry_fields_a(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9);
}

int axiom_libdwarf_global_formref(Dwarf_Attribute p0, Dwarf_Off * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_global_formref(p0, p1, p2);
}

int axiom_libdwarf_hasattr(Dwarf_Die p0, Dwarf_Half p1, Dwarf_Bool * p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_hasattr(p0, p1, p2, p3);
}

int axiom_libdwarf_highpc_b(Dwarf_Die p0, Dwarf_Addr * p1, Dwarf_Half * p2, enum Dwarf_Form_Class * p3, Dwarf_Error * p4) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_highpc_b(p0, p1, p2, p3, p4);
}

int axiom_libdwarf_init_path(const char * p0, char * p1, unsigned int p2, Dwarf_Unsigned p3, unsigned int p4, Dwarf_Handler p5, Dwarf_Ptr p6, Dwarf_Debug * p7, const char * p8, Dwarf_Unsigned p9, Dwarf_Unsigned * p10, Dwarf_Error * p11) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_init_path(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11);
}

int axiom_libdwarf_line_srcfileno(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_line_srcfileno(p0, p1, p2);
}

int axiom_libdwarf_lineaddr(Dwarf_Line p0, Dwarf_Addr * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_lineaddr(p0, p1, p2);
}

int axiom_libdwarf_lineendsequence(Dwarf_Line p0, Dwarf_Bool * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_lineendsequence(p0, p1, p2);
}

int axiom_libdwarf_lineno(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_lineno(p0, p1, p2);
}

int axiom_libdwarf_lineoff_b(Dwarf_Line p0, Dwarf_Unsigned * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_lineoff_b(p0, p1, p2);
}

int axiom_libdwarf_lowpc(Dwarf_Die p0, Dwarf_Addr * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_lowpc(p0, p1, p2);
}

int axiom_libdwarf_next_cu_header_d(Dwarf_Debug p0, Dwarf_Bool p1, Dwarf_Unsigned * p2, Dwarf_Half * p3, Dwarf_Off * p4, Dwarf_Half * p5, Dwarf_Half * p6, Dwarf_Half * p7, Dwarf_Sig8 * p8, Dwarf_Unsigned * p9, Dwarf_Unsigned * p10, Dwarf_Half * p11, Dwarf_Error * p12) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_next_cu_header_d(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12);
}

int axiom_libdwarf_offdie_b(Dwarf_Debug p0, Dwarf_Off p1, Dwarf_Bool p2, Dwarf_Die * p3, Dwarf_Error * p4) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_offdie_b(p0, p1, p2, p3, p4);
}

int axiom_libdwarf_prologue_end_etc(Dwarf_Line p0, Dwarf_Bool * p1, Dwarf_Bool * p2, Dwarf_Unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Error * p5) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_prologue_end_etc(p0, p1, p2, p3, p4, p5);
}

void axiom_libdwarf_ranges_dealloc(Dwarf_Debug p0, Dwarf_Ranges * p1, Dwarf_Signed p2) {
    if (!loaded()) return;
    table.dwarf_ranges_dealloc(p0, p1, p2);
}

int axiom_libdwarf_rnglists_get_rle_head(Dwarf_Attribute p0, Dwarf_Half p1, Dwarf_Unsigned p2, Dwarf_Rnglists_Head * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Error * p6) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_rnglists_get_rle_head(p0, p1, p2, p3, p4, p5, p6);
}

int axiom_libdwarf_set_de_alloc_flag(int p0) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_set_de_alloc_flag(p0);
}

int axiom_libdwarf_siblingof_b(Dwarf_Debug p0, Dwarf_Die p1, Dwarf_Bool p2, Dwarf_Die * p3, Dwarf_Error * p4) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_siblingof_b(p0, p1, p2, p3, p4);
}

int axiom_libdwarf_srcfiles(Dwarf_Die p0, char *** p1, Dwarf_Signed * p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srcfiles(p0, p1, p2, p3);
}

int axiom_libdwarf_srclang(Dwarf_Die p0, Dwarf_Unsigned * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclang(p0, p1, p2);
}

int axiom_libdwarf_srclines_b(Dwarf_Die p0, Dwarf_Unsigned * p1, Dwarf_Small * p2, Dwarf_Line_Context * p3, Dwarf_Error * p4) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_b(p0, p1, p2, p3, p4);
}

int axiom_libdwarf_srclines_comp_dir(Dwarf_Line_Context p0, const char ** p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_comp_dir(p0, p1, p2);
}

void axiom_libdwarf_srclines_dealloc_b(Dwarf_Line_Context p0) {
    if (!loaded()) return;
    table.dwarf_srclines_dealloc_b(p0);
}

int axiom_libdwarf_srclines_files_data_b(Dwarf_Line_Context p0, Dwarf_Signed p1, const char ** p2, Dwarf_Unsigned * p3, Dwarf_Unsigned * p4, Dwarf_Unsigned * p5, Dwarf_Form_Data16 ** p6, Dwarf_Error * p7) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_files_data_b(p0, p1, p2, p3, p4, p5, p6, p7);
}

int axiom_libdwarf_srclines_files_indexes(Dwarf_Line_Context p0, Dwarf_Signed * p1, Dwarf_Signed * p2, Dwarf_Signed * p3, Dwarf_Error * p4) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_files_indexes(p0, p1, p2, p3, p4);
}

int axiom_libdwarf_srclines_from_linecontext(Dwarf_Line_Context p0, Dwarf_Line ** p1, Dwarf_Signed * p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_from_linecontext(p0, p1, p2, p3);
}

int axiom_libdwarf_srclines_include_dir_count(Dwarf_Line_Context p0, Dwarf_Signed * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_include_dir_count(p0, p1, p2);
}

int axiom_libdwarf_srclines_include_dir_data(Dwarf_Line_Context p0, Dwarf_Signed p1, const char ** p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_include_dir_data(p0, p1, p2, p3);
}

int axiom_libdwarf_srclines_version(Dwarf_Line_Context p0, Dwarf_Unsigned * p1, Dwarf_Small * p2, Dwarf_Error * p3) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_srclines_version(p0, p1, p2, p3);
}

int axiom_libdwarf_tag(Dwarf_Die p0, Dwarf_Half * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_tag(p0, p1, p2);
}

int axiom_libdwarf_whatform(Dwarf_Attribute p0, Dwarf_Half * p1, Dwarf_Error * p2) {
    if (!loaded()) return DW_DLV_ERROR;
    return table.dwarf_whatform(p0, p1, p2);
}
