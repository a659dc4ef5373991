/* signame.c -- signal names (signame.h gives the grammar). */
#include "signame.h"

#include <signal.h>
#include <strings.h>

static const struct {
	const char *name;
	int number;
} names[] = {
	{"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},
	{"ILL", SIGILL},       {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},
	{"BUS", SIGBUS},       {"FPE", SIGFPE},   {"KILL", SIGKILL},
	{"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
	{"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},
	{"CHLD", SIGCHLD},     {"CONT", SIGCONT}, {"STOP", SIGSTOP},
	{"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
	{"URG", SIGURG},       {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
	{"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
	{"IO", SIGIO},         {"PWR", SIGPWR},   {"SYS", SIGSYS},
};

/* A decimal number in [0, max] (the whole string), or -1. */
static long decimal(const char *s, long max)
{
	long v = 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

int ctrace__signal_number(const char *s)
{
	const char *name = strncasecmp(s, "SIG", 3) ? s : s + 3;
	long n = decimal(s, SIGRTMAX);

	if (n >= 1)
		return (int)n;
	if (n == 0)
		return -1;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(name, names[i].name))
			return names[i].number;
	/* RTMIN+K counts up from the first real-time signal, RTMAX-K down
	 * from the last. */
	int rt = SIGRTMAX - SIGRTMIN;
	if (!strncasecmp(name, "RTMIN", 5) || !strncasecmp(name, "RTMAX", 5)) {
		int up = name[4] == 'N' || name[4] == 'n';
		long k = name[5] == '\0'		 ? 0
			 : name[5] == (up ? '+' : '-') ? decimal(name + 6, rt)
						       : -1;
		if (k >= 0 && k <= rt)
			return up ? SIGRTMIN + (int)k : SIGRTMAX - (int)k;
	}
	return -1;
}
