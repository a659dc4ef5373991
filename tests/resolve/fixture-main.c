/* fixture-main.c -- the program around the shared-library fixture. */
int fixture_run(int argc);

int main(int argc, char **argv)
{
	(void)argv;
	return fixture_run(argc);
}
