/* libcall-instplug.c -- an instrumented plugin loaded with dlopen
 * (libcall-inst.c), linked with libdemo.so: its calls of demo_compute and
 * of the program's inst_exe_add go through its own PLT. */

int demo_compute(int x);
int inst_exe_add(int x);

int instplug_run(int x)
{
	return demo_compute(x) + inst_exe_add(x);	/* 26 + 6 */
}
