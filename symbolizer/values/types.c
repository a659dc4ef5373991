/* types.c -- the DWARF types of parameters and return values: followed
 * through typedefs and qualifiers, sized, and named as C or C++ writes
 * them.  What a value looks like is format.c's; where it is passed is
 * abi.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dwarf.h>
#include <string.h>

#include "values/dwinfo.h"
#include "trace/trace.h"
#include "util/util.h"

bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, type);
}

bool type_strip(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die t = *type;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type) {
			*out = t;
			return true;
		}
		if (!type_of(&t, &t)) {
			*out = t; /* const void */
			return false;
		}
	}
	*out = t; /* a chain too long to be a type of real code */
	return false;
}

size_t type_size(Dwarf_Die *type, int ptr_size)
{
	Dwarf_Die t;
	type_strip(type, &t);
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type)
		return (size_t)ptr_size;
	Dwarf_Word size;
	if (dwarf_aggregate_size(&t, &size) == 0)
		return (size_t)size;
	return 0;
}

bool type_is_char(Dwarf_Die *type)
{
	Dwarf_Die t;
	Dwarf_Word enc, sz;
	Dwarf_Attribute a;
	if (!type_strip(type, &t) || dwarf_tag(&t) != DW_TAG_base_type ||
	    !dwarf_attr(&t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) ||
	    !dwarf_attr(&t, DW_AT_byte_size, &a) || dwarf_formudata(&a, &sz))
		return false;
	return sz == 1 && (enc == DW_ATE_signed_char ||
			   enc == DW_ATE_unsigned_char ||
			   ((enc == DW_ATE_signed || enc == DW_ATE_unsigned) &&
			    dwarf_diename(&t) && strstr(dwarf_diename(&t), "char")));
}

bool type_is_string(Dwarf_Die *type)
{
	Dwarf_Die t, target;
	return type_strip(type, &t) && dwarf_tag(&t) == DW_TAG_pointer_type &&
	       type_of(&t, &target) && type_is_char(&target);
}

bool type_is_aggregate(Dwarf_Die *type)
{
	Dwarf_Die t;
	if (!type_strip(type, &t))
		return false;
	int tag = dwarf_tag(&t);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type || tag == DW_TAG_array_type;
}

/* C++ names a struct, union or enum without the keyword. */
static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	int lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

void type_name(Dwarf_Die *type, struct str *b, int depth)
{
	const char *name = dwarf_diename(type);
	Dwarf_Die inner;
	bool has_inner = type_of(type, &inner);
	if (depth > 8) {
		str_cat(b, "...");
		return;
	}
	switch (dwarf_tag(type)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		str_cat(b, name ? name : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!is_cxx(type))
			str_cat(b, dwarf_tag(type) == DW_TAG_union_type ? "union "
				   : dwarf_tag(type) == DW_TAG_enumeration_type
					   ? "enum "
					   : "struct ");
		str_cat(b, name ? name : "{...}");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type: {
		/* A qualified pointer is written with the qualifier after
		 * the star ("char * const"), anything else with it before. */
		Dwarf_Die t;
		const char *q = dwarf_tag(type) == DW_TAG_const_type
					? "const"
					: "volatile";
		int tag = type_strip(type, &t) ? dwarf_tag(&t) : 0;
		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type) {
			type_name(&inner, b, depth + 1);
			str_cat(b, " ");
			str_cat(b, q);
			return;
		}
		str_cat(b, q);
		str_cat(b, " ");
		if (has_inner)
			type_name(&inner, b, depth + 1);
		else
			str_cat(b, "void");
		return;
	}
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		if (has_inner)
			type_name(&inner, b, depth + 1);
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (!has_inner)
			str_cat(b, "void");
		else if (dwarf_tag(&inner) == DW_TAG_subroutine_type)
			str_cat(b, "function");
		else
			type_name(&inner, b, depth + 1);
		str_cat(b, dwarf_tag(type) == DW_TAG_pointer_type ? " *"
			   : dwarf_tag(type) == DW_TAG_reference_type ? " &"
								       : " &&");
		return;
	case DW_TAG_array_type:
		if (has_inner)
			type_name(&inner, b, depth + 1);
		str_cat(b, "[]");
		return;
	default:
		str_cat(b, name ? name : "?");
	}
}
