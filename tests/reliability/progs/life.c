/* life.c -- a program's life, one behaviour per mode:
 *
 *   life threads N        N short-lived threads, a few at a time
 *   life thread-exit      a thread calls pthread_exit three calls deep
 *   life threads-at-exit  main calls exit() while threads are busy
 *   life exit | _exit | abort    the process ends three calls deep
 *   life vfork-exec PROG  vfork() then exec of PROG (not instrumented)
 *   life spawn PROG       posix_spawn of PROG
 *   life exec-thread      a thread execs this program ("life exec-child")
 *   life daemon FILE      daemon(); the daemon writes its pid to FILE
 *   life fork-chain       a child forks a grandchild, each two calls deep;
 *                         each parent prints "fork PID" once its child ended
 *   life closefrom N FILE closes every descriptor, opens FILE on the
 *                         lowest numbers, then makes N calls
 *   life deep N           recursion N calls deep on a 1 GiB stack
 *   life count FILE       calls leaf() forever, counting returns in FILE
 *   life count-threads FILE  the same, two more threads calling leaf()
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;
static const char *self;

NOINLINE static void leaf(void)
{
	__asm__ volatile("");
}

/* ---- threads ---- */

NOINLINE static void *worker(void *arg)
{
	leaf();
	return arg;
}

NOINLINE static void start_threads(int n)
{
	pthread_t t[8];
	for (int i = 0; i < n; i += 8) {
		int k = n - i < 8 ? n - i : 8;
		for (int j = 0; j < k; j++)
			pthread_create(&t[j], NULL, worker, NULL);
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
}

NOINLINE static void exit_three(void)
{
	leaf();
	pthread_exit(NULL);
}

NOINLINE static void exit_two(void)
{
	exit_three();
}

NOINLINE static void *exit_one(void *arg)
{
	exit_two();
	return arg;
}

NOINLINE static void thread_exit_deep(void)
{
	pthread_t t;
	pthread_create(&t, NULL, exit_one, NULL);
	pthread_join(t, NULL);
}

static volatile int started;

NOINLINE static void *spin(void *arg)
{
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	for (;;)
		leaf();
	return arg;
}

NOINLINE static void busy_threads(void)
{
	pthread_t t;
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, spin, NULL);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 3)
		usleep(1000);
	usleep(20000);
}

/* ---- the end of the process ---- */

NOINLINE static void end_three(const char *how)
{
	leaf();
	fflush(stdout);
	if (!strcmp(how, "exit"))
		exit(3);
	if (!strcmp(how, "_exit"))
		_exit(3);
	abort();
}

NOINLINE static void end_two(const char *how)
{
	end_three(how);
}

NOINLINE static void end_one(const char *how)
{
	end_two(how);
}

/* ---- other programs ---- */

NOINLINE static void vfork_exec(const char *prog)
{
	pid_t pid = vfork();
	if (pid == 0) {
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
}

NOINLINE static void spawn(const char *prog)
{
	pid_t pid;
	char *argv[] = {(char *)prog, NULL};
	if (posix_spawn(&pid, prog, NULL, NULL, argv, environ) == 0)
		waitpid(pid, NULL, 0);
}

NOINLINE static void *exec_from_thread(void *arg)
{
	leaf();
	execl(self, self, "exec-child", (char *)NULL);
	return arg;
}

NOINLINE static void exec_thread(void)
{
	pthread_t t;
	pthread_create(&t, NULL, exec_from_thread, NULL);
	pthread_join(t, NULL); /* never returns: the exec ends this image */
}

NOINLINE static void exec_child(void)
{
	leaf();
}

NOINLINE static void after_daemon(const char *file)
{
	FILE *f = fopen(file, "w");
	leaf();
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

NOINLINE static void go_daemon(const char *file)
{
	if (daemon(1, 0) == 0)
		after_daemon(file);
}

/* ---- fork ---- */

NOINLINE static void fork_chain(int n);

NOINLINE static void fork_next(int n)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fork_chain(n - 1);
		return;
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid) {
		printf("fork %d\n", (int)pid);
		leaf();
	}
}

NOINLINE static void fork_chain(int n)
{
	if (n > 0)
		fork_next(n);
	else
		leaf();
}

NOINLINE static void close_all(const char *file)
{
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	/* The numbers the trace used now name another file. */
	for (int i = 0; i < 300; i++)
		if (open(file, O_RDWR) < 0)
			break;
}

NOINLINE static void many_calls(long n)
{
	for (long i = 0; i < n; i++)
		leaf();
}

/* ---- deep recursion ---- */

NOINLINE static long recurse(long n)
{
	if (n == 0)
		return 0;
	return 1 + recurse(n - 1);
}

static long depth;

NOINLINE static void *deep_thread(void *arg)
{
	printf("%ld\n", recurse(depth));
	return arg;
}

NOINLINE static void deep(long n)
{
	pthread_attr_t a;
	pthread_t t;
	depth = n;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, (size_t)1 << 30);
	if (pthread_create(&t, &a, deep_thread, NULL) != 0) {
		perror("pthread_create");
		exit(1);
	}
	pthread_join(t, NULL);
}

/* ---- counting for SIGKILL ---- */

NOINLINE static void *leaf_forever(void *arg)
{
	for (;;)
		leaf();
	return arg;
}

/* threads: how many more threads call leaf() forever meanwhile. */
NOINLINE static void count(const char *file, int threads)
{
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, leaf_forever, NULL) != 0)
			exit(1);
	}
	int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		exit(1);
	volatile long *n = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				fd, 0);
	if (n == MAP_FAILED)
		exit(1);
	for (;;) {
		leaf();
		++*n; /* after leaf's exit: the trace holds at least *n */
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	self = argv[0];

	if (!strcmp(mode, "threads"))
		start_threads(atoi(arg));
	else if (!strcmp(mode, "thread-exit"))
		thread_exit_deep();
	else if (!strcmp(mode, "threads-at-exit")) {
		busy_threads();
		exit(0);
	} else if (!strcmp(mode, "exit") || !strcmp(mode, "_exit") ||
		   !strcmp(mode, "abort"))
		end_one(mode);
	else if (!strcmp(mode, "vfork-exec"))
		vfork_exec(arg);
	else if (!strcmp(mode, "spawn"))
		spawn(arg);
	else if (!strcmp(mode, "exec-thread"))
		exec_thread();
	else if (!strcmp(mode, "exec-child"))
		exec_child();
	else if (!strcmp(mode, "daemon"))
		go_daemon(arg);
	else if (!strcmp(mode, "fork-chain"))
		fork_chain(2);
	else if (!strcmp(mode, "closefrom")) {
		close_all(argv[3]);
		many_calls(atol(arg));
	} else if (!strcmp(mode, "deep"))
		deep(atol(arg));
	else if (!strcmp(mode, "count"))
		count(arg, 0);
	else if (!strcmp(mode, "count-threads"))
		count(arg, 2);
	else {
		fprintf(stderr, "life: unknown mode %s\n", mode);
		return 2;
	}
	leaf();
	return 0;
}
