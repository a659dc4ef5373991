/* nest.c -- processes made every way, for the tree that nests each
 * child's calls under the call that made it.  `nest MODE [ARGS]`:
 *
 *   work               the child's calls: work() { leaf(); }
 *   fork               fork(); the child returns through two calls open
 *                      across the fork, then calls work() and _exit()s
 *   fork-exec PROG..   fork() and execv(PROG...) in the child
 *   vfork-exec PROG..  vfork() and execv(PROG...)
 *   spawn PROG..       posix_spawn(PROG...)
 *   system CMD         system(CMD)
 *   popen CMD          popen(CMD, "r"), read to the end, pclose()
 *   tree N             a process tree N levels deep, two threads in each
 *                      process, each making one call
 *   orphan FILE        the child outlives its parent: it waits until the
 *                      parent is gone, calls work(), then creates FILE
 *   killed             the child stops in work() until SIGKILL kills it
 *
 * Every parent waits for its child inside the call that made it, so the
 * parent's thread is in that call when the child runs; it prints
 * nothing but error messages. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;

static volatile int sink;

NOINLINE static void leaf(void)
{
	sink++;
}

NOINLINE static void work(void)
{
	leaf();
}

/* Not a function of its own: the parent's thread stays in the call that
 * made the child while it runs (a child started by vfork or posix_spawn
 * nests under the call its parent was in when the child started). */
#define wait_for(pid)                                                         \
	__extension__({                                                       \
		int status_;                                                  \
		pid_t pid_ = (pid);                                           \
		pid_ < 0 || waitpid(pid_, &status_, 0) != pid_ ||             \
			!WIFEXITED(status_) || WEXITSTATUS(status_) != 0;     \
	})

NOINLINE static pid_t inner_fork(void)
{
	return fork();
}

/* The child returns from inner_fork and outer_fork, opened in the parent. */
NOINLINE static pid_t outer_fork(void)
{
	return inner_fork();
}

NOINLINE static int do_fork(void)
{
	pid_t pid = outer_fork();

	if (pid == 0) {
		work();
		_exit(0);
	}
	return wait_for(pid);
}

NOINLINE static int do_fork_exec(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return wait_for(pid);
}

NOINLINE static int do_vfork_exec(char **argv)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	return wait_for(pid);
}

NOINLINE static int do_spawn(char **argv)
{
	pid_t pid;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ))
		return 1;
	return wait_for(pid);
}

NOINLINE static int do_system(const char *cmd)
{
	return system(cmd) != 0;
}

NOINLINE static int do_popen(const char *cmd)
{
	char buf[256];
	FILE *f = popen(cmd, "r");

	if (!f)
		return 1;
	while (fread(buf, 1, sizeof buf, f) > 0)
		;
	return pclose(f) != 0;
}

NOINLINE static void *thread_call(void *arg)
{
	(void)arg;
	leaf();
	return NULL;
}

/* One call in a second thread, joined, then the next level's process. */
/* tree-exit: the children end by exit(), not _exit(), so that a counting
 * hook's destructor writes their counts too. */
static int children_exit;

NOINLINE static int level(int n)
{
	pthread_t t;
	pid_t pid;

	if (pthread_create(&t, NULL, thread_call, NULL) ||
	    pthread_join(t, NULL))
		return 1;
	if (n <= 1)
		return 0;
	pid = fork();
	if (pid == 0) {
		int r = level(n - 1);
		if (children_exit)
			exit(r);
		_exit(r);
	}
	return wait_for(pid);
}

NOINLINE static int do_orphan(const char *done)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fds[1]);
		/* the parent's end closes when it exits */
		while (read(fds[0], &c, 1) > 0)
			;
		work();
		close(open(done, O_WRONLY | O_CREAT | O_EXCL, 0600));
		_exit(0);
	}
	close(fds[0]);
	return 0;
}

NOINLINE static void stop_here(int fd)
{
	char c = 0;

	leaf();
	if (write(fd, &c, 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

NOINLINE static int do_killed(void)
{
	int fds[2], status;
	char c;
	pid_t pid;

	if (pipe(fds))
		return 1;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		stop_here(fds[1]);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1)
		return 1;
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int r;

	fflush(stdout);
	if (!strcmp(mode, "work")) {
		work();
		return 0;
	}
	if (!strcmp(mode, "fork"))
		r = do_fork();
	else if (!strcmp(mode, "fork-exec") && argc > 2)
		r = do_fork_exec(argv + 2);
	else if (!strcmp(mode, "vfork-exec") && argc > 2)
		r = do_vfork_exec(argv + 2);
	else if (!strcmp(mode, "spawn") && argc > 2)
		r = do_spawn(argv + 2);
	else if (!strcmp(mode, "system") && argc > 2)
		r = do_system(argv[2]);
	else if (!strcmp(mode, "popen") && argc > 2)
		r = do_popen(argv[2]);
	else if (!strcmp(mode, "tree") && argc > 2)
		r = level(atoi(argv[2]));
	else if (!strcmp(mode, "tree-exit") && argc > 2) {
		children_exit = 1;
		r = level(atoi(argv[2]));
	}
	else if (!strcmp(mode, "orphan") && argc > 2)
		r = do_orphan(argv[2]);
	else if (!strcmp(mode, "killed"))
		r = do_killed();
	else {
		fprintf(stderr, "usage: nest MODE [ARGS]\n");
		return 2;
	}
	if (r)
		fprintf(stderr, "nest %s failed\n", mode);
	return r;
}
