/* signame.c -- signal names as CTRACE_SIGNAL and `ctrace record --signal`
 * take them (common/signame.c). */
#include <signal.h>
#include <stdio.h>

#include "signame.h"
#include "tap.h"

int main(void)
{
	const struct {
		const char *s;
		int sig;
	} good[] = {
		{"USR1", SIGUSR1},   {"USR2", SIGUSR2},   {"SIGUSR2", SIGUSR2},
		{"sigusr1", SIGUSR1}, {"usr2", SIGUSR2},  {"SigTerm", SIGTERM},
		{"HUP", SIGHUP},     {"INT", SIGINT},     {"QUIT", SIGQUIT},
		{"TERM", SIGTERM},   {"PROF", SIGPROF},   {"WINCH", SIGWINCH},
		{"URG", SIGURG},     {"ALRM", SIGALRM},   {"VTALRM", SIGVTALRM},
		{"CHLD", SIGCHLD},   {"IO", SIGIO},       {"PWR", SIGPWR},
		{"SYS", SIGSYS},     {"SEGV", SIGSEGV},   {"XCPU", SIGXCPU},
		{"KILL", SIGKILL},   {"STOP", SIGSTOP},   {"2", 2},
		{"12", 12},          {"1", 1},            {"64", SIGRTMAX},
		{"RTMIN", SIGRTMIN}, {"SIGRTMIN+2", SIGRTMIN + 2},
		{"rtmin+0", SIGRTMIN}, {"RTMAX", SIGRTMAX},
		{"RTMAX-1", SIGRTMAX - 1}, {"SIGRTMAX-1", SIGRTMAX - 1},
	};
	const char *bad[] = {
		"",	 "0",	  "65",	    "99",     "-1",    "+2",
		" 2",	 "2 ",	  "FOO",    "SIG",    "SIGSIGUSR1", "USR",
		"USR12", "SIG12", "RTMIN-1", "RTMAX+1", "RTMIN+", "RTMIN+99",
		"RTMAX-99", "0x0c", "1e1",
	};
	tap_plan(TAP_COUNT(good) + TAP_COUNT(bad));
	for (int i = 0; i < TAP_COUNT(good); i++) {
		int n = ctrace__signal_number(good[i].s);
		if (!tap_ok(n == good[i].sig, "'%s' is signal %d", good[i].s,
			    good[i].sig))
			tap_diag("got %d", n);
	}
	for (int i = 0; i < TAP_COUNT(bad); i++) {
		int n = ctrace__signal_number(bad[i]);
		if (!tap_ok(n == -1, "'%s' is no signal", bad[i]))
			tap_diag("got %d", n);
	}
	return tap_done();
}
