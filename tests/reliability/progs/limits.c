/* limits.c -- a program under the limits of its process, one per mode:
 *
 *   limits calls N           N calls of leaf(); prints "done N"
 *   limits rss N THREADS     N calls, then THREADS short threads of 100
 *                            calls each; prints "rss KIB", the peak
 *                            resident size (VmHWM)
 *   limits mlock N           N calls, mlockall(MCL_CURRENT | MCL_FUTURE)
 *                            as a user without CAP_IPC_LOCK, N calls more;
 *                            prints "mlockall ok" or why it failed
 *   limits mlock-room N      mlockall(MCL_CURRENT | MCL_FUTURE) as such a
 *                            user, N calls, then maps 1 MiB pieces until
 *                            one fails (at most 64); prints "room K", the
 *                            pieces mapped
 *   limits files N           N calls, then opens /dev/null until that
 *                            fails (at most 1024 times), closes them, N
 *                            calls more; prints "files K", K opened
 *   limits exec N            N calls, then execs itself with N-1 until 0,
 *                            which ends with _exit(0)
 *   limits stack N           a thread on a painted 16 KiB stack makes N
 *                            calls; prints "stack BYTES", the bytes of
 *                            its stack written (TLS included)
 *   limits stack-dlopen N    the same, but between two rounds of N calls
 *                            the main thread dlopens libm.so.6: the
 *                            painted thread's next call finds it (the
 *                            recorder's scan of the loader's list, and
 *                            with a filter its symbols, on that stack)
 *   limits exit-busy N       N calls, then exit() while a thread keeps
 *                            calling: its chunks are claimed after the
 *                            trace was trimmed at exit
 *   limits uid               prints "uid RUID EUID" (run setuid)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE static void leaf(void)
{
	sink++;
}

NOINLINE static void calls(long n)
{
	for (long i = 0; i < n; i++)
		leaf();
}

/* The peak resident size in KiB, from the kernel. */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return kib;
}

NOINLINE static void *short_thread(void *arg)
{
	calls(100);
	return arg;
}

NOINLINE static void *busy_thread(void *arg)
{
	for (;;)
		calls(1000);
	return arg;
}

/* ---- mlockall as an unprivileged user ---- */

/* Drops CAP_IPC_LOCK, so that root runs this as a user would. */
static void drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
	syscall(SYS_capset, &h, d);
}

/* ---- stack use ---- */

#define STACK_BYTES (16u << 10)
#define PAINT 0xa5

static long stack_calls;
/* stack-dlopen: the painted thread says "done" on the first pipe, the
 * main thread dlopens and answers on the second. */
static int stack_dlopen, to_main[2], to_thread[2];

NOINLINE static void *stack_thread(void *arg)
{
	calls(stack_calls);
	if (stack_dlopen) {
		char c = 0;
		if (write(to_main[1], &c, 1) != 1 ||
		    read(to_thread[0], &c, 1) != 1)
			exit(1);
		calls(stack_calls);
	}
	return arg;
}

/* Runs stack_thread on a painted stack and returns how many bytes of it
 * were written, counted from its top. */
static long stack_used(void)
{
	unsigned char *stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	memset(stack, PAINT, STACK_BYTES);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, stack, STACK_BYTES);
	pthread_t t;
	if (pthread_create(&t, &a, stack_thread, NULL) != 0)
		return -1;
	if (stack_dlopen) {
		char c;
		if (read(to_main[0], &c, 1) != 1)
			return -1;
		if (dlopen("libm.so.6", RTLD_NOW) == NULL) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			exit(1);
		}
		if (write(to_thread[1], &c, 1) != 1)
			return -1;
	}
	pthread_join(t, NULL);
	size_t i = 0;
	while (i < STACK_BYTES && stack[i] == PAINT)
		i++;
	return (long)(STACK_BYTES - i);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (!strcmp(mode, "calls")) {
		calls(n);
		printf("done %ld\n", n);
	} else if (!strcmp(mode, "rss")) {
		calls(n);
		long threads = argc > 3 ? atol(argv[3]) : 0;
		for (long i = 0; i < threads; i++) {
			pthread_t t;
			if (pthread_create(&t, NULL, short_thread, NULL) != 0)
				return 1;
			pthread_join(t, NULL);
		}
		printf("rss %ld\n", peak_rss_kib());
	} else if (!strcmp(mode, "mlock")) {
		drop_ipc_lock();
		calls(n);
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			printf("mlockall: %s\n", strerror(errno));
			return 1;
		}
		calls(n);
		printf("mlockall ok\n");
	} else if (!strcmp(mode, "mlock-room")) {
		drop_ipc_lock();
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			printf("mlockall: %s\n", strerror(errno));
			return 1;
		}
		calls(n);
		void *piece[64];
		int k = 0;
		while (k < 64 &&
		       (piece[k] = mmap(NULL, 1u << 20, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) !=
			       MAP_FAILED)
			k++;
		for (int i = 0; i < k; i++)
			munmap(piece[i], 1u << 20);
		printf("room %d\n", k);
	} else if (!strcmp(mode, "files")) {
		static int fds[1024];
		int k = 0;
		calls(n);
		while (k < 1024 && (fds[k] = open("/dev/null", O_RDONLY)) >= 0)
			k++;
		for (int i = 0; i < k; i++)
			close(fds[i]);
		calls(n);
		printf("files %d\n", k);
	} else if (!strcmp(mode, "exec")) {
		calls(100);
		if (n <= 0)
			_exit(0);
		char next[24];
		snprintf(next, sizeof next, "%ld", n - 1);
		execl("/proc/self/exe", argv[0], "exec", next, (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "stack") || !strcmp(mode, "stack-dlopen")) {
		stack_calls = n;
		stack_dlopen = !strcmp(mode, "stack-dlopen");
		if (stack_dlopen && (pipe(to_main) != 0 || pipe(to_thread) != 0))
			return 1;
		printf("stack %ld\n", stack_used());
	} else if (!strcmp(mode, "exit-busy")) {
		pthread_t t;
		calls(n);
		if (pthread_create(&t, NULL, busy_thread, NULL) != 0)
			return 1;
		calls(n / 10);
		printf("exit\n");
		fflush(stdout);
		exit(0);
	} else if (!strcmp(mode, "uid")) {
		leaf();
		printf("uid %d %d\n", (int)getuid(), (int)geteuid());
	} else {
		fprintf(stderr, "usage: limits MODE [N]\n");
		return 2;
	}
	return 0;
}
