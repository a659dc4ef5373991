/* elfprobe.h -- what ctrace needs to know about a program before running it.
 *
 * `ctrace record' refuses a program that was not linked with the recorder:
 * such a program would run to the end and leave no trace, and the user
 * would be left wondering why.  The recorder always links the public
 * function ctrace_trace_path(), so its definition in the program's symbol
 * tables is the mark looked for here.
 */
#ifndef CTRACE_TOOLS_ELFPROBE_H
#define CTRACE_TOOLS_ELFPROBE_H

enum elfprobe_kind {
	ELFPROBE_OTHER,		/* neither ELF nor a script */
	ELFPROBE_SCRIPT,	/* starts with #! */
	ELFPROBE_ELF,		/* an ELF executable or shared object */
	ELFPROBE_ELF_OTHER	/* ELF, but an object file or a core dump */
};

struct elfprobe {
	enum elfprobe_kind kind;
	int has_symtab;		/* a .symtab section could be read (not stripped) */
	int defines_symbol;	/* the symbol asked for is defined */
	int damaged;		/* section headers or symbols are cut short */
};

/* Looks at the file PATH and whether it defines the symbol NAME in a
 * SHT_SYMTAB or SHT_DYNSYM section.  A damaged ELF file is not an error:
 * the parts that cannot be read count as absent.
 * Returns 0, or a negative errno value when PATH cannot be read. */
int elfprobe_file(const char *path, const char *name, struct elfprobe *out);

#endif /* CTRACE_TOOLS_ELFPROBE_H */
