/* launcher.c -- what every command of the launcher uses: its messages,
 * all "ctrace: ..." on standard error, and allocation that exits rather
 * than fails.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* The command running, so that a usage error points to its own help. */
static const char *launcher_command;

void launcher_set_command(const char *name)
{
	launcher_command = name;
}

void usage_hint(void)
{
	if (launcher_command != NULL)
		fprintf(stderr,
			"Try 'ctrace %s --help' for more information.\n",
			launcher_command);
	else
		fputs("Try 'ctrace --help' for more information.\n", stderr);
}

/* "ctrace: " and the message on stderr, one line. */
static void vmessage(const char *fmt, va_list ap)
{
	fputs("ctrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void error_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	usage_hint();
	exit(2);
}

void *must_alloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL) {
		error_msg("out of memory");
		exit(2);
	}
	return p;
}

void *must_realloc(void *p, size_t count, size_t size)
{
	if (size != 0 && count > (size_t)-1 / size) {
		error_msg("out of memory");
		exit(2);
	}
	size_t bytes = count * size;
	p = realloc(p, bytes != 0 ? bytes : 1);
	if (p == NULL) {
		error_msg("out of memory");
		exit(2);
	}
	return p;
}

char *must_strdup(const char *s)
{
	return strcpy(must_alloc(strlen(s) + 1), s);
}

void print_version(void)
{
	printf("ctrace " PACKAGE_VERSION "\n");
	exit(0);
}
